// hold_stream(): a kernel that keeps a stream waiting for a set time (TimingOptions::hold_us).
#include <cstdint>

#include "labs/cuda_check.hpp"
#include "labs/timing.hpp"

namespace gpulab {

namespace {

__global__ void hold_kernel(std::uint64_t ns) {
    std::uint64_t start = 0, now = 0;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    } while (now - start < ns);
}

}  // namespace

void hold_stream(cudaStream_t stream, double us) {
    hold_kernel<<<1, 1, 0, stream>>>(static_cast<std::uint64_t>(us * 1e3));
    LABS_CHECK_LAUNCH();
}

}  // namespace gpulab
