// FROZEN: do not edit. The grader's own kernels for lab 09's checks (the sampled verification of every served call),
// in a file of their own: checks.cu holds host code only and is compiled by the host compiler
// (labs_host_compiled_when_no_device_code). Errors are the caller's to check.
#include <cstddef>
#include <cstdint>

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include "labs/random.hpp"

namespace {

using bf16 = __nv_bfloat16;

// Copies `samples` (≤ 1024) elements of y (count elements) at positions drawn from seed into out.
__global__ void lab09_sample_output(const bf16* y, std::size_t count, std::uint64_t seed, int samples, bf16* out) {
    const int j = int(threadIdx.x);
    if (j < samples) out[j] = y[gpulab::random_bits(seed, std::uint64_t(j)) % count];
}

// The sampled elements' expected values (each a dot product of one row of X [m, k] and one column of W [k, n],
// summed in FP32 as the generic kernel sums; one block per element).
__global__ void lab09_sampled_expected(const bf16* x, const bf16* w, int m, int n, int k, std::uint64_t seed, float* out) {
    constexpr int kThreads = 256;
    __shared__ float part[kThreads];
    const std::size_t at = gpulab::random_bits(seed, std::uint64_t(blockIdx.x)) % (std::size_t(m) * n);
    const std::size_t row = at / n, col = at % n;
    float acc = 0.0f;
    for (int i = int(threadIdx.x); i < k; i += kThreads)
        acc += __bfloat162float(x[row * k + std::size_t(i)]) * __bfloat162float(w[std::size_t(i) * n + col]);
    part[threadIdx.x] = acc;
    __syncthreads();
    for (int half = kThreads / 2; half > 0; half /= 2) {
        if (int(threadIdx.x) < half) part[threadIdx.x] += part[threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = part[0];
}

}  // namespace

void lab09_launch_sample_output(const bf16* y, std::size_t count, std::uint64_t seed, int samples, bf16* out) {
    lab09_sample_output<<<1, samples>>>(y, count, seed, samples, out);
}

void lab09_launch_sampled_expected(const bf16* x, const bf16* w, int m, int n, int k, std::uint64_t seed, int samples,
                                   float* out) {
    lab09_sampled_expected<<<samples, 256>>>(x, w, m, n, k, seed, out);
}
