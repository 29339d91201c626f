// Lab 03 — solution: C = A·W with shared-memory tiles (v1), register tiles (v2), tensor-core
// tiles (v3), and v3 with the SiLU epilogue fused after each tile's K loop.
//
// Shapes in comments follow CuTe's habit: `// (BM, BK)` is a tile of BM rows and BK columns. Every tile
// is row-major unless its comment says otherwise. M, N and K are arbitrary unless a launcher says so:
// out-of-range elements are loaded as zeros (they add nothing to a sum) and never stored.
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "labs/cuda_check.hpp"
#include "labs/hopper.cuh"
#include "labs/launch.hpp"
#include "labs/tma.hpp"
#include "labs/math.hpp"
#include "ptx.cuh"
#include "tiling.hpp"
#include "tiling_math.cuh"

namespace {

using bf16 = __nv_bfloat16;
using gpulab::ceil_div;
namespace ptx = tiling::ptx;

__device__ __forceinline__ bf16 zero() { return __ushort_as_bfloat16(0); }

void require_shape(const char* who, int M, int N, int K) {
    if (M < 1 || N < 1 || K < 1) throw std::invalid_argument(std::string(who) + ": M, N and K must be at least 1");
}

bool aligned16(const void* p) { return (reinterpret_cast<std::uintptr_t>(p) & 15) == 0; }

// Stages the (ROWS, COLS) tile at (r0, c0) of a row-major [rows, cols] matrix element by element, zeros
// outside the matrix: element (r, c) of the tile goes to at(r, c). Consecutive threads take consecutive
// elements of a row, so a warp's reads are contiguous in device memory.
template <int ROWS, int COLS, int THREADS, typename At>
__device__ __forceinline__ void stage_tile(const bf16* __restrict__ src, int rows, int cols, int r0, int c0, At at) {
    static_assert((ROWS * COLS) % THREADS == 0, "the tile is staged in whole passes of the block");
#pragma unroll
    for (int e = threadIdx.x; e < ROWS * COLS; e += THREADS) {
        const int r = e / COLS, c = e % COLS;
        const bool inside = r0 + r < rows && c0 + c < cols;
        at(r, c) = inside ? src[static_cast<std::size_t>(r0 + r) * cols + c0 + c] : zero();
    }
}

// ================================================================================================
// v1 — shared-memory tiles. What changed from the naive kernel: a block stages an A tile (BM, BK) and a
// W tile (BK, BN) in shared memory once per K step, and all its threads read their operands from there.
// Each element fetched from device memory now serves BN (A) or BM (W) multiply-adds instead of one.
// ================================================================================================

constexpr int kV1Threads = 256;

template <int BM, int BN, int BK>
__global__ void __launch_bounds__(kV1Threads)
    gemm_v1_kernel(const bf16* __restrict__ A, const bf16* __restrict__ W, bf16* __restrict__ C, int M, int N, int K) {
    // A pass of the block covers kRowStep rows of the tile, one thread per column; each thread owns one
    // column and kRows rows, kRowStep apart. The W value of its column is the same for all of them.
    static_assert(BN <= kV1Threads && kV1Threads % BN == 0, "whole tile rows per pass of the block");
    constexpr int kRowStep = kV1Threads / BN;
    static_assert(BM % kRowStep == 0, "the passes cover the tile's rows exactly");
    constexpr int kRows = BM / kRowStep;

    __shared__ bf16 As[BM][BK];  // (BM, BK): As[r][k] = A[m0 + r, k0 + k]
    __shared__ bf16 Ws[BK][BN];  // (BK, BN): Ws[k][c] = W[k0 + k, n0 + c]

    const int m0 = blockIdx.y * BM;  // the tile: rows m0 .. m0 + BM, columns n0 .. n0 + BN of C
    const int n0 = blockIdx.x * BN;
    const int tx = threadIdx.x % BN;  // this thread's column of the tile
    const int ty = threadIdx.x / BN;  // its first row; the others follow kRowStep apart
    float acc[kRows] = {};            // (kRows): C[m0 + ty + i·kRowStep, n0 + tx]

    for (int k0 = 0; k0 < K; k0 += BK) {
        // Stage both tiles (rows of the A tile are contiguous in shared memory, like those of A).
        stage_tile<BM, BK, kV1Threads>(A, M, K, m0, k0, [&](int r, int k) -> bf16& { return As[r][k]; });
        stage_tile<BK, BN, kV1Threads>(W, K, N, k0, n0, [&](int k, int c) -> bf16& { return Ws[k][c]; });
        __syncthreads();  // the tiles are complete

#pragma unroll
        for (int k = 0; k < BK; ++k) {
            const float w = __bfloat162float(Ws[k][tx]);  // 32 lanes, 32 neighbouring columns: one access
#pragma unroll
            for (int i = 0; i < kRows; ++i)  // the same row for the whole warp: a broadcast
                acc[i] += __bfloat162float(As[ty + i * kRowStep][k]) * w;
        }
        __syncthreads();  // everyone is done with the tiles before they are overwritten
    }

    const int col = n0 + tx;
    if (col >= N) return;
#pragma unroll
    for (int i = 0; i < kRows; ++i) {
        const int row = m0 + ty + i * kRowStep;
        if (row < M) C[static_cast<std::size_t>(row) * N + col] = tiling::round_output(acc[i]);
    }
}

// ================================================================================================
// v2 — register tiles. What changed from v1: each thread owns a TM × TN block of C. At each k it loads
// TM values of A and TN values of W from shared memory into registers, 16 bytes at a time, and does
// TM·TN multiply-adds with them (an outer product): shared-memory reads per multiply-add fall from
// about one to (TM + TN) / (TM·TN) = 1/4, and the tile grows to 128 × 128.
// ================================================================================================

constexpr int kV2BM = 128, kV2BN = 128, kV2BK = 16;  // block tile (BM, BN), K step BK
constexpr int kV2TM = 8, kV2TN = 8;                  // thread tile (TM, TN)
constexpr int kV2ThreadsN = kV2BN / kV2TN;           // 16 threads across the tile's columns
constexpr int kV2Threads = (kV2BM / kV2TM) * kV2ThreadsN;  // 16 × 16 = 256
static_assert(kV2TM == 8 && kV2TN == 8, "a thread's TM (TN) values are one 16-byte word of 8 BF16");
static_assert(kV2BM * kV2BK == 8 * kV2Threads, "one 16-byte chunk of the A tile per thread");
static_assert(kV2BK * kV2BN == 8 * kV2Threads, "one 16-byte chunk of the W tile per thread");

// Eight BF16 values moved as one 16-byte word.
union Pack8 {
    uint4 raw;
    bf16 v[8];
};

// kVec: N % 8 == 0, K % 8 == 0 and 16-byte aligned matrices, so that every aligned group of 8 elements
// of a row is one 16-byte word, entirely inside or entirely outside the matrix. Otherwise the tiles are
// staged element by element (correct for any shape, slower; not the graded case).
template <bool kVec>
__global__ void __launch_bounds__(kV2Threads)
    gemm_v2_kernel(const bf16* __restrict__ A, const bf16* __restrict__ W, bf16* __restrict__ C, int M, int N, int K) {
    constexpr int BM = kV2BM, BN = kV2BN, BK = kV2BK, TM = kV2TM, TN = kV2TN;
    // A is stored transposed so that a thread's TM rows at one k are contiguous: one 16-byte read.
    __shared__ __align__(16) bf16 At[BK][BM];  // (BK, BM): At[k][r] = A[m0 + r, k0 + k]
    __shared__ __align__(16) bf16 Ws[BK][BN];  // (BK, BN): Ws[k][c] = W[k0 + k, n0 + c]

    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    const int tx = threadIdx.x % kV2ThreadsN;  // thread tile column: C columns n0 + TN·tx ..
    const int ty = threadIdx.x / kV2ThreadsN;  // thread tile row: C rows m0 + TM·ty ..
    float acc[TM][TN] = {};                    // (TM, TN): C[m0 + TM·ty + i, n0 + TN·tx + j]

    for (int k0 = 0; k0 < K; k0 += BK) {
        if constexpr (kVec) {
            {  // A: 128 rows × 2 chunks of 8; thread → (row r, chunk c), transposed into At.
                const int r = threadIdx.x / (BK / 8), c = threadIdx.x % (BK / 8);
                const int gr = m0 + r, gk = k0 + 8 * c;
                Pack8 a;
                a.raw = make_uint4(0, 0, 0, 0);
                if (gr < M && gk < K) a.raw = *reinterpret_cast<const uint4*>(A + static_cast<std::size_t>(gr) * K + gk);
#pragma unroll
                for (int j = 0; j < 8; ++j) At[8 * c + j][r] = a.v[j];
            }
            {  // W: 16 rows × 16 chunks of 8; thread → (row k, chunk c), copied as is.
                const int k = threadIdx.x / (BN / 8), c = threadIdx.x % (BN / 8);
                const int gk = k0 + k, gc = n0 + 8 * c;
                uint4 w = make_uint4(0, 0, 0, 0);
                if (gk < K && gc < N) w = *reinterpret_cast<const uint4*>(W + static_cast<std::size_t>(gk) * N + gc);
                *reinterpret_cast<uint4*>(&Ws[k][8 * c]) = w;
            }
        } else {
            stage_tile<BM, BK, kV2Threads>(A, M, K, m0, k0, [&](int r, int k) -> bf16& { return At[k][r]; });
            stage_tile<BK, BN, kV2Threads>(W, K, N, k0, n0, [&](int k, int c) -> bf16& { return Ws[k][c]; });
        }
        __syncthreads();

#pragma unroll
        for (int k = 0; k < BK; ++k) {
            Pack8 a, w;
            a.raw = *reinterpret_cast<const uint4*>(&At[k][TM * ty]);  // (TM): A column k, this thread's rows
            w.raw = *reinterpret_cast<const uint4*>(&Ws[k][TN * tx]);  // (TN): W row k, this thread's columns
            float af[TM], wf[TN];
#pragma unroll
            for (int i = 0; i < TM; ++i) af[i] = __bfloat162float(a.v[i]);
#pragma unroll
            for (int j = 0; j < TN; ++j) wf[j] = __bfloat162float(w.v[j]);
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] += af[i] * wf[j];
        }
        __syncthreads();
    }

    const int col0 = n0 + TN * tx;
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int row = m0 + TM * ty + i;
        if (row >= M) break;
        bf16* out = C + static_cast<std::size_t>(row) * N;
        if (kVec && col0 + TN <= N) {  // the whole row of the thread tile in one 16-byte store
            Pack8 c;
#pragma unroll
            for (int j = 0; j < TN; ++j) c.v[j] = tiling::round_output(acc[i][j]);
            *reinterpret_cast<uint4*>(out + col0) = c.raw;
        } else {
#pragma unroll
            for (int j = 0; j < TN; ++j)
                if (col0 + j < N) out[col0 + j] = tiling::round_output(acc[i][j]);
        }
    }
}

// ================================================================================================
// v3 — tensor-core tiles. What changed from v2: the multiply-adds run on tensor cores (mma.sync
// m16n8k16, BF16 in, FP32 accumulators in registers); each of 8 warps owns a 64 × 64 piece of a 128 × 256
// block tile; the tiles travel global → shared memory with asynchronous 16-byte copies (cp.async) in a
// 4-stage pipeline, so three K steps are in flight while one is multiplied; fragments are loaded with
// ldmatrix from a swizzled layout that keeps shared-memory reads free of bank conflicts.
//
// Three things take it from about a third to over half of cuBLAS on an H200 (docs/performance-log.md):
// the fragments of the next K step are loaded while the last mma.sync of this one run (the barrier moves
// before the last step of a stage, not after it); every address a thread needs is computed once, before
// the K loop, and the stage loop is unrolled so each stage's offset is a constant in the instruction; and
// shapes of whole tiles take a path with no bounds checks. Two warps per scheduler leave nothing else to
// hide latency with: every instruction that is not an mma.sync has to earn its place.
// ================================================================================================

namespace v3 {

constexpr int BM = 128, BN = 256, BK = 32;  // block tile (BM, BN), K step BK
constexpr int kStages = 4;                  // shared-memory buffers: one being read, three being filled
constexpr int kWarpsM = 2, kWarpsN = 4;     // warps arranged (2, 4) over the block tile
constexpr int WM = BM / kWarpsM, WN = BN / kWarpsN;  // warp tile (64, 64)
constexpr int kThreads = 32 * kWarpsM * kWarpsN;     // 256
constexpr int kMmaM = 16, kMmaN = 8, kMmaK = 16;     // one mma.sync
constexpr int kFragsM = WM / kMmaM, kFragsN = WN / kMmaN;  // (4, 8) accumulator fragments per warp
constexpr int kChunk = 8;                                  // BF16 values per 16-byte copy
constexpr int kAStage = BM * BK, kWStage = BK * BN;        // elements per stage
constexpr int kSmemBytes = kStages * (kAStage + kWStage) * static_cast<int>(sizeof(bf16));  // 96 KiB
constexpr int kSteps = BK / kMmaK;  // mma.sync steps of 16 k per stage

static_assert(BM % (kWarpsM * kMmaM) == 0 && BN % (kWarpsN * 2 * kMmaN) == 0, "warp tiles of whole fragments");
static_assert(BK % kMmaK == 0, "K step of whole mma.sync steps");
static_assert(BN % 64 == 0, "the W swizzle permutes groups of 8 chunks (128 bytes) within a row");
static_assert((kAStage / kChunk) % kThreads == 0 && (kWStage / kChunk) % kThreads == 0,
              "each thread copies whole 16-byte chunks of both tiles");
static_assert(kStages >= 3, "the next stage's fragments are loaded while this one's are used: three buffers");
static_assert((kStages * kSteps) % 2 == 0, "fragment buffers alternate; a pass over the stages must end even");
static_assert(kSmemBytes <= 99 * 1024, "fits the 99 KB a block may use on every GPU of compute capability 8.x-12.x");

// Swizzled shared-memory layouts (element offsets). The 32 banks serve one 128-byte line per round, eight
// 16-byte chunks. ldmatrix reads one chunk from each of 8 consecutive rows: stored plainly, rows of 64
// bytes (A: BK = 32, 4 chunks) put those 8 chunks into 2 bank groups (a 4-way conflict), rows of 512
// bytes (W) all into 1 (8-way). XOR-ing the chunk index with the row's position among its 8 neighbours
// sends the 8 chunks to 8 different bank groups, with no padding. A: chunk c of row r goes to chunk
// c ^ ((r / kARowsPerLine) % kAChunks).
constexpr int kAChunks = BK / kChunk;          // 16-byte chunks per A row: 4
constexpr int kARowsPerLine = 8 / kAChunks;    // A rows per 128-byte line of the banks: 2
static_assert(kAChunks == 4 || kAChunks == 8, "the A swizzle covers rows of 64 or 128 bytes (BK = 32 or 64)");
__host__ __device__ constexpr int a_offset(int r, int c) {
    return r * BK + ((c ^ ((r / kARowsPerLine) % kAChunks)) * kChunk);
}
// Row k of the W stage holds BN = 256 BF16 (512 bytes, 32 chunks); chunk c of row k goes to chunk
// c ^ (k % 8), so the 8 rows one ldmatrix.trans reads at one chunk hit 8 different bank groups.
__host__ __device__ constexpr int w_offset(int k, int c) { return k * BN + ((c ^ (k & 7)) * kChunk); }

// Which 16-byte chunks of a stage this thread copies, and from where: chunk i of the thread is number
// threadIdx.x + i·kThreads of the tile, row by row, so a warp's copies are contiguous in device memory.
// Its A chunks are kARowStep rows apart, its W chunks kWRowStep rows apart, always in the same column:
// the swizzle (which depends on the row only modulo 8) is the same for all of them, so one shared-memory
// offset and one device pointer per matrix, computed once, serve the whole K loop.
constexpr int kAChunksPerThread = kAStage / kChunk / kThreads;  // 2
constexpr int kWChunksPerThread = kWStage / kChunk / kThreads;  // 4
constexpr int kARowStep = kThreads / kAChunks;                  // 64 rows between a thread's A chunks
constexpr int kWRowStep = kThreads / (BN / kChunk);             // 8 rows between its W chunks
static_assert(kARowStep % (kARowsPerLine * kAChunks) == 0 && kWRowStep % 8 == 0, "a thread's chunks share one swizzle");

// kWhole: M, N and K are multiples of BM, BN and BK, so no copy needs a bounds check.
template <bool kWhole>
struct StageCopier {
    const bf16* a_src;       // A[m0 + row, column]: this thread's first A chunk at k = 0
    const bf16* w_src;       // W[row, n0 + column]: its first W chunk at k = 0
    const bf16* A;           // base pointers: the (unread) source of a zero-filled chunk
    const bf16* W;
    int M, N, K;
    int a_row, a_k;          // its A chunks: rows a_row + i·kARowStep of the tile, k a_k .. a_k + 7
    int w_row, w_col;        // its W chunks: k rows w_row + i·kWRowStep, columns w_col .. w_col + 7
    int a_dst, w_dst;        // their shared-memory offsets in a stage (the first chunk; the rest follow)
    bool w_col_ok;

    __device__ StageCopier(const bf16* A_, const bf16* W_, int M_, int N_, int K_, int m0, int n0)
        : A(A_), W(W_), M(M_), N(N_), K(K_) {
        const int t = threadIdx.x;
        a_row = m0 + t / kAChunks;
        a_k = (t % kAChunks) * kChunk;
        w_row = t / (BN / kChunk);
        w_col = n0 + (t % (BN / kChunk)) * kChunk;
        a_src = A + static_cast<std::size_t>(a_row) * K + a_k;
        w_src = W + static_cast<std::size_t>(w_row) * N + w_col;
        a_dst = a_offset(t / kAChunks, t % kAChunks);
        w_dst = w_offset(w_row, t % (BN / kChunk));
        w_col_ok = w_col < N;
    }

    // Starts the copies of the K step at k0 into stage buffers sA (BM, BK) and sW (BK, BN). With bounds
    // checks, out-of-range chunks are zero-filled: N % 8 == K % 8 == 0 makes every chunk entirely inside
    // or entirely outside the matrix.
    __device__ __forceinline__ void operator()(bf16* sA, bf16* sW, int k0) const {
#pragma unroll
        for (int i = 0; i < kAChunksPerThread; ++i) {
            const bool ok = kWhole || (a_row + i * kARowStep < M && k0 + a_k < K);
            const bf16* src = a_src + static_cast<std::size_t>(i) * kARowStep * K + k0;
            ptx::cp_async_16(sA + a_dst + i * kARowStep * BK, ok ? src : A, ok);
        }
#pragma unroll
        for (int i = 0; i < kWChunksPerThread; ++i) {
            const bool ok = kWhole || (w_col_ok && k0 + w_row + i * kWRowStep < K);
            const bf16* src = w_src + (static_cast<std::size_t>(k0) + i * kWRowStep) * N;
            ptx::cp_async_16(sW + w_dst + i * kWRowStep * BN, ok ? src : W, ok);
        }
    }
};

// A warp's fragments for 16 k of a stage.
struct Fragments {
    std::uint32_t a[kFragsM][4];  // (4) fragments of (16, 16): rows wm + 16·mi .., k 16·kk ..
    std::uint32_t b[kFragsN][2];  // (8) fragments of (16, 8): k 16·kk .., columns wn + 8·ni ..
};

// Where this lane's ldmatrix rows are in a stage, computed once. For A, lane l addresses row l % 16 of
// each (16, 16) fragment at chunk l / 16 (k 0-7 or 8-15 of the step); fragment mi adds 16·mi rows, which
// leaves the swizzle unchanged, so only the step kk needs its own offset. For W, one ldmatrix.trans fills
// two B fragments (16 columns): lane l addresses k row l % 16 at column chunk l / 16; step kk adds 16
// rows (swizzle unchanged), so only the 4 column pairs need their own offsets.
struct FragmentOffsets {
    int a[kSteps];
    int w[kFragsN / 2];
    __device__ FragmentOffsets(int wm, int wn, int lane) {
#pragma unroll
        for (int kk = 0; kk < kSteps; ++kk) a[kk] = a_offset(wm + (lane & 15), kk * (kMmaK / kChunk) + (lane >> 4));
#pragma unroll
        for (int nj = 0; nj < kFragsN / 2; ++nj) w[nj] = w_offset(lane & 15, (wn + nj * 2 * kMmaN) / kChunk + (lane >> 4));
    }
};

// Loads the warp's fragments of step kk of a stage: A rows wm.. (64, 16), W columns wn.. (16, 64).
__device__ __forceinline__ void load_fragments(Fragments& f, const bf16* sA, const bf16* sW, const FragmentOffsets& o,
                                               int kk) {
#pragma unroll
    for (int mi = 0; mi < kFragsM; ++mi) ptx::ldmatrix_x4(f.a[mi], sA + o.a[kk] + mi * kMmaM * BK);
#pragma unroll
    for (int nj = 0; nj < kFragsN / 2; ++nj) {
        std::uint32_t t[4];  // registers 0-1: fragment 2·nj, registers 2-3: fragment 2·nj + 1
        ptx::ldmatrix_x4_trans(t, sW + o.w[nj] + kk * kMmaK * BN);
        f.b[2 * nj][0] = t[0];
        f.b[2 * nj][1] = t[1];
        f.b[2 * nj + 1][0] = t[2];
        f.b[2 * nj + 1][1] = t[3];
    }
}

// The warp tile (64, 64) += its A fragments (64, 16) · its W fragments (16, 64): 32 mma.sync.
__device__ __forceinline__ void multiply(float (&acc)[kFragsM][kFragsN][4], const Fragments& f) {
#pragma unroll
    for (int mi = 0; mi < kFragsM; ++mi)
#pragma unroll
        for (int ni = 0; ni < kFragsN; ++ni) ptx::mma_bf16_16816(acc[mi][ni], f.a[mi], f.b[ni][0], f.b[ni][1]);
}

enum class Epilogue { store, silu };

// Grid: x walks the row blocks (fastest), y the column blocks, so the blocks running at the same time
// share W column strips and all of A stays in L2.
template <Epilogue kEpilogue, bool kWhole>
__global__ void __launch_bounds__(kThreads, 1)
    gemm_v3_kernel(const bf16* __restrict__ A, const bf16* __restrict__ W, bf16* __restrict__ C, int M, int N, int K) {
    extern __shared__ __align__(128) unsigned char smem[];
    bf16* const sA = reinterpret_cast<bf16*>(smem);  // (kStages, BM, BK), swizzled
    bf16* const sW = sA + kStages * kAStage;         // (kStages, BK, BN), swizzled

    const int m0 = blockIdx.x * BM, n0 = blockIdx.y * BN;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int wm = (warp / kWarpsN) * WM;  // the warp tile: rows m0 + wm .., columns n0 + wn ..
    const int wn = (warp % kWarpsN) * WN;

    const StageCopier<kWhole> copy_stage(A, W, M, N, K, m0, n0);
    const FragmentOffsets offsets(wm, wn, lane);
    float acc[kFragsM][kFragsN][4] = {};  // (4, 8) fragments of (16, 8) FP32: the warp tile (64, 64)

    const int k_steps = ceil_div(K, BK);
    // Prologue: start K steps 0 .. kStages-2 into stages 0 .. kStages-2, one commit group each (empty
    // groups keep the count uniform), wait for step 0 and load its first fragments.
#pragma unroll
    for (int s = 0; s < kStages - 1; ++s) {
        if (s < k_steps) copy_stage(sA + s * kAStage, sW + s * kWStage, s * BK);
        ptx::cp_async_commit();
    }
    ptx::cp_async_wait<kStages - 2>();
    __syncthreads();
    Fragments f[2];  // double-buffered: f[(step + 1) % 2] loads while f[step % 2] multiplies
    load_fragments(f[0], sA, sW, offsets, 0);

    // K step ks lives in stage ks % kStages. The stage loop is unrolled, so every stage offset below is a
    // compile-time constant; the outer loop makes passes over the kStages buffers.
    for (int ks0 = 0; ks0 < k_steps; ks0 += kStages) {
#pragma unroll
        for (int s = 0; s < kStages; ++s) {
            const int ks = ks0 + s;
            if (ks >= k_steps) break;
#pragma unroll
            for (int kk = 0; kk < kSteps; ++kk) {
                const int step = s * kSteps + kk;  // position in the pass: fixes which fragment buffer
                if (kk == kSteps - 1) {
                    // Before loading step ks + 1's first fragments: groups committed so far are
                    // kStages - 1 + (ks + 1); leaving kStages - 2 in flight means step ks + 1 is here (for
                    // this thread's copies; the barrier covers everyone's). The barrier also says every
                    // warp has loaded all its fragments of step ks - 1, whose buffer is refilled next.
                    ptx::cp_async_wait<kStages - 2>();
                    __syncthreads();
                }
                const int next_s = kk == kSteps - 1 ? (s + 1) % kStages : s;
                load_fragments(f[(step + 1) % 2], sA + next_s * kAStage, sW + next_s * kWStage, offsets,
                               (kk + 1) % kSteps);
                if (kk == 0) {  // refill the buffer of step ks - 1 with step ks + kStages - 1
                    const int next = ks + kStages - 1;
                    const int refill = (s + kStages - 1) % kStages;
                    if (next < k_steps) copy_stage(sA + refill * kAStage, sW + refill * kWStage, next * BK);
                    ptx::cp_async_commit();
                }
                multiply(acc, f[step % 2]);
            }
        }
    }
    ptx::cp_async_wait<0>();  // nothing real is left in flight; leave no copy behind

    // Epilogue, right after the K loop: each lane holds rows g and g + 8, columns 2t and 2t + 1 of every
    // fragment (g = lane / 4, t = lane % 4). N is even, so a pair is inside C or entirely outside it.
    const int g = lane / 4, t = lane % 4;
#pragma unroll
    for (int mi = 0; mi < kFragsM; ++mi) {
#pragma unroll
        for (int ni = 0; ni < kFragsN; ++ni) {
            const int col = n0 + wn + ni * kMmaN + 2 * t;
            if (!kWhole && col >= N) continue;
#pragma unroll
            for (int half = 0; half < 2; ++half) {
                const int row = m0 + wm + mi * kMmaM + g + 8 * half;
                if (!kWhole && row >= M) continue;
                const float lo = acc[mi][ni][2 * half], hi = acc[mi][ni][2 * half + 1];
                __nv_bfloat162 v;
                if constexpr (kEpilogue == Epilogue::silu) v = tiling::silu_epilogue2(lo, hi);
                else v = tiling::round_output2(lo, hi);
                *reinterpret_cast<__nv_bfloat162*>(C + static_cast<std::size_t>(row) * N + col) = v;
            }
        }
    }
}

template <Epilogue kEpilogue, bool kWhole>
void launch_kernel(const bf16* A, const bf16* W, bf16* C, int M, int N, int K, cudaStream_t stream) {
    static const bool smem_ok = [] {  // above 48 KiB a kernel must opt in to its dynamic shared memory
        CUDA_CHECK(cudaFuncSetAttribute(gemm_v3_kernel<kEpilogue, kWhole>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        kSmemBytes));
        return true;
    }();
    (void)smem_ok;
    const dim3 grid(ceil_div(M, BM), ceil_div(N, BN));
    gemm_v3_kernel<kEpilogue, kWhole><<<grid, kThreads, kSmemBytes, stream>>>(A, W, C, M, N, K);
    LABS_CHECK_LAUNCH();
}

template <Epilogue kEpilogue>
void launch(const char* who, const bf16* A, const bf16* W, bf16* C, int M, int N, int K, cudaStream_t stream) {
    require_shape(who, M, N, K);
    if (N % 8 != 0 || K % 8 != 0)
        throw std::invalid_argument(std::string(who) + ": N and K must be multiples of 8 (got N = " +
                                    std::to_string(N) + ", K = " + std::to_string(K) + ")");
    if (!aligned16(A) || !aligned16(W) || !aligned16(C))
        throw std::invalid_argument(std::string(who) + ": A, W and C must be 16-byte aligned");
    if (M % BM == 0 && N % BN == 0 && K % BK == 0) launch_kernel<kEpilogue, true>(A, W, C, M, N, K, stream);
    else launch_kernel<kEpilogue, false>(A, W, C, M, N, K, stream);
}

}  // namespace v3

// ================================================================================================
// v4 — Hopper (sm_90a). What changed from v3: the copies are the copy engine's (TMA: one thread starts a
// whole 2-D box, with 128-byte swizzle, and an mbarrier counts its bytes in), the products are a warpgroup's
// (wgmma m64n256k16 reads both tiles straight from shared memory and accumulates asynchronously), and the
// warpgroups specialise: one producer only issues copies, two consumers only multiply. full[s] says stage s
// has landed, empty[s] that both consumers are done with it; the producer keeps up to kStages stages ahead.
// The grid is persistent: one block per SM walks the tiles, so one tile's epilogue overlaps the copies of
// the next. Shapes need no padding: TMA fills whatever lies outside A or W with zeros, and the epilogue
// guards rows ≥ M and columns ≥ N.
// ================================================================================================
namespace v4 {

namespace sm90 = gpulab::sm90;

constexpr int BN = 256, BK = 64;               // tile columns, K step (64 BF16 = one 128-byte swizzle row)
constexpr int kWBox = 64;                      // W arrives as BN / 64 boxes of (BK, 64): 128-byte rows
constexpr int kWBoxBytes = BK * kWBox * 2;     // 8 KiB
constexpr int kWBytes = BK * BN * 2;           // 32 KiB a stage

// The known-bad versions of part v4 (wrong/v4_*.cu) include this file with one of these switched off.
#ifndef LAB03_V4_RELEASE_AFTER_USE
#define LAB03_V4_RELEASE_AFTER_USE 1  // a consumer releases a stage once the wgmma that read it are done
#endif
#ifndef LAB03_V4_EMPTY_PARITY
#define LAB03_V4_EMPTY_PARITY 1       // the producer's first pass waits for the phase before the first (free)
#endif
#ifndef LAB03_V4_EVERY_TILE
#define LAB03_V4_EVERY_TILE 1         // the schedule covers every column of tiles
#endif
#ifndef LAB03_V4_OWN_KERNEL
#define LAB03_V4_OWN_KERNEL 1         // v4 runs its own kernel, not v3's handed in again
#endif

template <int kConsumers>
struct Config {
    static constexpr int BM = 64 * kConsumers;           // each consumer warpgroup owns 64 rows of the tile
    static constexpr int kThreads = 128 * (kConsumers + 1);
    static constexpr int kABytes = BM * BK * 2;          // (BM, BK), one box
    static constexpr int kStageBytes = kABytes + kWBytes;
};

template <int kStages, int kConsumers>
constexpr int smem_bytes() {
    // 1024 bytes of slack: the 128-byte swizzle needs each box on a 1024-byte boundary.
    return kStages * Config<kConsumers>::kStageBytes + 2 * kStages * 8 + 1024;
}

template <int kStages, int kConsumers>
__global__ void __launch_bounds__(Config<kConsumers>::kThreads, 1)
    gemm_v4_kernel(const __grid_constant__ gpulab::TensorMap map_a, const __grid_constant__ gpulab::TensorMap map_w,
                   bf16* __restrict__ C, int M, int N, int K) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    using Cfg = Config<kConsumers>;
    extern __shared__ std::uint8_t smem_raw[];
    std::uint8_t* const smem =
        reinterpret_cast<std::uint8_t*>((reinterpret_cast<std::uintptr_t>(smem_raw) + 1023) & ~std::uintptr_t(1023));
    std::uint64_t* const full = reinterpret_cast<std::uint64_t*>(smem + kStages * Cfg::kStageBytes);
    std::uint64_t* const empty = full + kStages;
    const int wg = threadIdx.x / 128, t = threadIdx.x % 128;
    if (threadIdx.x == 0) {
        for (int s = 0; s < kStages; ++s) {
            sm90::mbar_init(&full[s], 1);            // the producer's arrive_expect_tx, then the bytes
            sm90::mbar_init(&empty[s], kConsumers);  // one arrival per consumer warpgroup
        }
        sm90::fence_barrier_init();
    }
    __syncthreads();
    const int tiles_m = ceil_div(M, Cfg::BM);
    const int tiles = tiles_m * (LAB03_V4_EVERY_TILE ? ceil_div(N, BN) : 1);
    const int ksteps = ceil_div(K, BK);

    if (wg == 0) {  // the producer: one thread issues every copy
        sm90::setmaxnreg_dec<40>();
        if (t == 0) {
            int stage = 0;
            std::uint32_t phase = 0;
            for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
                const int m0 = (tile % tiles_m) * Cfg::BM, n0 = (tile / tiles_m) * BN;  // row tiles fastest: blocks share W
                for (int k = 0; k < ksteps; ++k) {
                    sm90::mbar_wait(&empty[stage], phase ^ LAB03_V4_EMPTY_PARITY);  // (the first pass waits for nothing)
                    std::uint8_t* const a = smem + stage * Cfg::kStageBytes;
                    std::uint8_t* const w = a + Cfg::kABytes;
                    sm90::mbar_arrive_expect_tx(&full[stage], Cfg::kStageBytes);
                    sm90::tma_load_2d(a, &map_a, &full[stage], k * BK, m0);
#pragma unroll
                    for (int j = 0; j < BN / kWBox; ++j) sm90::tma_load_2d(w + j * kWBoxBytes, &map_w, &full[stage], n0 + j * kWBox, k * BK);
                    if (++stage == kStages) stage = 0, phase ^= 1;
                }
            }
        }
        return;
    }

    // A consumer: 64 rows × 256 columns of FP32 accumulators, 128 registers a thread.
    sm90::setmaxnreg_inc<232>();
    const int c = wg - 1;
    float acc[BN / 2];
    int stage = 0;
    std::uint32_t phase = 0;
    for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const int m0 = (tile % tiles_m) * Cfg::BM, n0 = (tile / tiles_m) * BN;
        int held = -1;  // the stage whose wgmma may still be reading it
        for (int k = 0; k < ksteps; ++k) {
            sm90::mbar_wait(&full[stage], phase);
            if (!LAB03_V4_RELEASE_AFTER_USE && t == 0) sm90::mbar_arrive(&empty[stage]);
            const std::uint8_t* const a = smem + stage * Cfg::kStageBytes + c * (64 * BK * 2);
            const std::uint8_t* const w = smem + stage * Cfg::kStageBytes + Cfg::kABytes;
            sm90::wgmma_fence();
#pragma unroll
            for (int kk = 0; kk < BK / 16; ++kk) {
                // A: K-major, 8-row atoms 1024 bytes apart, 16 K = 32 bytes further along the row.
                // W: MN-major, 64-column boxes kWBoxBytes apart, 8-row atoms 1024 bytes apart, 16 K-rows = 2048 bytes.
                const std::uint64_t da = sm90::make_smem_desc(a + kk * 32, 16, 1024);
                const std::uint64_t dw = sm90::make_smem_desc(w + kk * 2048, kWBoxBytes, 1024);
                sm90::wgmma_m64n256k16_bf16<1>(acc, da, dw, k > 0 || kk > 0);
            }
            sm90::wgmma_commit();
            // Keep this step's products in flight while waiting for the next stage; release the previous one.
            sm90::wgmma_wait<1>();
            if (LAB03_V4_RELEASE_AFTER_USE && held >= 0 && t == 0) sm90::mbar_arrive(&empty[held]);
            held = stage;
            if (++stage == kStages) stage = 0, phase ^= 1;
        }
        sm90::wgmma_wait<0>();
        if (LAB03_V4_RELEASE_AFTER_USE && held >= 0 && t == 0) sm90::mbar_arrive(&empty[held]);
        // Epilogue: warp w holds rows 16w .. 16w + 15 of this consumer's 64; lane l columns 8j + 2(l % 4), +1.
        const int w = t / 32, l = t % 32;
        const int row = m0 + c * 64 + 16 * w + l / 4;
#pragma unroll
        for (int j = 0; j < BN / 8; ++j) {
            const int col = n0 + 8 * j + 2 * (l % 4);
            if (col >= N) break;  // N % 8 == 0: a pair never straddles the edge
            if (row < M)
                *reinterpret_cast<__nv_bfloat162*>(C + static_cast<std::size_t>(row) * N + col) =
                    tiling::round_output2(acc[4 * j], acc[4 * j + 1]);
            if (row + 8 < M)
                *reinterpret_cast<__nv_bfloat162*>(C + static_cast<std::size_t>(row + 8) * N + col) =
                    tiling::round_output2(acc[4 * j + 2], acc[4 * j + 3]);
        }
    }
#else
    gpulab::unused(map_a, map_w, C, M, N, K);  // launch() refuses to launch where there is no sm_90a code
#endif
}

template <int kStages, int kConsumers, bool kPersistent>
void launch(const char* who, const bf16* A, const bf16* W, bf16* C, int M, int N, int K, cudaStream_t stream) {
    using Cfg = Config<kConsumers>;
    require_shape(who, M, N, K);
    if (const std::string why = gpulab::sm90a_unavailable(); !why.empty()) throw std::invalid_argument(std::string(who) + ": " + why);
    if (N % 8 != 0 || K % 8 != 0)
        throw std::invalid_argument(std::string(who) + ": N and K must be multiples of 8 (got N = " + std::to_string(N) +
                                    ", K = " + std::to_string(K) + ")");
    if (!aligned16(A) || !aligned16(W) || !aligned16(C)) throw std::invalid_argument(std::string(who) + ": A, W and C must be 16-byte aligned");
    constexpr int smem = smem_bytes<kStages, kConsumers>();
    auto* const kernel = &gemm_v4_kernel<kStages, kConsumers>;
    static const int sms = [&] {  // opt in to the shared memory once; the persistent grid is one block per SM
        CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
        int device = 0, count = 0;
        CUDA_CHECK(cudaGetDevice(&device));
        CUDA_CHECK(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device));
        return count;
    }();
    // Encoding a map costs a few µs of host time, and the GPU is busy with earlier calls meanwhile.
    const gpulab::TensorMap map_a = gpulab::make_tensor_map_2d_bf16(A, K, M, std::uint64_t(K) * 2, BK, Cfg::BM);
    const gpulab::TensorMap map_w = gpulab::make_tensor_map_2d_bf16(W, N, K, std::uint64_t(N) * 2, kWBox, BK);
    const int tiles = ceil_div(M, Cfg::BM) * ceil_div(N, BN);
    const int grid = kPersistent ? std::min(tiles, sms) : tiles;
    kernel<<<grid, Cfg::kThreads, smem, stream>>>(map_a, map_w, C, M, N, K);
    LABS_CHECK_LAUNCH();
}

}  // namespace v4

}  // namespace

// ---- v1 ------------------------------------------------------------------------------------------

template <int BM, int BN, int BK>
void launch_gemm_v1_tiles(const __nv_bfloat16* A, const __nv_bfloat16* W, __nv_bfloat16* C, int M, int N, int K,
                          cudaStream_t stream) {
    require_shape("launch_gemm_v1", M, N, K);
    const dim3 grid(ceil_div(N, BN), ceil_div(M, BM));
    gemm_v1_kernel<BM, BN, BK><<<grid, kV1Threads, 0, stream>>>(A, W, C, M, N, K);
    LABS_CHECK_LAUNCH();
}

template <int BM, int BN, int BK>
KernelInfo gemm_v1_kernel_info() {
    return {reinterpret_cast<const void*>(&gemm_v1_kernel<BM, BN, BK>), kV1Threads, 0};
}

void launch_gemm_v1(const __nv_bfloat16* A, const __nv_bfloat16* W, __nv_bfloat16* C, int M, int N, int K,
                    cudaStream_t stream) {
    launch_gemm_v1_tiles<64, 64, 32>(A, W, C, M, N, K, stream);  // the chapter's tile
}

// ---- v2 ------------------------------------------------------------------------------------------

void launch_gemm_v2(const __nv_bfloat16* A, const __nv_bfloat16* W, __nv_bfloat16* C, int M, int N, int K,
                    cudaStream_t stream) {
    require_shape("launch_gemm_v2", M, N, K);
    const dim3 grid(ceil_div(N, kV2BN), ceil_div(M, kV2BM));
    if (N % 8 == 0 && K % 8 == 0 && aligned16(A) && aligned16(W) && aligned16(C))
        gemm_v2_kernel<true><<<grid, kV2Threads, 0, stream>>>(A, W, C, M, N, K);
    else
        gemm_v2_kernel<false><<<grid, kV2Threads, 0, stream>>>(A, W, C, M, N, K);
    LABS_CHECK_LAUNCH();
}

// ---- v3 and the fused epilogue ---------------------------------------------------------------------

void launch_gemm_v3(const __nv_bfloat16* A, const __nv_bfloat16* W, __nv_bfloat16* C, int M, int N, int K,
                    cudaStream_t stream) {
    v3::launch<v3::Epilogue::store>("launch_gemm_v3", A, W, C, M, N, K, stream);
}

void launch_gemm_silu(const __nv_bfloat16* A, const __nv_bfloat16* W, __nv_bfloat16* Y, int M, int N, int K,
                      cudaStream_t stream) {
    v3::launch<v3::Epilogue::silu>("launch_gemm_silu", A, W, Y, M, N, K, stream);
}

// ---- v4 ------------------------------------------------------------------------------------------

template <int kStages, int kConsumers, bool kPersistent>
void launch_gemm_v4_config(const __nv_bfloat16* A, const __nv_bfloat16* W, __nv_bfloat16* C, int M, int N, int K,
                           cudaStream_t stream) {
    v4::launch<kStages, kConsumers, kPersistent>("launch_gemm_v4", A, W, C, M, N, K, stream);
}

void launch_gemm_v4(const __nv_bfloat16* A, const __nv_bfloat16* W, __nv_bfloat16* C, int M, int N, int K,
                    cudaStream_t stream) {
    if (!LAB03_V4_OWN_KERNEL) return v3::launch<v3::Epilogue::store>("launch_gemm_v4", A, W, C, M, N, K, stream);
    launch_gemm_v4_config<4, 2, true>(A, W, C, M, N, K, stream);
}
