// Lab 10 — the reference solution. Read labs/10_reduction/README.md first.
//
// Every variant is built from two block-level pieces: segment_sum() adds the squares of one stretch of a row in an
// order fixed by the stretch and the block size (each thread walks its own elements in order, then a fixed tree of
// shuffles and one warp adds the per-warp sums), and normalize_segment() writes a stretch's outputs with the row's
// scale. What differs is how a row is cut into stretches and who adds their sums:
//   (a) one block per row: one stretch, one launch, the row's bytes read twice from the block's own cache lines;
//   (b) rows shorter than kMinSplitCols as (a): one block streams them in less time than a second launch costs
//       (measured: see kMinSplitCols); longer rows cut into segments chosen so that the first stage has about two
//       blocks per SM whatever the batch; a second kernel adds a row's partial sums in index order (every block of
//       the row does the same additions, so they agree) and normalises its own segment: two launches, the input read
//       twice from memory;
//   (c) as (b), but whether to split and into how many segments is a function of cols alone, so the same row is added
//       in the same order in a batch of 1 or 1024, in every run;
//   (d) as (b), but the segments add their sums into one FP32 total per row with atomicAdd: the order is the order in
//       which the blocks arrive, which changes from run to run. The totals are zeroed first by a memset.
// A segment's length is a multiple of 8 elements, so that where cols is a multiple of 8 every stretch starts 16-byte
// aligned and moves 16 bytes per load; other rows take the scalar path.
#include <algorithm>
#include <cstdint>

#include "labs/cuda_check.hpp"
#include "labs/launch.hpp"
#include "labs/math.hpp"
#include "rmsnorm.hpp"
#include "rmsnorm_math.cuh"

namespace {

constexpr int kThreads = 256;  // every kernel's block: 8 warps
constexpr int kWarps = kThreads / 32;

// The block's sum of v, in a fixed order: a butterfly within each warp, then warp 0 adds the 8 warp sums in order.
// Every thread gets the result.
__device__ __forceinline__ float block_sum(float v) {
    __shared__ float warp_sums[kWarps];
    __shared__ float total;
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffffu, v, offset);
    if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x >> 5] = v;
    __syncthreads();
    if (threadIdx.x == 0) {
        float s = warp_sums[0];
        for (int w = 1; w < kWarps; ++w) s += warp_sums[w];
        total = s;
    }
    __syncthreads();
    const float result = total;
    __syncthreads();  // total and warp_sums may be reused by the next call
    return result;
}

// Sum of squares of row[lo, hi): 8 elements per 16-byte load when the stretch is aligned, one at a time otherwise.
__device__ __forceinline__ float segment_sum(const __nv_bfloat16* row, int lo, int hi, bool vector) {
    float acc = 0.0f;
    if (vector) {
        for (int i = lo + 8 * static_cast<int>(threadIdx.x); i < hi; i += 8 * kThreads) {
            const uint4 bits = *reinterpret_cast<const uint4*>(row + i);
            const auto* v = reinterpret_cast<const __nv_bfloat16*>(&bits);
#pragma unroll
            for (int k = 0; k < 8; ++k) acc = __fadd_rn(acc, rmsnorm::square(v[k]));
        }
    } else {
        for (int i = lo + static_cast<int>(threadIdx.x); i < hi; i += kThreads) acc = __fadd_rn(acc, rmsnorm::square(row[i]));
    }
    return block_sum(acc);
}

// y[lo, hi) = normalize(x, scale, gamma), in the same strides as segment_sum().
__device__ __forceinline__ void normalize_segment(const __nv_bfloat16* row, const __nv_bfloat16* gamma, __nv_bfloat16* out, int lo, int hi,
                                  float scale, bool vector) {
    if (vector) {
        for (int i = lo + 8 * static_cast<int>(threadIdx.x); i < hi; i += 8 * kThreads) {
            const uint4 xb = *reinterpret_cast<const uint4*>(row + i);
            const uint4 gb = *reinterpret_cast<const uint4*>(gamma + i);
            uint4 yb;
            const auto* xv = reinterpret_cast<const __nv_bfloat16*>(&xb);
            const auto* gv = reinterpret_cast<const __nv_bfloat16*>(&gb);
            auto* yv = reinterpret_cast<__nv_bfloat16*>(&yb);
#pragma unroll
            for (int k = 0; k < 8; ++k) yv[k] = rmsnorm::normalize(xv[k], scale, gv[k]);
            *reinterpret_cast<uint4*>(out + i) = yb;
        }
    } else {
        for (int i = lo + static_cast<int>(threadIdx.x); i < hi; i += kThreads) out[i] = rmsnorm::normalize(row[i], scale, gamma[i]);
    }
}

// A row cut into `segments` stretches of `length` elements (a multiple of 8; the last may be shorter or empty).
struct Cut {
    int segments = 1;
    int length = 0;
    __host__ __device__ int lo(int s, int cols) const { return min(cols, s * length); }
    __host__ __device__ int hi(int s, int cols) const { return min(cols, (s + 1) * length); }
};

Cut cut_into(int cols, int segments) {
    segments = std::clamp(segments, 1, kMaxSegments);
    Cut c;
    c.length = static_cast<int>(gpulab::round_up(gpulab::ceil_div(cols, segments), 8));
    c.segments = static_cast<int>(gpulab::ceil_div(cols, c.length));  // no empty segment at the end
    return c;
}

// (a): one block per row.
__global__ void __launch_bounds__(kThreads) rows_kernel(const __nv_bfloat16* x, const __nv_bfloat16* gamma, __nv_bfloat16* y,
                                                        float* scale, int cols, float eps) {
    const std::size_t r = blockIdx.x;
    const bool vector = cols % 8 == 0;
    const __nv_bfloat16* row = x + r * cols;
    const float s = rmsnorm::row_scale(segment_sum(row, 0, cols, vector), cols, eps);
    if (threadIdx.x == 0) scale[r] = s;
    normalize_segment(row, gamma, y + r * cols, 0, cols, s, vector);
}

// First stage of (b), (c) and (d): block (s, r) sums segment s of row r into partial[r · segments + s], or, the
// atomic instance, adds it to total[r]. Two instances, not a flag: the deterministic variants' code holds no atomic.
template <bool Atomic>
__global__ void __launch_bounds__(kThreads) partial_kernel(const __nv_bfloat16* x, float* partial, float* total, Cut cut,
                                                           int cols) {
    const std::size_t r = blockIdx.y;
    const int s = static_cast<int>(blockIdx.x);
    const float sum = segment_sum(x + r * cols, cut.lo(s, cols), cut.hi(s, cols), cols % 8 == 0);
    if (threadIdx.x != 0) return;
    if constexpr (Atomic) atomicAdd(total + r, sum);
    else partial[r * cut.segments + s] = sum;
}

// Second stage: every block of row r adds the row's partial sums in index order (or reads its atomic total), and
// normalises its own segment; block 0 writes the scale.
__global__ void __launch_bounds__(kThreads) normalize_kernel(const __nv_bfloat16* x, const __nv_bfloat16* gamma, __nv_bfloat16* y,
                                                             float* scale, const float* partial, const float* total, Cut cut,
                                                             int cols, float eps) {
    __shared__ float row_scale;
    const std::size_t r = blockIdx.y;
    const int s = static_cast<int>(blockIdx.x);
    if (threadIdx.x == 0) {
        float sum = 0.0f;
        if (total != nullptr) {
            sum = total[r];
        } else {
            for (int k = 0; k < cut.segments; ++k) sum = __fadd_rn(sum, partial[r * cut.segments + k]);
        }
        row_scale = rmsnorm::row_scale(sum, cols, eps);
        if (s == 0) scale[r] = row_scale;
    }
    __syncthreads();
    normalize_segment(x + r * cols, gamma, y + r * cols, cut.lo(s, cols), cut.hi(s, cols), row_scale, cols % 8 == 0);
}

// The split path of (b), (c) and (d) with a given cut.
void launch_split(const __nv_bfloat16* x, const __nv_bfloat16* gamma, __nv_bfloat16* y, float* scale, int rows, int cols,
                  float eps, float* workspace, cudaStream_t stream, Cut cut, bool atomic) {
    const dim3 grid(static_cast<unsigned>(cut.segments), static_cast<unsigned>(rows));
    float* partial = workspace;                                                   // rows · segments partial sums
    float* total = atomic ? workspace + static_cast<std::size_t>(rows) * kMaxSegments : nullptr;  // rows totals
    if (atomic) CUDA_CHECK(cudaMemsetAsync(total, 0, static_cast<std::size_t>(rows) * sizeof(float), stream));
    if (atomic) partial_kernel<true><<<grid, kThreads, 0, stream>>>(x, partial, total, cut, cols);
    else partial_kernel<false><<<grid, kThreads, 0, stream>>>(x, partial, total, cut, cols);
    LABS_CHECK_LAUNCH();
    normalize_kernel<<<grid, kThreads, 0, stream>>>(x, gamma, y, scale, partial, total, cut, cols, eps);
    LABS_CHECK_LAUNCH();
}

int sm_count() {
    static const int count = [] {
        int device = 0, n = 0;
        CUDA_CHECK(cudaGetDevice(&device));
        CUDA_CHECK(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, device));
        return n;
    }();
    return count;
}

// Segments of at least 1024 elements (shorter ones cost more in launches and partial sums than they save).
constexpr int kMinSegment = 1024;

// Rows shorter than this are not split: measured on an H100 (lab10_bench, M = 1 to 16), one block per row takes 5.5 µs
// at N = 4096 and 8.7 µs at 16384, the split 7.6 µs at both — its second launch costs more than the streaming it saves
// until the row holds about 16 K elements; at 65536 the split is 2.6× faster.
constexpr int kMinSplitCols = 16384;

}  // namespace

void launch_rmsnorm_rows(const __nv_bfloat16* x, const __nv_bfloat16* gamma, __nv_bfloat16* y, float* scale, int rows,
                         int cols, float eps, float* workspace, cudaStream_t stream) {
    gpulab::unused(workspace);
    rows_kernel<<<static_cast<unsigned>(rows), kThreads, 0, stream>>>(x, gamma, y, scale, cols, eps);
    LABS_CHECK_LAUNCH();
}

void launch_rmsnorm_split(const __nv_bfloat16* x, const __nv_bfloat16* gamma, __nv_bfloat16* y, float* scale, int rows,
                          int cols, float eps, float* workspace, cudaStream_t stream) {
    // About two first-stage blocks per SM, within what the row's length allows.
    const int wanted = static_cast<int>(gpulab::ceil_div(2 * sm_count(), rows));
    const int most = std::max(1, cols / kMinSegment);
    const int segments = std::min(wanted, most);
    if (cols < kMinSplitCols || segments <= 1) {
        launch_rmsnorm_rows(x, gamma, y, scale, rows, cols, eps, workspace, stream);
        return;
    }
    launch_split(x, gamma, y, scale, rows, cols, eps, workspace, stream, cut_into(cols, segments), false);
}

void launch_rmsnorm_invariant(const __nv_bfloat16* x, const __nv_bfloat16* gamma, __nv_bfloat16* y, float* scale,
                              int rows, int cols, float eps, float* workspace, cudaStream_t stream) {
    // Whether to split, and the cut, depend on cols alone: the same row is added in the same order in any batch.
    if (cols < kMinSplitCols) {
        launch_rmsnorm_rows(x, gamma, y, scale, rows, cols, eps, workspace, stream);
        return;
    }
    launch_split(x, gamma, y, scale, rows, cols, eps, workspace, stream, cut_into(cols, std::max(1, cols / kMinSegment)),
                 false);
}

void launch_rmsnorm_atomic(const __nv_bfloat16* x, const __nv_bfloat16* gamma, __nv_bfloat16* y, float* scale, int rows,
                           int cols, float eps, float* workspace, cudaStream_t stream) {
    // At least three segments: two partial sums added to a zeroed total in either order give the same bits
    // ((0 + a) + b = (0 + b) + a: addition is commutative), so with two the atomics could not show what they do. Measured
    // on an H100 with two segments per row at M = 1024: 1 distinct result in 50 runs.
    const int wanted = static_cast<int>(gpulab::ceil_div(2 * sm_count(), rows));
    const int segments = std::max(3, std::min(wanted, std::max(1, cols / kMinSegment)));
    launch_split(x, gamma, y, scale, rows, cols, eps, workspace, stream, cut_into(cols, segments), true);
}
