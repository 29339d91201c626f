// FROZEN: do not edit. Lab 00 device query: what your GPU reports about itself, and what a
// one-thread-per-element launch of vector add looks like on it.
//
//   build/labs/00_warmup/lab00_device_query [n]
#include <cstdio>
#include <cstdlib>

#include "labs/device.hpp"
#include "labs/math.hpp"

int main(int argc, char** argv) {
    const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1000;
    const gpulab::DeviceProbe p = gpulab::probe_device();
    if (!p.available()) {
        std::printf("%s\n", p.reason.c_str());
        return 1;
    }
    const gpulab::DeviceInfo& d = p.info;
    std::printf("%s, compute capability %d.%d\n", d.name.c_str(), d.cc_major, d.cc_minor);
    std::printf("  streaming multiprocessors (SMs)   %d\n", d.sm_count);
    std::printf("  threads per SM / per block        %d / %d\n", d.max_threads_per_sm, d.max_threads_per_block);
    std::printf("  resident blocks per SM            %d\n", d.max_blocks_per_sm);
    std::printf("  32-bit registers per SM           %d\n", d.regs_per_sm);
    std::printf("  shared memory per SM              %lld B\n", d.smem_per_sm_bytes);
    std::printf("  L2 cache                          %.1f MiB\n", double(d.l2_bytes) / (1 << 20));
    std::printf("  device memory                     %.1f GiB\n", double(d.global_mem_bytes) / (1 << 30));
    std::printf("  theoretical DRAM bandwidth        %.0f GB/s\n", gpulab::theoretical_dram_gbps(d));
    const std::size_t block = 256;
    const std::size_t grid = gpulab::ceil_div(n, block);
    std::printf("\nvector add, n = %zu, one thread per element, %zu threads per block:\n", n, block);
    std::printf("  grid = ceil(n / block) = %zu blocks, %zu threads, %zu idle in the last block\n", grid, grid * block,
                grid * block - n);
    std::printf("  a full GPU holds %d threads at once: this launch fills %.2f%% of it\n",
                d.sm_count * d.max_threads_per_sm, 100.0 * double(grid * block) / (d.sm_count * d.max_threads_per_sm));
    return 0;
}
