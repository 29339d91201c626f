// What the grader's observer costs: empty launches (host submit and device time), a graph's nodes, and a
// memory-bound kernel, each timed before the observer starts and again while it records. Prints a table (not a
// test: timings are never asserted; docs/performance-log.md quotes its output on the H200).
#include <cuda_runtime.h>
#include <cupti.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "grader/observer.hpp"
#include "labs/cuda_check.hpp"

namespace {

__global__ void empty_kernel() {}
__global__ void stream_kernel(const float4* in, float4* out, std::size_t n) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
        out[i] = in[i];
}

struct Costs {
    double submit_us, launch_us, node_us, graph_submit_us, stream_ms;
};

Costs measure(float4* a, float4* b, std::size_t n) {
    constexpr int kLaunches = 20000;
    std::vector<double> submit, launch, node, graph_submit, stream;
    for (int round = 0; round < 5; ++round) {
        CUDA_CHECK(cudaDeviceSynchronize());
        const auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < kLaunches; ++i) empty_kernel<<<1, 32>>>();
        const auto t1 = std::chrono::steady_clock::now();
        CUDA_CHECK(cudaDeviceSynchronize());
        const auto t2 = std::chrono::steady_clock::now();
        submit.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / kLaunches);
        launch.push_back(std::chrono::duration<double, std::micro>(t2 - t0).count() / kLaunches);
        // A graph of 20 empty nodes replayed 500 times, timed with events.
        cudaStream_t s;
        CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
        cudaGraph_t g;
        cudaGraphExec_t e;
        CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
        for (int i = 0; i < 20; ++i) empty_kernel<<<1, 32, 0, s>>>();
        CUDA_CHECK(cudaStreamEndCapture(s, &g));
        CUDA_CHECK(cudaGraphInstantiate(&e, g, 0));
        CUDA_CHECK(cudaGraphLaunch(e, s));
        cudaEvent_t x, y;
        CUDA_CHECK(cudaEventCreate(&x));
        CUDA_CHECK(cudaEventCreate(&y));
        CUDA_CHECK(cudaEventRecord(x, s));
        for (int i = 0; i < 500; ++i) CUDA_CHECK(cudaGraphLaunch(e, s));
        CUDA_CHECK(cudaEventRecord(y, s));
        CUDA_CHECK(cudaEventSynchronize(y));
        float ms = 0;
        CUDA_CHECK(cudaEventElapsedTime(&ms, x, y));
        node.push_back(1e3 * ms / (500 * 20));
        // The host's submit of one graph launch (the stream drained before each, as lab 08 times a step).
        std::vector<double> one;
        for (int i = 0; i < 200; ++i) {
            CUDA_CHECK(cudaStreamSynchronize(s));
            const auto g0 = std::chrono::steady_clock::now();
            CUDA_CHECK(cudaGraphLaunch(e, s));
            one.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - g0).count());
        }
        CUDA_CHECK(cudaStreamSynchronize(s));
        std::nth_element(one.begin(), one.begin() + one.size() / 2, one.end());
        graph_submit.push_back(one[one.size() / 2]);
        CUDA_CHECK(cudaEventRecord(x));
        stream_kernel<<<132 * 8, 256>>>(a, b, n);
        CUDA_CHECK(cudaEventRecord(y));
        CUDA_CHECK(cudaEventSynchronize(y));
        CUDA_CHECK(cudaEventElapsedTime(&ms, x, y));
        stream.push_back(ms);
        CUDA_CHECK(cudaGraphExecDestroy(e));
        CUDA_CHECK(cudaGraphDestroy(g));
        CUDA_CHECK(cudaStreamDestroy(s));
        CUDA_CHECK(cudaEventDestroy(x));
        CUDA_CHECK(cudaEventDestroy(y));
    }
    const auto median = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        return v[v.size() / 2];
    };
    return {median(submit), median(launch), median(node), median(graph_submit), median(stream)};
}

}  // namespace

int main() {
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        std::printf("SKIPPED: no CUDA device\n");
        return 77;
    }
    const std::size_t n = (std::size_t(1) << 30) / sizeof(float4);  // 1 GiB each way
    float4 *a = nullptr, *b = nullptr;
    CUDA_CHECK(cudaMalloc(&a, n * sizeof(float4)));
    CUDA_CHECK(cudaMalloc(&b, n * sizeof(float4)));
    CUDA_CHECK(cudaMemset(a, 1, n * sizeof(float4)));
    (void)measure(a, b, n);  // warm-up
    const Costs off = measure(a, b, n);
    const std::string why = gpulab::grader::Observer::instance().start();
    if (!why.empty()) {
        std::printf("the observer does not record here: %s\n", why.c_str());
        return 1;
    }
    Costs on{}, lean{}, quiet{}, quiet_mem{};
    {
        gpulab::grader::GradedCall graded;  // as the graded code's calls are: every launch recorded and attributed
        on = measure(a, b, n);
        {
            const gpulab::grader::LeanScope lean_scope;  // as the device-timed loops record
            lean = measure(a, b, n);
        }
        const gpulab::grader::QuietScope quiet_scope;  // as the host-timed loops of lab 08 run
        quiet = measure(a, b, n);
        // Quiet, but with the allocations recorded (one activity kind on, no subscriber): what that alone costs.
        (void)cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMORY2);
        quiet_mem = measure(a, b, n);
        (void)cuptiActivityDisable(CUPTI_ACTIVITY_KIND_MEMORY2);
    }
    const Costs again = measure(a, b, n);  // full again, outside a graded call: drift of the machine itself
    std::printf("%-34s %9s %9s %9s %9s %9s %9s %7s %7s %7s\n", "", "off", "full", "lean", "quiet", "quiet+mem", "full*",
                "full/off", "lean/off", "quiet/off");
    const auto row = [](const char* what, double x, double y, double z, double q, double m, double w) {
        std::printf("%-34s %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f %7.3f %7.3f %7.3f\n", what, x, y, z, q, m, w, y / x, z / x, q / x);
    };
    row("host submit per empty launch, us", off.submit_us, on.submit_us, lean.submit_us, quiet.submit_us, quiet_mem.submit_us,
        again.submit_us);
    row("per empty launch, end to end, us", off.launch_us, on.launch_us, lean.launch_us, quiet.launch_us, quiet_mem.launch_us,
        again.launch_us);
    row("per graph node (device), us", off.node_us, on.node_us, lean.node_us, quiet.node_us, quiet_mem.node_us, again.node_us);
    row("host submit per graph launch, us", off.graph_submit_us, on.graph_submit_us, lean.graph_submit_us, quiet.graph_submit_us,
        quiet_mem.graph_submit_us, again.graph_submit_us);
    row("1 GiB copy kernel (device), ms", off.stream_ms, on.stream_ms, lean.stream_ms, quiet.stream_ms, quiet_mem.stream_ms,
        again.stream_ms);
    std::printf("(quiet: CUPTI finalized; quiet+mem: CUPTI attached again for one activity kind, allocations, with no subscriber; full*: full again, the launches not the graded code's)\n");
    CUDA_CHECK(cudaFree(a));
    CUDA_CHECK(cudaFree(b));
    return 0;
}
