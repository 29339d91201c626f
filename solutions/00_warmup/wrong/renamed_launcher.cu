// Known-bad (wrong/expect.json): compiles, but defines launch_vectoradd instead of the launch_vector_add
// the checks call. It must be reported as a link error naming the missing function, not as a crash.
#include "one_per_element.cuh"

void launch_vectoradd(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
    wrong::add(a, b, c, n, stream);
}
