// Known-bad (wrong/expect.json): launches on a private non-blocking stream instead of the one it is given.
// Results are right once the device is synchronised, but the timing events on the given stream no longer
// bracket the kernel: the measured time is too short to be true, which the grader flags.
#include "one_per_element.cuh"

void launch_vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t /*stream*/) {
    static cudaStream_t mine = [] {
        cudaStream_t s = nullptr;
        CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
        return s;
    }();
    wrong::add(a, b, c, n, mine);
}
