// Known-bad (wrong/expect.json): resets the device in the launcher ("to start clean"), which destroys the
// grader's buffers with it. The code policy denies calls that change device-wide state.
#include "one_per_element.cuh"

void launch_vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
    static bool once = [] { return cudaDeviceReset() == cudaSuccess; }();
    gpulab::unused(once);
    wrong::add(a, b, c, n, stream);
}
