// Known-bad (wrong/expect.json): a correct one-thread-per-element kernel (about 0.82 of the copy alone:
// partial credit) plus a bandwidth-hungry kernel on a private stream that starts when the graded kernel
// ends, so that it overlaps whatever is timed next: the copy the grade divides by. The graded kernel's own
// speed is unchanged and no forbidden call is made (a stream, an event, a kernel); only the reference
// slows down. The copy inside the check runs slower than when timed alone before the first check, and the
// GPU stays busy after the given stream is done: the measurement is INVALID, 0 points.
#include "one_per_element.cuh"

namespace {

// Reads and writes `n` float4 of a private buffer: the same traffic as a copy of n * 16 bytes.
__global__ void hog_kernel(float4* buf, std::size_t n) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
        float4 v = buf[i];
        v.x += 1.0f;
        buf[i] = v;
    }
}

}  // namespace

void launch_vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
    constexpr std::size_t kHog = (std::size_t(512) << 20) / sizeof(float4);  // 512 MiB, read and written
    static cudaStream_t hog_stream = nullptr;
    static cudaEvent_t graded_done = nullptr;
    static float4* hog = nullptr;
    if (hog == nullptr) {
        CUDA_CHECK(cudaStreamCreateWithFlags(&hog_stream, cudaStreamNonBlocking));
        CUDA_CHECK(cudaEventCreateWithFlags(&graded_done, cudaEventDisableTiming));
        CUDA_CHECK(cudaMalloc(&hog, kHog * sizeof(float4)));
        CUDA_CHECK(cudaMemset(hog, 0, kHog * sizeof(float4)));
    }
    wrong::add(a, b, c, n, stream);
    cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusNone;
    CUDA_CHECK(cudaStreamIsCapturing(stream, &capturing));
    if (capturing != cudaStreamCaptureStatusNone) return;  // stay out of any graph the grader captures
    CUDA_CHECK(cudaEventRecord(graded_done, stream));
    CUDA_CHECK(cudaStreamWaitEvent(hog_stream, graded_done, 0));
    hog_kernel<<<1024, 256, 0, hog_stream>>>(hog, kHog);
    LABS_CHECK_LAUNCH();
}
