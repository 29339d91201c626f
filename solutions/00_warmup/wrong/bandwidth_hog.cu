// Known-bad (wrong/expect.json): a correct one-thread-per-element kernel (about 0.82 of the copy alone:
// partial credit) plus a bandwidth-hungry kernel on a private stream that starts when the graded kernel
// ends, so that it overlaps whatever is timed next: the copy the grade divides by. The graded kernel's own
// speed is unchanged and no forbidden call is made (a stream, an event, a kernel); only the baseline
// slows down. The copy inside the check runs slower than when timed alone before the first check, and the
// GPU stays busy after the given stream is done: the measurement is INVALID, 0 points.
#include "hog.cuh"
#include "one_per_element.cuh"

void launch_vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
    static wrong::Hog hog(std::size_t(512) << 20);  // 512 MiB, read and written
    wrong::add(a, b, c, n, stream);
    cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusNone;
    CUDA_CHECK(cudaStreamIsCapturing(stream, &capturing));
    if (capturing != cudaStreamCaptureStatusNone) return;  // stay out of any graph the grader captures
    hog.run_after(stream);
}
