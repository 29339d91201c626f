// FROZEN: do not edit. Lab 01 baseline: the work kernel, the serial path, the timeline hook (Chaos) and the
// program that hangs.
#include "labs/buffer.hpp"
#include "labs/cuda_check.hpp"
#include "labs/launch.hpp"
#include "labs/math.hpp"
#include "labs/timing.hpp"
#include "streams.hpp"

namespace {

// A fixed FP32 recurrence, with explicit rounding so that every launch computes the same bits.
__global__ void work_kernel(const __nv_bfloat16* __restrict__ in, __nv_bfloat16* __restrict__ out, std::size_t n,
                            int iters) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
        float x = __bfloat162float(in[i]);
        for (int k = 0; k < iters; ++k) x = __fmaf_rn(x, 0.9990234375f, 0.0009765625f);
        out[i] = __float2bfloat16_rn(x);
    }
}

// One thread that keeps its SM's attention for `cycles` clock cycles: the producer's work in HangDemo.
__global__ void spin_kernel(long long cycles) {
    const long long start = clock64();
    while (clock64() - start < cycles) {
    }
}

// Waits until the host-mapped flag is set.
__global__ void wait_for_flag(const volatile unsigned* flag) {
    while (*flag == 0u) __nanosleep(1000);
}

__global__ void set_flag(volatile unsigned* flag) { *flag = 1u; }

double clock_khz() {
    static const double khz = gpulab::device_attribute(cudaDevAttrClockRate);
    return khz;
}

}  // namespace

void launch_work(const __nv_bfloat16* in, __nv_bfloat16* out, std::size_t n, int iters, cudaStream_t stream) {
    if (n == 0) return;
    const unsigned grid = gpulab::resident_grid(work_kernel, 256, 0, gpulab::ceil_div<std::size_t>(n, 256));
    work_kernel<<<grid, 256, 0, stream>>>(in, out, n, iters);
    LABS_CHECK_LAUNCH();
}

void run_serial(const std::uint16_t* in, std::uint16_t* out, std::size_t n, int iters) {
    const gpulab::NvtxRange range("run_serial");  // a named span in Nsight Systems' timeline
    static gpulab::Workspace<__nv_bfloat16> d_in, d_out;
    __nv_bfloat16* a = d_in.at_least(n);
    __nv_bfloat16* b = d_out.at_least(n);
    CUDA_CHECK(cudaMemcpy(a, in, n * sizeof(std::uint16_t), cudaMemcpyHostToDevice));
    launch_work(a, b, n, iters, nullptr);
    CUDA_CHECK(cudaMemcpy(out, b, n * sizeof(std::uint16_t), cudaMemcpyDeviceToHost));
}

Chaos::~Chaos() {
    for (const Recorded& r : recorded_) {
        (void)cudaEventDestroy(r.start);
        if (r.end != nullptr) (void)cudaEventDestroy(r.end);
    }
}

void Chaos::record_timeline() { timeline_ = true; }

void Chaos::point(cudaStream_t stream) {
    ++points_;
    if (!timeline_) return;
    Recorded r;
    r.stream = numbers_.try_emplace(stream, static_cast<int>(numbers_.size())).first->second;
    CUDA_CHECK(cudaEventCreate(&r.start));
    CUDA_CHECK(cudaEventRecord(r.start, stream));
    open_[stream] = recorded_.size();
    recorded_.push_back(r);
}

void Chaos::done(cudaStream_t stream) {
    ++dones_;
    if (!timeline_) return;
    const auto it = open_.find(stream);
    if (it == open_.end()) return;  // a done() without its point(): nothing to close
    Recorded& r = recorded_[it->second];
    CUDA_CHECK(cudaEventCreate(&r.end));
    CUDA_CHECK(cudaEventRecord(r.end, stream));
    open_.erase(it);
}

std::vector<Chaos::Span> Chaos::timeline() const {
    std::vector<Span> spans;
    if (recorded_.empty()) return spans;
    const cudaEvent_t origin = recorded_.front().start;
    for (const Recorded& r : recorded_) {
        if (r.end == nullptr) continue;
        CUDA_CHECK(cudaEventSynchronize(r.end));
        float start = 0, end = 0;
        CUDA_CHECK(cudaEventElapsedTime(&start, origin, r.start));
        CUDA_CHECK(cudaEventElapsedTime(&end, origin, r.end));
        spans.push_back({r.stream, start, end});
    }
    return spans;
}

HangDemo::HangDemo() {
    CUDA_CHECK(cudaStreamCreateWithFlags(&producer_, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamCreateWithFlags(&consumer_, cudaStreamNonBlocking));
    CUDA_CHECK(cudaEventCreateWithFlags(&consumed_, cudaEventDisableTiming));
    void* p = nullptr;
    CUDA_CHECK(cudaHostAlloc(&p, sizeof(unsigned), cudaHostAllocMapped));
    flag_ = static_cast<volatile unsigned*>(p);
    *flag_ = 0u;
}

HangDemo::~HangDemo() {
    if (flag_ != nullptr) {
        *flag_ = 1u;  // never leave the consumer spinning
        (void)cudaStreamSynchronize(consumer_);
        (void)cudaFreeHost(const_cast<unsigned*>(flag_));
    }
    (void)cudaEventDestroy(consumed_);
    (void)cudaStreamDestroy(producer_);
    (void)cudaStreamDestroy(consumer_);
}

void HangDemo::start(bool with_release) {
    *flag_ = 0u;
    void* device_flag = nullptr;
    CUDA_CHECK(cudaHostGetDevicePointer(&device_flag, const_cast<unsigned*>(flag_), 0));
    auto* flag = static_cast<volatile unsigned*>(device_flag);
    spin_kernel<<<1, 1, 0, producer_>>>(static_cast<long long>(100.0 * clock_khz() / 1000.0));  // the producer's work
    LABS_CHECK_LAUNCH();
    if (with_release) {
        set_flag<<<1, 1, 0, producer_>>>(flag);
        LABS_CHECK_LAUNCH();
    }
    wait_for_flag<<<1, 1, 0, consumer_>>>(flag);
    LABS_CHECK_LAUNCH();
    CUDA_CHECK(cudaEventRecord(consumed_, consumer_));
}

void HangDemo::unblock() { *flag_ = 1u; }
