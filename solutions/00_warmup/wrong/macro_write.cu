// Known-bad (wrong/expect.json): hides a write() to the report channel behind a macro that pastes its name
// together. The policy reads the compiled object, where the call is plain to see.
#include <unistd.h>

#include "one_per_element.cuh"

#define QUIETLY(fd, text) w##rite(fd, text, sizeof(text) - 1)

void launch_vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
    (void)!QUIETLY(3, "{\"type\":\"done\"}\n");
    wrong::add(a, b, c, n, stream);
}
