// Shared by lab 03's known-bad versions: one plain 16×16 shared-memory GEMM serves as every variant, with
// exactly one defect switched on by the including file, which defines WRONG_DEFECT before including:
//   drop_k_tail          the K loop stops at the last whole 16-step (a partial last K step is lost)
//   silu_two_launches    "fused" SiLU = the GEMM into a scratch C, then its own SiLU kernel (two launches)
//   silu_capture_aware   the fused kernel while the stream is being captured (what the grader once counted),
//                        the two launches otherwise
//   silu_graph           the two launches recorded once into a CUDA graph, then one cudaGraphLaunch per call
//   silu_static_scratch  one kernel, but C goes through memory: the tiles into a static __device__ C, and the
//                        last block to finish applies SiLU to all of it (define WRONG_STATIC_SCRATCH too: the
//                        24 MiB array exists only in that version)
//   cached_v2            v2 and v4 keep a device copy of each result and copy it back when the same buffers return
//   mapped_v2            the same, with the copies kept in mapped pinned host memory, moved by a kernel
//   guessed_v2           v2 computes only the calls it guesses are verified (the first on a set of buffers, then
//                        every 12th, where a grader that checks fixed calls would look) and launches nothing else
//   baseline_hog        v1, v2 and v3 start a short bandwidth hog on a private stream once their kernel is done
//   cublas_uncaptured    v1, v2 and v3 are the plain kernel while the stream is being captured (what the grader
//                        once inspected), cuBLAS otherwise — reached by its symbol names through the loader's
//                        tables (WRONG_WALK_PHDR: 1 dl_iterate_phdr, 0 the loader's r_debug; loader.cuh)
#pragma once

#include <algorithm>
#include <map>
#include <stdexcept>
#include <tuple>

#include "labs/buffer.hpp"
#include "labs/cuda_check.hpp"
#include "labs/math.hpp"
#include "tiling.hpp"
#include "tiling_math.cuh"

#ifndef WRONG_WALK_PHDR
#define WRONG_WALK_PHDR 0
#endif
#include "loader.cuh"

namespace wrong {

enum class Defect {
    drop_k_tail,
    silu_two_launches,
    silu_capture_aware,
    silu_graph,
    silu_static_scratch,
    cached_v2,
    mapped_v2,
    guessed_v2,
    baseline_hog,
    cublas_uncaptured,
};
constexpr Defect kDefect = Defect::WRONG_DEFECT;

constexpr int kT = 16;

// This thread's element of A·W (row blockIdx.y · kT + ty, column blockIdx.x · kT + tx) through 16×16 tiles of
// shared memory, over k < k_end.
__device__ __forceinline__ float tile_dot(const __nv_bfloat16* A, const __nv_bfloat16* W, int M, int N, int K, int k_end) {
    __shared__ float As[kT][kT], Ws[kT][kT];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * kT + ty, col = blockIdx.x * kT + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < k_end; k0 += kT) {
        As[ty][tx] = row < M && k0 + tx < K ? __bfloat162float(A[static_cast<std::size_t>(row) * K + k0 + tx]) : 0.0f;
        Ws[ty][tx] = k0 + ty < K && col < N ? __bfloat162float(W[static_cast<std::size_t>(k0 + ty) * N + col]) : 0.0f;
        __syncthreads();
        for (int kk = 0; kk < kT; ++kk) acc += As[ty][kk] * Ws[kk][tx];
        __syncthreads();
    }
    return acc;
}

template <bool kSilu>
__global__ void gemm_kernel(const __nv_bfloat16* A, const __nv_bfloat16* W, __nv_bfloat16* C, int M, int N, int K) {
    const int row = blockIdx.y * kT + threadIdx.y, col = blockIdx.x * kT + threadIdx.x;
    const float acc = tile_dot(A, W, M, N, K, kDefect == Defect::drop_k_tail ? K / kT * kT : K);
    if (row < M && col < N)
        C[static_cast<std::size_t>(row) * N + col] = kSilu ? tiling::silu_epilogue(acc) : tiling::round_output(acc);
}

template <bool kSilu>
void gemm(const __nv_bfloat16* A, const __nv_bfloat16* W, __nv_bfloat16* C, int M, int N, int K, cudaStream_t s) {
    const dim3 grid(gpulab::ceil_div(N, kT), gpulab::ceil_div(M, kT));
    gemm_kernel<kSilu><<<grid, dim3(kT, kT), 0, s>>>(A, W, C, M, N, K);
    LABS_CHECK_LAUNCH();
}

__global__ void silu_kernel(const __nv_bfloat16* c, __nv_bfloat16* y, std::size_t count) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count;
         i += std::size_t(gridDim.x) * blockDim.x)
        y[i] = tiling::silu_of_output(c[i]);
}

inline void silu(const __nv_bfloat16* c, __nv_bfloat16* y, std::size_t count, cudaStream_t s) {
    silu_kernel<<<static_cast<unsigned>(std::min<std::size_t>(gpulab::ceil_div<std::size_t>(count, 256), 4096)), 256, 0,
                  s>>>(c, y, count);
    LABS_CHECK_LAUNCH();
}

// C for the two-launch versions, grown outside any capture (the correctness checks run first).
inline gpulab::Workspace<__nv_bfloat16> scratch;

inline bool capturing(cudaStream_t stream) {
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    CUDA_CHECK(cudaStreamIsCapturing(stream, &status));
    return status != cudaStreamCaptureStatusNone;
}

// ---- silu_static_scratch: C in a static __device__ array, SiLU by the last block --------------------------

#ifdef WRONG_STATIC_SCRATCH
constexpr std::size_t kScratchElements = std::size_t(1024) * 12288;  // the full shape's C
__device__ __nv_bfloat16 g_c[kScratchElements];
__device__ unsigned g_tiles_done = 0;

__global__ void gemm_then_silu_by_last_block(const __nv_bfloat16* A, const __nv_bfloat16* W, __nv_bfloat16* Y, int M,
                                             int N, int K) {
    __shared__ bool last;
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * kT + ty, col = blockIdx.x * kT + tx;
    const float acc = tile_dot(A, W, M, N, K, K);
    if (row < M && col < N) g_c[static_cast<std::size_t>(row) * N + col] = tiling::round_output(acc);
    __threadfence();
    __syncthreads();
    const unsigned tiles = gridDim.x * gridDim.y;
    if (tx == 0 && ty == 0) last = atomicAdd(&g_tiles_done, 1u) == tiles - 1;
    __syncthreads();
    if (!last) return;
    __threadfence();
    const std::size_t count = static_cast<std::size_t>(M) * N;
    for (std::size_t i = ty * kT + tx; i < count; i += kT * kT) Y[i] = tiling::silu_of_output(__ldcg(&g_c[i]));
    if (tx == 0 && ty == 0) g_tiles_done = 0;  // ready for the next call
}
#endif

// ---- cublas_uncaptured: cuBLAS through the loader's tables -------------------------------------------------

inline void cublas_gemm(const __nv_bfloat16* A, const __nv_bfloat16* W, __nv_bfloat16* C, int M, int N, int K,
                        cudaStream_t stream) {
    using Create = int (*)(void**);
    using SetStream = int (*)(void*, cudaStream_t);
    using GemmEx = int (*)(void*, int, int, int, int, int, const void*, const void*, int, int, const void*, int, int,
                           const void*, void*, int, int, int, int);
    static const auto create = reinterpret_cast<Create>(find_symbol("libcublas.so", "cublasCreate_v2"));
    static const auto set_stream = reinterpret_cast<SetStream>(find_symbol("libcublas.so", "cublasSetStream_v2"));
    static const auto gemm_ex = reinterpret_cast<GemmEx>(find_symbol("libcublas.so", "cublasGemmEx"));
    static void* const handle = [] {
        void* h = nullptr;
        if (create != nullptr && create(&h) != 0) h = nullptr;
        return h;
    }();
    if (handle == nullptr || set_stream == nullptr || gemm_ex == nullptr)
        throw std::runtime_error("known-bad version: cuBLAS not found among the loaded libraries");
    constexpr int kOpN = 0, kBf16 = 14, kCompute32F = 68, kDefaultAlgo = -1;  // the enums of cublas_api.h
    const float alpha = 1.0f, beta = 0.0f;
    (void)set_stream(handle, stream);
    // Row-major C = A·W is column-major Cᵀ = Wᵀ·Aᵀ (as baseline.cu's launch_gemm_cublas).
    if (gemm_ex(handle, kOpN, kOpN, N, M, K, &alpha, W, kBf16, N, A, kBf16, K, &beta, C, kBf16, N, kCompute32F,
                kDefaultAlgo) != 0)
        throw std::runtime_error("known-bad version: cublasGemmEx failed");
}

// ---- baseline_hog: a short hog on a private stream, after the graded kernel -------------------------------

__global__ void hog_kernel(float4* buf, std::size_t n) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
        float4 v = buf[i];
        v.x += 1.0f;
        buf[i] = v;
    }
}

inline void hog_after(cudaStream_t stream) {
    constexpr std::size_t kHog = (std::size_t(64) << 20) / sizeof(float4);  // 64 MiB read and written: ~30 µs
    static cudaStream_t hog_stream = nullptr;
    static cudaEvent_t done = nullptr;
    static float4* hog = nullptr;
    if (hog == nullptr) {
        CUDA_CHECK(cudaStreamCreateWithFlags(&hog_stream, cudaStreamNonBlocking));
        CUDA_CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
        CUDA_CHECK(cudaMalloc(&hog, kHog * sizeof(float4)));
        CUDA_CHECK(cudaMemset(hog, 0, kHog * sizeof(float4)));
    }
    CUDA_CHECK(cudaEventRecord(done, stream));
    CUDA_CHECK(cudaStreamWaitEvent(hog_stream, done, 0));
    hog_kernel<<<1024, 256, 0, hog_stream>>>(hog, kHog);
    LABS_CHECK_LAUNCH();
}

// ---- mapped_v2: a kernel copies between C and a mapping of pinned host memory ------------------------------

__global__ void copy_kernel(const __nv_bfloat16* from, __nv_bfloat16* to, std::size_t count) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count;
         i += std::size_t(gridDim.x) * blockDim.x)
        to[i] = from[i];
}

// ---- the variants ----------------------------------------------------------------------------------------

using Key = std::tuple<const void*, const void*, void*, int, int, int>;

// v1, v2 and v3: the plain kernel, with this version's defect where it applies (a template, so that a defect's
// code is compiled only into its own version).
template <Defect D>
void variant(int v, const __nv_bfloat16* A, const __nv_bfloat16* W, __nv_bfloat16* C, int M, int N, int K,
             cudaStream_t stream) {
    if constexpr (D == Defect::cublas_uncaptured) {
        if (capturing(stream)) gemm<false>(A, W, C, M, N, K, stream);
        else cublas_gemm(A, W, C, M, N, K, stream);
    } else if constexpr (D == Defect::mapped_v2) {
        static std::map<Key, __nv_bfloat16*> kept;  // device views of pinned, mapped host buffers
        const std::size_t count = static_cast<std::size_t>(M) * N;
        if (v != 2) {
            gemm<false>(A, W, C, M, N, K, stream);
            return;
        }
        const Key key{A, W, C, M, N, K};
        if (const auto it = kept.find(key); it != kept.end()) {
            copy_kernel<<<1024, 256, 0, stream>>>(it->second, C, count);
            LABS_CHECK_LAUNCH();
            return;
        }
        void* host = nullptr;
        void* view = nullptr;
        CUDA_CHECK(cudaHostAlloc(&host, count * sizeof(__nv_bfloat16), cudaHostAllocMapped));
        CUDA_CHECK(cudaHostGetDevicePointer(&view, host, 0));
        kept[key] = static_cast<__nv_bfloat16*>(view);
        gemm<false>(A, W, C, M, N, K, stream);
        copy_kernel<<<1024, 256, 0, stream>>>(C, static_cast<__nv_bfloat16*>(view), count);
        LABS_CHECK_LAUNCH();
    } else if constexpr (D == Defect::guessed_v2) {
        static std::map<Key, int> calls;
        if (v == 2 && !capturing(stream)) {
            const int n = ++calls[Key{A, W, C, M, N, K}];
            if (n != 1 && n % 12 != 0) return;
        }
        gemm<false>(A, W, C, M, N, K, stream);
    } else if constexpr (D == Defect::cached_v2) {
        static std::map<Key, gpulab::Workspace<__nv_bfloat16>> kept;
        const std::size_t count = static_cast<std::size_t>(M) * N;
        if (v != 2 && v != 4) {
            gemm<false>(A, W, C, M, N, K, stream);
            return;
        }
        const Key key{A, W, C, M, N, K};
        const bool repeat = kept.count(key) > 0;
        __nv_bfloat16* copy = kept[key].at_least(count);
        if (repeat) {
            CUDA_CHECK(cudaMemcpyAsync(C, copy, count * sizeof(__nv_bfloat16), cudaMemcpyDeviceToDevice, stream));
            return;
        }
        gemm<false>(A, W, C, M, N, K, stream);
        CUDA_CHECK(cudaMemcpyAsync(copy, C, count * sizeof(__nv_bfloat16), cudaMemcpyDeviceToDevice, stream));
    } else {
        gemm<false>(A, W, C, M, N, K, stream);
        if constexpr (D == Defect::baseline_hog) hog_after(stream);
    }
}

// The fused epilogue, with this version's defect where it applies.
template <Defect D>
void fused(const __nv_bfloat16* A, const __nv_bfloat16* W, __nv_bfloat16* Y, int M, int N, int K, cudaStream_t stream) {
    const std::size_t count = static_cast<std::size_t>(M) * N;
    if constexpr (D == Defect::silu_two_launches || D == Defect::silu_capture_aware) {
        if (D == Defect::silu_capture_aware && capturing(stream)) {
            gemm<true>(A, W, Y, M, N, K, stream);
            return;
        }
        __nv_bfloat16* c = scratch.at_least(count);
        gemm<false>(A, W, c, M, N, K, stream);
        silu(c, Y, count, stream);
    } else if constexpr (D == Defect::silu_graph) {
        // One graph per set of buffers and shape: the GEMM into a C of its own, then the SiLU kernel.
        static std::map<Key, cudaGraphExec_t> graphs;
        static cudaStream_t recorder = nullptr;
        const Key key{A, W, Y, M, N, K};
        auto it = graphs.find(key);
        if (it == graphs.end()) {
            if (recorder == nullptr) CUDA_CHECK(cudaStreamCreateWithFlags(&recorder, cudaStreamNonBlocking));
            __nv_bfloat16* c = nullptr;
            CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&c), count * sizeof(__nv_bfloat16)));
            cudaGraph_t graph = nullptr;
            cudaGraphExec_t exec = nullptr;
            CUDA_CHECK(cudaStreamBeginCapture(recorder, cudaStreamCaptureModeThreadLocal));
            gemm<false>(A, W, c, M, N, K, recorder);
            silu(c, Y, count, recorder);
            CUDA_CHECK(cudaStreamEndCapture(recorder, &graph));
            CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
            CUDA_CHECK(cudaGraphDestroy(graph));
            it = graphs.emplace(key, exec).first;
        }
        CUDA_CHECK(cudaGraphLaunch(it->second, stream));  // "one launch"
    } else if constexpr (D == Defect::silu_static_scratch) {
#ifdef WRONG_STATIC_SCRATCH
        if (count > kScratchElements) {
            gemm<true>(A, W, Y, M, N, K, stream);
            return;
        }
        const dim3 grid(gpulab::ceil_div(N, kT), gpulab::ceil_div(M, kT));
        gemm_then_silu_by_last_block<<<grid, dim3(kT, kT), 0, stream>>>(A, W, Y, M, N, K);
        LABS_CHECK_LAUNCH();
#else
        static_assert(D != Defect::silu_static_scratch, "define WRONG_STATIC_SCRATCH with this defect");
#endif
    } else {
        gemm<true>(A, W, Y, M, N, K, stream);
    }
}

}  // namespace wrong

template <int BM, int BN, int BK>
void launch_gemm_v1_tiles(const __nv_bfloat16* A, const __nv_bfloat16* W, __nv_bfloat16* C, int M, int N, int K,
                          cudaStream_t stream) {
    wrong::gemm<false>(A, W, C, M, N, K, stream);
}

template <int BM, int BN, int BK>
KernelInfo gemm_v1_kernel_info() {
    return {reinterpret_cast<const void*>(&wrong::gemm_kernel<false>), wrong::kT * wrong::kT, 0};
}

// v1, v2, v3 and v4 are all the same plain kernel (with the version's defect): v4 is the course's sm_90a part, and
// these versions grade the other parts' defects (the Hopper kernel's own are v4_*.cu, built on the solution).
#define WRONG_PLAIN_GEMM(name, v)                                                                                 \
    void name(const __nv_bfloat16* A, const __nv_bfloat16* W, __nv_bfloat16* C, int M, int N, int K,               \
              cudaStream_t stream) {                                                                              \
        wrong::variant<wrong::kDefect>(v, A, W, C, M, N, K, stream);                                              \
    }
WRONG_PLAIN_GEMM(launch_gemm_v1, 1)
WRONG_PLAIN_GEMM(launch_gemm_v2, 2)
WRONG_PLAIN_GEMM(launch_gemm_v3, 3)
WRONG_PLAIN_GEMM(launch_gemm_v4, 4)

template <int kStages, int kConsumers, bool kPersistent>
void launch_gemm_v4_config(const __nv_bfloat16* A, const __nv_bfloat16* W, __nv_bfloat16* C, int M, int N, int K,
                           cudaStream_t stream) {
    wrong::variant<wrong::kDefect>(4, A, W, C, M, N, K, stream);
}

void launch_gemm_silu(const __nv_bfloat16* A, const __nv_bfloat16* W, __nv_bfloat16* Y, int M, int N, int K,
                      cudaStream_t stream) {
    wrong::fused<wrong::kDefect>(A, W, Y, M, N, K, stream);
}
