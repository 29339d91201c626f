// The device side of the lab kit: captured graphs name their kernels (a library's too), refuse work that
// leaves the stream, and replay; grids sized from the occupancy API; workspaces that only grow.
#include <string>
#include <vector>

#include <cublas_v2.h>

#include "catch_compat.hpp"
#include "labs/buffer.hpp"
#include "labs/device.hpp"
#include "labs/graph.hpp"
#include "labs/launch.hpp"

using namespace gpulab;

namespace {

__global__ void kit_test_fill(int* out, int value) { out[threadIdx.x] = value; }
__global__ void kit_test_add_one(int* out) { out[threadIdx.x] += 1; }

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("A captured graph counts and names the kernels a launcher enqueued, and nothing runs until replay",
          "[kit][graph]") {
    DeviceBuffer<int> d(32);
    d.zero();
    CUDA_CHECK(cudaDeviceSynchronize());
    CapturedGraph g([&](cudaStream_t s) {
        kit_test_fill<<<1, 32, 0, s>>>(d.data(), 41);
        CUDA_CHECK(cudaMemsetAsync(d.data(), 0, 4, s));
        kit_test_add_one<<<1, 32, 0, s>>>(d.data());
    });
    REQUIRE(g.kernels().size() == 2);
    CHECK(g.node_count() == 3);  // the memset is a node, not a kernel
    CHECK(contains(g.kernels()[0].name, "kit_test_fill"));
    CHECK(contains(g.kernels()[1].name, "kit_test_add_one"));
    CHECK(g.kernels()[0].name.back() != ')');  // "(anonymous namespace)::kit_test_fill": no argument list
    CHECK(g.kernels()[0].block.x == 32);
    CHECK(to_host(d) == std::vector<int>(32, 0));  // captured, not run
    g.replay();
    std::vector<int> expect(32, 42);
    expect[0] = 1;
    CHECK(to_host(d) == expect);
    CHECK(contains(g.describe(), "2 kernels: "));
}

TEST_CASE("A launcher that synchronises or leaves its stream breaks the capture with a clear error", "[kit][graph]") {
    DeviceBuffer<int> d(32);
    try {
        CapturedGraph g([&](cudaStream_t s) {
            kit_test_fill<<<1, 32, 0, s>>>(d.data(), 1);
            CUDA_CHECK(cudaDeviceSynchronize());
        });
        FAIL("the capture should have failed");
    } catch (const CaptureError& e) {
        CHECK(contains(e.what(), "no synchronisation"));
    }
    // The process goes on: the failed capture left no sticky error.
    kit_test_fill<<<1, 32>>>(d.data(), 5);
    CUDA_CHECK(cudaDeviceSynchronize());
    CHECK(to_host(d) == std::vector<int>(32, 5));
}

TEST_CASE("A library's kernels are named too (cuBLAS launches through the driver API)", "[kit][graph]") {
    constexpr int n = 256;
    DeviceBuffer<float> a(n * n), b(n * n), c(n * n);
    a.zero();
    b.zero();
    cublasHandle_t h = nullptr;
    REQUIRE(cublasCreate(&h) == CUBLAS_STATUS_SUCCESS);
    const float one = 1.0f, zero = 0.0f;
    // Once outside the capture: cuBLAS sets itself up (workspace) on the first call.
    REQUIRE(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a.data(), n, b.data(), n, &zero, c.data(), n) ==
            CUBLAS_STATUS_SUCCESS);
    CUDA_CHECK(cudaDeviceSynchronize());
    CapturedGraph g([&](cudaStream_t s) {
        cublasSetStream(h, s);
        cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a.data(), n, b.data(), n, &zero, c.data(), n);
    });
    cublasDestroy(h);
    REQUIRE_FALSE(g.kernels().empty());
    INFO(g.describe());
    for (const KernelNode& k : g.kernels()) CHECK(k.name != "<unnamed kernel>");
}

TEST_CASE("Grids come from the occupancy API: one full wave at most, one block at least", "[kit][launch]") {
    const DeviceProbe p = probe_device();
    REQUIRE(p.available());
    const unsigned wave = resident_blocks(kit_test_add_one, 256);
    // A kernel this small is limited by threads (or the block limit), not registers or shared memory.
    const int per_sm = std::min(p.info.max_threads_per_sm / 256, p.info.max_blocks_per_sm);
    CHECK(wave == static_cast<unsigned>(p.info.sm_count * per_sm));
    CHECK(resident_grid(kit_test_add_one, 256, 0, 0) == 1);
    CHECK(resident_grid(kit_test_add_one, 256, 0, 7) == 7);
    CHECK(resident_grid(kit_test_add_one, 256, 0, std::size_t(1) << 40) == wave);
    // Dynamic shared memory lowers the count: 3/4 of an SM's shared memory leaves room for one block.
    const auto big = static_cast<std::size_t>(p.info.smem_per_sm_bytes * 3 / 4);
    if (big <= static_cast<std::size_t>(p.info.smem_per_block_optin_bytes)) {
        CUDA_CHECK(cudaFuncSetAttribute(kit_test_add_one, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(big)));
        CHECK(resident_blocks(kit_test_add_one, 256, big) == static_cast<unsigned>(p.info.sm_count));
    }
}

TEST_CASE("A workspace grows to the largest request and keeps its memory", "[kit][buffer]") {
    Workspace<float> w;
    float* first = w.at_least(100);
    CHECK(w.at_least(50) == first);
    CHECK(w.at_least(100) == first);
    float* bigger = w.at_least(1 << 20);
    CHECK(bigger != nullptr);
    CHECK(w.at_least(10) == bigger);
}
