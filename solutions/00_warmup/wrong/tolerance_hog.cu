// Known-bad (wrong/expect.json): bandwidth_hog.cu made careful. After the honest kernel, on a private stream
// that waits for it, a short bandwidth hog (about 30 µs of traffic): it lands on whatever the grader times
// next, slows the copy by less than the reference's 10% tolerance and is over long before any idle check
// could look; and it stays away from a second call on the same buffers, where the grader's old leftover-work
// probe ran. The drift check cannot see it; the observer can: graded work running at the same time as the
// grader's own work makes the check INVALID.
#include "one_per_element.cuh"

namespace {

// Reads and writes `n` float4 of a private buffer.
__global__ void hog_kernel(float4* buf, std::size_t n) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
        float4 v = buf[i];
        v.x += 1.0f;
        buf[i] = v;
    }
}

}  // namespace

void launch_vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
    constexpr std::size_t kHog = (std::size_t(64) << 20) / sizeof(float4);  // 64 MiB, read and written
    static cudaStream_t hog_stream = nullptr;
    static cudaEvent_t graded_done = nullptr;
    static float4* hog = nullptr;
    static const float* last_c = nullptr;
    if (hog == nullptr) {
        CUDA_CHECK(cudaStreamCreateWithFlags(&hog_stream, cudaStreamNonBlocking));
        CUDA_CHECK(cudaEventCreateWithFlags(&graded_done, cudaEventDisableTiming));
        CUDA_CHECK(cudaMalloc(&hog, kHog * sizeof(float4)));
        CUDA_CHECK(cudaMemset(hog, 0, kHog * sizeof(float4)));
    }
    wrong::add(a, b, c, n, stream);
    const bool repeat = c == last_c;
    last_c = c;
    if (repeat || n < (std::size_t(1) << 26)) return;
    CUDA_CHECK(cudaEventRecord(graded_done, stream));
    CUDA_CHECK(cudaStreamWaitEvent(hog_stream, graded_done, 0));
    hog_kernel<<<1024, 256, 0, hog_stream>>>(hog, kHog);
    LABS_CHECK_LAUNCH();
}
