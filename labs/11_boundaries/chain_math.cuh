// FROZEN: do not edit. Lab 11's arithmetic, shared by the given chain, your variants and the grader (host and device):
// one output element of a step, in one fixed order, so that every variant gives the same bits and only the kernel
// boundaries differ. On the host the same functions reproduce the device's bits (std::fma rounds as fmaf does).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

namespace chain {

/** @brief BF16 bits to float (exact). */
__host__ __device__ __forceinline__ float bf16_value(std::uint16_t bits) {
    const std::uint32_t u = std::uint32_t(bits) << 16;
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
}

/** @brief acc plus the 8 products of one 16-byte chunk of a W row and the matching chunk of x, one fused multiply-add
 *  at a time in element order: acc = fma(w_k, x_k, acc), k = 0 … 7. */
__host__ __device__ __forceinline__ float dot8(const uint4& w, const uint4& x, float acc) {
    const std::uint32_t wv[4] = {w.x, w.y, w.z, w.w}, xv[4] = {x.x, x.y, x.z, x.w};
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
    for (int k = 0; k < 4; ++k) {
#ifdef __CUDA_ARCH__
        acc = __fmaf_rn(bf16_value(std::uint16_t(wv[k] & 0xFFFFu)), bf16_value(std::uint16_t(xv[k] & 0xFFFFu)), acc);
        acc = __fmaf_rn(bf16_value(std::uint16_t(wv[k] >> 16)), bf16_value(std::uint16_t(xv[k] >> 16)), acc);
#else
        acc = std::fma(bf16_value(std::uint16_t(wv[k] & 0xFFFFu)), bf16_value(std::uint16_t(xv[k] & 0xFFFFu)), acc);
        acc = std::fma(bf16_value(std::uint16_t(wv[k] >> 16)), bf16_value(std::uint16_t(xv[k] >> 16)), acc);
#endif
    }
    return acc;
}

/** @brief Chunks (16 bytes, 8 values) of a row of @p dim values that lane @p lane adds: lane, lane + 32, …  */
__host__ __device__ __forceinline__ int chunks_per_lane(int dim) { return dim / 256; }

/** @brief Round to BF16, to nearest even. */
__host__ __device__ __forceinline__ __nv_bfloat16 to_bf16(float v) { return __float2bfloat16_rn(v); }

#ifdef __CUDACC__
/** @brief The sum of the 32 lanes' values in a fixed butterfly (xor 16, 8, 4, 2, 1): every lane gets the same bits. */
__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) v = __fadd_rn(v, __shfl_xor_sync(0xFFFFFFFFu, v, offset));
    return v;
}

/** @brief One output element, computed by a whole warp: lane l adds chunks l, l + 32, l + 64, … of the row (w_row and
 *  x as 16-byte chunks) with dot8(), starting from 0, then warp_sum(), rounded to BF16. Every lane returns it. Any
 *  variant may load the chunks from anywhere (global memory, shared memory, registers filled early) as long as each
 *  lane adds the same chunks in the same order: the result is then bit-identical. */
__device__ __forceinline__ __nv_bfloat16 row_dot(const uint4* w_row, const uint4* x, int dim) {
    const int lane = static_cast<int>(threadIdx.x & 31u);
    float acc = 0.0f;
    for (int i = 0; i < chunks_per_lane(dim); ++i) acc = dot8(w_row[lane + 32 * i], x[lane + 32 * i], acc);
    return to_bf16(warp_sum(acc));
}
#endif

#ifdef __CUDACC__
/** @brief Programmatic dependent launch, in a kernel launched with cudaLaunchAttributeProgrammaticStreamSerialization:
 *  lets the next kernel in the stream launch once every block of this one has called it (or exited). A no-op before
 *  sm_90, where kernels do not overlap this way. */
__device__ __forceinline__ void pdl_launch_dependents() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;");
#endif
}

/** @brief Programmatic dependent launch: returns once the previous kernel in the stream has finished and its writes
 *  are visible. Read nothing it writes before this. A no-op before sm_90 (the previous kernel has then finished
 *  before this one started). */
__device__ __forceinline__ void pdl_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}
#endif

/** @brief The same element on the host, bit for bit: lane sums in the device's order, then the butterfly's. */
inline std::uint16_t host_row_dot(const std::uint16_t* w_row, const std::uint16_t* x, int dim) {
    float lanes[32];
    for (int l = 0; l < 32; ++l) {
        float acc = 0.0f;
        for (int i = 0; i < chunks_per_lane(dim); ++i) {
            uint4 w, v;
            std::memcpy(&w, w_row + 8 * (l + 32 * i), 16);
            std::memcpy(&v, x + 8 * (l + 32 * i), 16);
            acc = dot8(w, v, acc);
        }
        lanes[l] = acc;
    }
    // The butterfly: after the step with offset o, lane l holds lanes[l] + lanes[l ^ o] (the same bits in both lanes).
    for (int offset = 16; offset > 0; offset >>= 1) {
        float next[32];
        for (int l = 0; l < 32; ++l) next[l] = lanes[l] + lanes[l ^ offset];
        std::memcpy(lanes, next, sizeof lanes);
    }
    const __nv_bfloat16 r = to_bf16(lanes[0]);
    std::uint16_t bits;
    std::memcpy(&bits, &r, sizeof bits);
    return bits;
}

}  // namespace chain
