// Control (wrong/expect.json): nothing wrong but speed. A correct, honest one-thread-per-element kernel on
// the stream it is given. Its baselines hold still and it leaves nothing running, so its measurement is
// graded, not INVALID: about 0.82 of copy bandwidth on an H200, partial credit.
#include "one_per_element.cuh"

void launch_vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
    wrong::add(a, b, c, n, stream);
}
