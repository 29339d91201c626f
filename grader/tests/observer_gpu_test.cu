// The grader's observer on a real GPU: what it records of kernels, copies, allocations, graphs, modules and
// threads, what it attributes to the graded code, and the enqueue hook the chaos checks use.
#include <cuda_runtime.h>

#include <atomic>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "catch_compat.hpp"
#include "grader/gpu_checks.hpp"
#include "grader/observer.hpp"
#include "labs/cuda_check.hpp"

using namespace gpulab::grader;

// At global scope, so that their names are the same on host and device (the graded code's own symbols).
__device__ float observer_test_static[1 << 20];  // 4 MiB of static device data: counted as the graded code's

__global__ void observer_test_touch(float* p, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        p[i] += 1.0f;
        observer_test_static[i] = p[i];
    }
}

__global__ void observer_test_spin(long long cycles) {
    const long long t = clock64();
    while (clock64() - t < cycles) {
    }
}

__global__ void observer_test_wait(long long cycles) {  // the graded code's work left running, and the grader's next
    const long long t = clock64();
    while (clock64() - t < cycles) {
    }
}

namespace {

Observer& started() {
    Observer& o = Observer::instance();
    static const bool once = [&] {
        // The test's own kernels count as "own" (as the graded code's would): their host-side symbols.
        o.set_own_symbols({"_Z19observer_test_touchPfi", "observer_test_static"});
        const std::string why = o.start();
        INFO(why);
        return why.empty();
    }();
    REQUIRE(once);
    return o;
}

// What most tests below start with: the observer started, a device buffer of Bytes and a non-blocking stream. The
// buffer and the stream are released when the test ends (a failed release fails it).
template <std::size_t Bytes>
struct Started {
    Observer& o = started();
    float* d = nullptr;
    cudaStream_t s = nullptr;
    Started() {
        CUDA_CHECK(cudaMalloc(&d, Bytes));
        CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    }
    ~Started() {
        CHECK(cudaStreamDestroy(s) == cudaSuccess);
        CHECK(cudaFree(d) == cudaSuccess);
    }
    Started(const Started&) = delete;
    Started& operator=(const Started&) = delete;
};

}  // namespace

TEST_CASE("The observer records graded kernels and copies with their streams", "[observer]") {
    Observer& o = started();
    float* d = nullptr;
    CUDA_CHECK(cudaMalloc(&d, 1 << 22));
    cudaStream_t s1, s2;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    std::vector<float> host(1 << 20, 1.0f);
    Window w;
    observer_test_touch<<<4, 256, 0, s1>>>(d, 1024);  // the grader's: not graded
    {
        GradedCall graded;
        CUDA_CHECK(cudaMemcpyAsync(d, host.data(), 1 << 20, cudaMemcpyHostToDevice, s2));
        observer_test_touch<<<8, 128, 0, s2>>>(d, 1024);
        CUDA_CHECK(cudaMemsetAsync(d, 0, 4096, s1));
    }
    const Observation seen = w.close();
    REQUIRE(seen.kernels.size() == 2);
    const std::vector<ObservedKernel> graded = seen.graded_kernels();
    REQUIRE(graded.size() == 1);
    CHECK(graded[0].grid[0] == 8);
    CHECK(graded[0].block[0] == 128);
    CHECK(graded[0].own);
    CHECK(graded[0].stream == o.stream_id(s2));
    const std::vector<ObservedCopy> copies = seen.graded_copies();
    REQUIRE(copies.size() == 2);
    CHECK(copies[0].kind == CopyKind::h2d);
    CHECK(copies[0].pageable_host);
    CHECK(seen.streams_of_graded() == std::set<std::uint32_t>{o.stream_id(s1), o.stream_id(s2)});
    CUDA_CHECK(cudaFree(d));
    CUDA_CHECK(cudaStreamDestroy(s1));
    CUDA_CHECK(cudaStreamDestroy(s2));
}

TEST_CASE("Every kind of memory the graded code takes is in the ledger", "[observer]") {
    Observer& o = started();
    const MemoryHeld before = o.memory_held();
    Window w;
    void *dev = nullptr, *pinned = nullptr, *mapped = nullptr, *managed = nullptr, *async = nullptr;
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    {
        GradedCall graded;
        CUDA_CHECK(cudaMalloc(&dev, 1 << 20));
        CUDA_CHECK(cudaMallocHost(&pinned, 1 << 20));
        CUDA_CHECK(cudaHostAlloc(&mapped, 1 << 20, cudaHostAllocMapped));
        CUDA_CHECK(cudaMallocManaged(&managed, 1 << 20));
        CUDA_CHECK(cudaMallocAsync(&async, 1 << 20, s));
        CUDA_CHECK(cudaStreamSynchronize(s));
    }
    const MemoryHeld held = o.memory_held();
    CHECK(held.total >= before.total + 5 * (1 << 20));
    CHECK(held.by_kind.at("pinned_host") >= 2 * (1 << 20));
    CHECK(held.by_kind.at("managed") >= 1 << 20);
    {
        GradedCall graded;
        CUDA_CHECK(cudaFreeAsync(async, s));
        CUDA_CHECK(cudaStreamSynchronize(s));
        CUDA_CHECK(cudaFree(dev));
    }
    const Observation seen = w.close();
    const Observation::Held in_window = seen.graded_memory();
    CHECK(in_window.peak >= 5 * (1 << 20));
    CHECK(in_window.at_end >= 3 * (1 << 20));
    CUDA_CHECK(cudaFreeHost(pinned));
    CUDA_CHECK(cudaFreeHost(mapped));
    CUDA_CHECK(cudaFree(managed));
    CUDA_CHECK(cudaStreamDestroy(s));
}

TEST_CASE("A module's static device data counts as the graded code's", "[observer]") {
    Observer& o = started();
    float* d = nullptr;
    CUDA_CHECK(cudaMalloc(&d, 4096));
    observer_test_touch<<<1, 32>>>(d, 32);  // loads the module (lazily) if it was not yet
    CUDA_CHECK(cudaDeviceSynchronize());
    bool found = false;
    for (const ObservedModule& m : o.modules())
        if (m.own) found = found || m.global_bytes >= sizeof(float) * (1 << 20);
    CHECK(found);
    CHECK(o.memory_held().by_kind["device_static"] >= sizeof(float) * (1 << 20));
    CUDA_CHECK(cudaFree(d));
}

TEST_CASE_METHOD(Started<1 << 20>, "Graph launches, updates and the kernels of the instance are observed",
                 "[observer]") {
    cudaGraph_t g = nullptr;
    cudaGraphExec_t e = nullptr;
    Window w;
    {
        GradedCall graded;
        CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
        observer_test_touch<<<2, 64, 0, s>>>(d, 128);
        observer_test_touch<<<3, 64, 0, s>>>(d, 128);
        CUDA_CHECK(cudaStreamEndCapture(s, &g));
        CUDA_CHECK(cudaGraphInstantiate(&e, g, 0));
        CUDA_CHECK(cudaGraphLaunch(e, s));
        CUDA_CHECK(cudaGraphLaunch(e, s));
        CUDA_CHECK(cudaStreamSynchronize(s));
        cudaGraph_t g2 = nullptr;
        CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
        observer_test_touch<<<2, 64, 0, s>>>(d + 4096, 128);
        observer_test_touch<<<3, 64, 0, s>>>(d + 4096, 128);
        CUDA_CHECK(cudaStreamEndCapture(s, &g2));
        cudaGraphExecUpdateResultInfo info{};
        CUDA_CHECK(cudaGraphExecUpdate(e, g2, &info));
        CUDA_CHECK(cudaGraphLaunch(e, s));
        CUDA_CHECK(cudaStreamSynchronize(s));
        CUDA_CHECK(cudaGraphDestroy(g2));
    }
    const Observation seen = w.close();
    const auto launches = seen.calls_named("cudaGraphLaunch");
    REQUIRE(launches.size() == 3);
    const auto instantiations = seen.calls_named("cudaGraphInstantiate");
    REQUIRE(instantiations.size() == 1);
    CHECK(instantiations[0].graph_exec != 0);
    CHECK(launches[0].graph_exec == instantiations[0].graph_exec);
    const auto updates = seen.calls_named("cudaGraphExecUpdate");
    REQUIRE(updates.size() == 1);
    CHECK(updates[0].graph_exec == launches[0].graph_exec);
    // Six kernels ran, each tagged with the instance it ran in; the captured launches themselves ran nothing.
    const std::vector<ObservedKernel> graded = seen.graded_kernels();
    CHECK(graded.size() == 6);
    for (const ObservedKernel& k : graded) CHECK(k.graph == launches[0].graph_exec);
    CUDA_CHECK(cudaGraphExecDestroy(e));
    CUDA_CHECK(cudaGraphDestroy(g));
}

TEST_CASE_METHOD(Started<4096>, "The enqueue hook puts the grader's delay on the stream the graded work really uses",
                 "[observer]") {
    std::atomic<int> hooked{0};
    o.set_enqueue_hook(
        [&](cudaStream_t stream, const char*) {
            ++hooked;
            observer_test_spin<<<1, 1, 0, stream>>>(200000);  // about 0.1 ms ahead of the graded operation
        },
        {"_Z18observer_test_spinx"});
    Window w;
    {
        GradedCall graded;
        observer_test_touch<<<1, 32, 0, s>>>(d, 32);
        CUDA_CHECK(cudaMemsetAsync(d, 0, 128, s));
    }
    const Observation seen = w.close();
    o.set_enqueue_hook({});
    CHECK(hooked == 2);
    REQUIRE(seen.kernels.size() == 3);
    // The spin ran first, on the same stream, and is the grader's own (not graded).
    const ObservedKernel& spin = seen.kernels.front();
    CHECK_FALSE(spin.graded);
    CHECK(spin.stream == o.stream_id(s));
    CHECK(seen.graded_kernels().size() == 1);
    CHECK(seen.graded_kernels()[0].start >= spin.end);
}

TEST_CASE("Work of another thread is the graded code's, and the thread is counted", "[observer]") {
    started();
    float* d = nullptr;
    CUDA_CHECK(cudaMalloc(&d, 4096));
    Window w;
    std::thread t([&] {
        observer_test_touch<<<1, 32>>>(d, 32);
        (void)cudaDeviceSynchronize();
    });
    const std::size_t during = process_threads();
    t.join();
    const Observation seen = w.close();
    CHECK(seen.graded_kernels().size() == 1);
    CHECK(during > seen.threads_at_begin);
    CUDA_CHECK(cudaFree(d));
}

TEST_CASE("Graded work overlapping the grader's is judged as work left running", "[observer]") {
    started();
    cudaStream_t mine, theirs;
    CUDA_CHECK(cudaStreamCreateWithFlags(&mine, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamCreateWithFlags(&theirs, cudaStreamNonBlocking));
    Window w;
    {
        GradedCall graded;
        observer_test_wait<<<1, 1, 0, theirs>>>(4000000);  // ~2 ms, left running on its own stream
    }
    observer_test_wait<<<1, 1, 0, mine>>>(2000000);        // the grader's next timed work
    const Observation seen = w.close();
    Context ctx;
    PerfResult r;
    judge_observation(ctx, seen, r);
    REQUIRE(r.invalid.size() == 1);
    CHECK(r.invalid[0].find("left work running") != std::string::npos);
    CUDA_CHECK(cudaStreamDestroy(mine));
    CUDA_CHECK(cudaStreamDestroy(theirs));
}

TEST_CASE_METHOD(Started<4096>,
                 "In lean mode kernels are still recorded and told apart by name, a graph's node by node",
                 "[observer]") {
    cudaGraph_t g = nullptr;
    cudaGraphExec_t e = nullptr;
    CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    observer_test_touch<<<1, 32, 0, s>>>(d, 32);
    observer_test_touch<<<1, 32, 0, s>>>(d, 32);
    CUDA_CHECK(cudaStreamEndCapture(s, &g));
    CUDA_CHECK(cudaGraphInstantiate(&e, g, 0));
    o.add_grader_kernels({"_Z18observer_test_spinx"});  // "the baseline's kernel"
    Window w;
    o.set_lean(true);
    observer_test_spin<<<1, 1, 0, s>>>(1000);  // the grader's
    {
        GradedCall graded;
        observer_test_touch<<<1, 32, 0, s>>>(d, 32);
        CUDA_CHECK(cudaGraphLaunch(e, s));
    }
    o.set_lean(false);
    const Observation seen = w.close();
    REQUIRE(seen.kernels.size() == 4);  // the spin, the touch, the graph's two nodes
    std::size_t graded = 0, in_graph = 0;
    for (const ObservedKernel& k : seen.kernels) {
        graded += k.graded ? 1 : 0;
        in_graph += k.graph != 0 ? 1 : 0;
        if (k.graph != 0) CHECK(k.graded);  // named by the graph launch the graded code made
    }
    CHECK(graded == 3);
    CHECK(in_graph == 2);
    CUDA_CHECK(cudaGraphExecDestroy(e));
    CUDA_CHECK(cudaGraphDestroy(g));
}

TEST_CASE_METHOD(Started<4096>,
                 "Quiet mode records no work, says how long it lasted, sees what it allocated, and restores lean mode",
                 "[observer]") {
    o.set_lean(true);
    Window w;
    observer_test_touch<<<1, 32, 0, s>>>(d, 32);  // recorded (lean)
    constexpr std::size_t kHeld = std::size_t(64) << 20, kPassing = std::size_t(32) << 20;
    void* held = nullptr;
    void* passing = nullptr;
    {
        const QuietScope quiet;
        CHECK(o.quiet());
        GradedCall graded;
        observer_test_touch<<<1, 32, 0, s>>>(d, 32);  // not recorded
        CUDA_CHECK(cudaMalloc(&held, kHeld));          // seen from the device's free memory at the end
        CUDA_CHECK(cudaMalloc(&passing, kPassing));    // seen at its release, after quiet time
        CUDA_CHECK(cudaStreamSynchronize(s));
    }
    CHECK_FALSE(o.quiet());
    CHECK(o.lean());
    CUDA_CHECK(cudaFree(passing));
    observer_test_touch<<<1, 32, 0, s>>>(d, 32);  // recorded again
    const Observation seen = w.close();
    o.set_lean(false);
    CHECK(seen.kernels.size() == 2);
    CHECK(seen.unobserved_ns > 0);
    CHECK(seen.unobserved_ns < seen.end - seen.begin);
    bool released = false;
    std::uint64_t held_after = 0;
    for (const ObservedAllocation& a : seen.allocations) {
        released |= a.address == reinterpret_cast<std::uint64_t>(passing) && a.graded && a.bytes == kPassing && a.released_at > 0;
        if (a.address == 0 && a.graded && a.released_at == 0) held_after += a.bytes;
    }
    CHECK(released);
    CHECK(held_after >= kHeld);  // the 64 MiB, and the 32 MiB still held at the end of quiet time
    CUDA_CHECK(cudaFree(held));
}

TEST_CASE_METHOD(Started<4096>,
                 "After quiet time (CUPTI finalized and attached again) each launch is still told by its own call",
                 "[observer]") {
    Window w;
    for (int i = 0; i < 3; ++i) observer_test_touch<<<1, 32, 0, s>>>(d, 32);  // the grader's: correlation ids 1, 2, 3…
    {
        const QuietScope quiet;
        observer_test_touch<<<1, 32, 0, s>>>(d, 32);  // not recorded
    }
    {
        GradedCall graded;  // a new attachment's first ids must not meet the calls above
        for (int i = 0; i < 3; ++i) observer_test_touch<<<2, 32, 0, s>>>(d, 32);
    }
    const Observation seen = w.close();
    REQUIRE(seen.kernels.size() == 6);
    for (std::size_t i = 0; i < seen.kernels.size(); ++i) {
        INFO("kernel " << i);
        CHECK(seen.kernels[i].graded == (i >= 3));
        CHECK(seen.kernels[i].grid[0] == (i >= 3 ? 2u : 1u));
    }
}
