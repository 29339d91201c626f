#include "labs/occupancy_probe.hpp"

#include <algorithm>
#include <set>
#include <stdexcept>

#include <cuda_runtime.h>

#include "labs/cuda_check.hpp"

namespace gpulab {

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

}  // namespace

models::SmLimits device_sm_limits() {
    int device = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    cudaDeviceProp p{};
    CUDA_CHECK(cudaGetDeviceProperties(&p, device));
    // The allocation rules of sm_70 and later: 255 registers a thread at most, a warp's registers in units of 256
    // over 4 partitions, shared memory in units of 128 bytes from sm_80 on (256 before).
    return {.warp_size = p.warpSize,
            .max_threads_per_sm = p.maxThreadsPerMultiProcessor,
            .max_threads_per_block = p.maxThreadsPerBlock,
            .max_blocks_per_sm = p.maxBlocksPerMultiProcessor,
            .regs_per_sm = p.regsPerMultiprocessor,
            .regs_per_block_max = p.regsPerBlock,
            .max_regs_per_thread = 255,
            .reg_alloc_unit = 256,
            .reg_file_partitions = 4,
            .smem_per_sm_bytes = static_cast<std::int64_t>(p.sharedMemPerMultiprocessor),
            .smem_per_block_max_bytes = static_cast<std::int64_t>(p.sharedMemPerBlockOptin),
            .smem_reserved_per_block_bytes = static_cast<std::int64_t>(p.reservedSharedMemPerBlock),
            .smem_alloc_unit_bytes = p.major >= 8 ? 128 : 256};
}

std::vector<OccupancyProbe> occupancy_probes() {
    int device = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    cudaDeviceProp prop{};
    CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
    if (prop.major < 7) throw std::runtime_error("occupancy_probes: the allocation rules are those of sm_70 and later");
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
    std::vector<OccupancyProbe> probes;
    for (const Kernel& k : kernels) {
        cudaFuncAttributes attr{};
        CUDA_CHECK(cudaFuncGetAttributes(&attr, k.fn));
        const std::int64_t static_smem = static_cast<std::int64_t>(attr.sharedSizeBytes);
        const std::int64_t max_dynamic = static_cast<std::int64_t>(prop.sharedMemPerBlockOptin) - static_smem;
        // Beyond 48 KiB of dynamic shared memory a kernel must opt in.
        CUDA_CHECK(cudaFuncSetAttribute(k.fn, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(max_dynamic)));
        // The model assumes the SM is configured with its largest shared-memory carveout; the occupancy API
        // follows the kernel's carveout preference, so ask for the maximum (100%).
        CUDA_CHECK(cudaFuncSetAttribute(k.fn, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared));
        for (const int threads : block_sizes) {
            if (threads > attr.maxThreadsPerBlock) continue;  // cannot launch at all
            for (std::int64_t dynamic : dynamic_sizes) {
                dynamic = std::min(dynamic, max_dynamic);
                OccupancyProbe p{k.name, threads, attr.numRegs, static_smem, dynamic, -1};
                CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&p.runtime_blocks, k.fn, threads,
                                                                         static_cast<std::size_t>(dynamic)));
                probes.push_back(p);
            }
        }
    }
    return probes;
}

int distinct_register_counts(const std::vector<OccupancyProbe>& probes) {
    std::set<int> counts;
    for (const OccupancyProbe& p : probes) counts.insert(p.regs_per_thread);
    return static_cast<int>(counts.size());
}

}  // namespace gpulab
