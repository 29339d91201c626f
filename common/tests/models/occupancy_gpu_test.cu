// The occupancy model against the CUDA runtime: for several kernels whose real register counts
// differ (register pressure, __launch_bounds__ caps, static shared memory), every block size and a
// range of dynamic shared-memory sizes, the model fed the kernel's attributes and the device's
// properties must give the same resident blocks per SM as cudaOccupancyMaxActiveBlocksPerMultiprocessor.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "catch_compat.hpp"
#include "labs/cuda_check.hpp"
#include "labs/models/occupancy.hpp"

namespace {

// N accumulators kept live across a loop the compiler cannot fold: the register count grows with N
// until a __launch_bounds__ cap (or 255) forces spills.
template <int N>
__device__ float register_pressure(const float* in, int n) {
    float acc[N];
#pragma unroll
    for (int i = 0; i < N; ++i) acc[i] = in[(threadIdx.x * N + i) % n];
    for (int it = 0; it < n; ++it) {
#pragma unroll
        for (int i = 0; i < N; ++i) acc[i] = fmaf(acc[i], acc[(i + 1) % N], in[it]);
    }
    float s = 0.0f;
#pragma unroll
    for (int i = 0; i < N; ++i) s += acc[i];
    return s;
}

// Dynamic shared memory is declared and touched (on a path never taken) so it stays part of the kernel.
#define LABS_PRESSURE_KERNEL(name, bounds, N)                                    \
    __global__ void bounds name(float* out, const float* in, int n) {          \
        extern __shared__ float dynamic_smem[];                                 \
        const float s = register_pressure<N>(in, n);                            \
        if (n < 0) dynamic_smem[threadIdx.x] = s;                               \
        out[blockIdx.x * blockDim.x + threadIdx.x] = s;                         \
    }

LABS_PRESSURE_KERNEL(pressure_8, , 8)
LABS_PRESSURE_KERNEL(pressure_32, , 32)
LABS_PRESSURE_KERNEL(pressure_64, , 64)
LABS_PRESSURE_KERNEL(pressure_96, , 96)
LABS_PRESSURE_KERNEL(pressure_128, , 128)
LABS_PRESSURE_KERNEL(pressure_200, , 200)
LABS_PRESSURE_KERNEL(pressure_128_bounded_256x2, __launch_bounds__(256, 2), 128)   // ≤ 128 registers
LABS_PRESSURE_KERNEL(pressure_96_bounded_1024x1, __launch_bounds__(1024, 1), 96)   // ≤ 64 registers
LABS_PRESSURE_KERNEL(pressure_64_bounded_384x3, __launch_bounds__(384, 3), 64)     // ≤ 56 registers

// 4 KiB of static shared memory on top of the dynamic part.
__global__ void static_smem_48(float* out, const float* in, int n) {
    __shared__ float tile[1024];
    extern __shared__ float dynamic_smem[];
    tile[threadIdx.x % 1024] = register_pressure<48>(in, n);
    __syncthreads();
    float s = tile[(threadIdx.x + 1) % 1024];
    if (n < 0) dynamic_smem[threadIdx.x] = s;
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

using KernelFn = void (*)(float*, const float*, int);

struct Kernel {
    const char* name;
    KernelFn fn;
};

// The model's view of this device, from cudaGetDeviceProperties. The allocation granularities are
// not device properties: 256 registers per warp and 4 register-file partitions (sm_70 and later),
// 128-byte shared-memory units (sm_80 and later; 256 before), as in the toolkit's cuda_occupancy.h.
gpulab::models::SmLimits limits_of(const cudaDeviceProp& p) {
    gpulab::models::SmLimits sm;
    sm.warp_size = p.warpSize;
    sm.max_threads_per_sm = p.maxThreadsPerMultiProcessor;
    sm.max_threads_per_block = p.maxThreadsPerBlock;
    sm.max_blocks_per_sm = p.maxBlocksPerMultiProcessor;
    sm.regs_per_sm = p.regsPerMultiprocessor;
    sm.regs_per_block_max = p.regsPerBlock;
    sm.max_regs_per_thread = 255;
    sm.reg_alloc_unit = 256;
    sm.reg_file_partitions = 4;
    sm.smem_per_sm_bytes = static_cast<std::int64_t>(p.sharedMemPerMultiprocessor);
    sm.smem_per_block_max_bytes = static_cast<std::int64_t>(p.sharedMemPerBlockOptin);
    sm.smem_reserved_per_block_bytes = static_cast<std::int64_t>(p.reservedSharedMemPerBlock);
    sm.smem_alloc_unit_bytes = p.major >= 8 ? 128 : 256;
    return sm;
}

}  // namespace

TEST_CASE("The occupancy model agrees with cudaOccupancyMaxActiveBlocksPerMultiprocessor", "[models][occupancy][gpu]") {
    int device = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    cudaDeviceProp prop{};
    CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
    REQUIRE(prop.major >= 7);  // the allocation rules above are those of sm_70 and later
    const gpulab::models::SmLimits sm = limits_of(prop);

    const std::vector<Kernel> kernels{
        {"pressure_8", pressure_8},
        {"pressure_32", pressure_32},
        {"pressure_64", pressure_64},
        {"pressure_96", pressure_96},
        {"pressure_128", pressure_128},
        {"pressure_200", pressure_200},
        {"pressure_128_bounded_256x2", pressure_128_bounded_256x2},
        {"pressure_96_bounded_1024x1", pressure_96_bounded_1024x1},
        {"pressure_64_bounded_384x3", pressure_64_bounded_384x3},
        {"static_smem_48", static_smem_48},
    };
    const int block_sizes[] = {32, 64, 96, 128, 160, 192, 256, 320, 384, 512, 640, 768, 1024};
    const std::int64_t kib = 1024;
    const std::int64_t dynamic_sizes[] = {0, 1, 4 * kib, 12000, 40 * kib, 48 * kib, 64 * kib, 100 * kib, 160 * kib,
                                          static_cast<std::int64_t>(prop.sharedMemPerBlockOptin)};

    int compared = 0, disagreed = 0;
    std::vector<int> register_counts;
    for (const Kernel& k : kernels) {
        cudaFuncAttributes attr{};
        CUDA_CHECK(cudaFuncGetAttributes(&attr, k.fn));
        register_counts.push_back(attr.numRegs);
        const std::int64_t static_smem = static_cast<std::int64_t>(attr.sharedSizeBytes);
        const std::int64_t max_dynamic = static_cast<std::int64_t>(prop.sharedMemPerBlockOptin) - static_smem;
        // Beyond 48 KiB of dynamic shared memory a kernel must opt in.
        CUDA_CHECK(cudaFuncSetAttribute(k.fn, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(max_dynamic)));
        // The model assumes the SM is configured with its largest shared-memory carveout; the
        // occupancy API follows the kernel's carveout preference, so ask for the maximum (100%).
        CUDA_CHECK(cudaFuncSetAttribute(k.fn, cudaFuncAttributePreferredSharedMemoryCarveout,
                                        cudaSharedmemCarveoutMaxShared));
        std::printf("%-28s %3d registers/thread, %5zu B static shared memory, up to %d threads\n", k.name,
                    attr.numRegs, attr.sharedSizeBytes, attr.maxThreadsPerBlock);

        for (const int threads : block_sizes) {
            if (threads > attr.maxThreadsPerBlock) continue;  // cannot launch at all
            for (std::int64_t dynamic : dynamic_sizes) {
                dynamic = std::min(dynamic, max_dynamic);
                int runtime_blocks = -1;
                CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&runtime_blocks, k.fn, threads,
                                                                         static_cast<std::size_t>(dynamic)));
                const gpulab::models::Occupancy model =
                    gpulab::models::occupancy(sm, {threads, attr.numRegs, static_smem + dynamic});
                ++compared;
                if (model.resident_blocks != runtime_blocks) {
                    ++disagreed;
                    std::printf("DISAGREE %s: %d threads, %d regs, %lld B shared (%lld static + %lld dynamic): "
                                "runtime %d blocks, model %d (threads %d, regs %d, smem %d, limit %d)\n",
                                k.name, threads, attr.numRegs, static_cast<long long>(static_smem + dynamic),
                                static_cast<long long>(static_smem), static_cast<long long>(dynamic), runtime_blocks,
                                model.resident_blocks, model.blocks_by_threads, model.blocks_by_regs,
                                model.blocks_by_smem, model.blocks_by_limit);
                }
            }
        }
    }
    std::printf("%d configurations compared on %s, %d disagreements\n", compared, prop.name, disagreed);
    CHECK(compared >= 200);
    CHECK(disagreed == 0);
    // The kernels really do span different register counts (otherwise the sweep proves little).
    std::sort(register_counts.begin(), register_counts.end());
    register_counts.erase(std::unique(register_counts.begin(), register_counts.end()), register_counts.end());
    CHECK(register_counts.size() >= 6);
}
