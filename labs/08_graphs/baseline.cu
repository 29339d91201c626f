// FROZEN: do not edit. Lab 08's given code: the stack's weights and scratch, its kernels (each launch counted),
// the counted graph launch and the eager step.
#include <atomic>
#include <cmath>
#include <stdexcept>
#include <string>

#include "graphs.hpp"
#include "labs/activations.cuh"
#include "labs/cuda_check.hpp"
#include "labs/random.hpp"

namespace {

std::atomic<std::int64_t> g_host_launches{0}, g_graph_launches{0};

__nv_bfloat16* alloc_bf16(std::size_t n) {
    void* p = nullptr;
    CUDA_CHECK(cudaMalloc(&p, n * sizeof(__nv_bfloat16)));
    return static_cast<__nv_bfloat16*>(p);
}

constexpr int kThreads = 256;

// One block per row: h = x / sqrt(mean(x²) + ε) · γ, FP32 inside.
__global__ void rmsnorm_kernel(const __nv_bfloat16* x, const __nv_bfloat16* gamma, __nv_bfloat16* h, int hidden) {
    const __nv_bfloat16* row = x + std::size_t(blockIdx.x) * hidden;
    float ss = 0.0f;
    for (int i = threadIdx.x; i < hidden; i += kThreads) {
        const float v = __bfloat162float(row[i]);
        ss += v * v;
    }
    __shared__ float part[kThreads / 32];
    for (int o = 16; o > 0; o /= 2) ss += __shfl_xor_sync(0xFFFFFFFFu, ss, o);
    if (threadIdx.x % 32 == 0) part[threadIdx.x / 32] = ss;
    __syncthreads();
    float total = 0.0f;
    for (int w = 0; w < kThreads / 32; ++w) total += part[w];
    const float scale = rsqrtf(total / hidden + 1e-6f);
    for (int i = threadIdx.x; i < hidden; i += kThreads)
        h[std::size_t(blockIdx.x) * hidden + i] = __float2bfloat16(__bfloat162float(row[i]) * scale * __bfloat162float(gamma[i]));
}

// Small M: a block owns 4 output columns. Its 256 threads split K — 2 threads per row of W, two columns each (one
// 4-byte load; the 2 read one 8-byte piece; neighbouring blocks share its sector in L2), 128 rows per pass — and
// keep those columns of all M rows in registers, so W is read once; the partial sums meet through shuffles and shared memory, added in a fixed order
// (the same bits on every run). M is a template parameter and the loads past K are clamped, not branched around, so that
// each thread's eight loads of W are issued back to back. The input rows are few and small: read where they are.
constexpr int kSkinny = 8, kSkinnyCols = 4, kPerRow = kSkinnyCols / 2, kRowsPerPass = kThreads / kPerRow;

template <int M>
__global__ void projection_skinny_kernel(const __nv_bfloat16* in, const __nv_bfloat16* w, __nv_bfloat16* out, int k, int n) {
    __shared__ float part[kThreads / 32][M][kSkinnyCols];
    const int pair = threadIdx.x % kPerRow, r0 = threadIdx.x / kPerRow;
    const int col = min(blockIdx.x * kSkinnyCols + 2 * pair, n - 2);  // n is even (the launcher checks)
    float acc[M][2] = {};
    constexpr int kInFlight = 8;
    for (int k0 = r0; k0 < k; k0 += kInFlight * kRowsPerPass) {
        float2 wv[kInFlight];
#pragma unroll
        for (int u = 0; u < kInFlight; ++u)
            wv[u] = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(w + std::size_t(min(k0 + u * kRowsPerPass, k - 1)) * n + col));
#pragma unroll
        for (int u = 0; u < kInFlight; ++u) {
            const int kk = k0 + u * kRowsPerPass;
            const bool inside = kk < k;
#pragma unroll
            for (int r = 0; r < M; ++r) {
                const float loaded = __bfloat162float(in[std::size_t(r) * k + min(kk, k - 1)]);
                const float xv = inside ? loaded : 0.0f;
                acc[r][0] += xv * wv[u].x, acc[r][1] += xv * wv[u].y;
            }
        }
    }
    // The warp's 32 / kPerRow partial sums of each column first (shuffles, a fixed order), then the warps'.
    constexpr int kWarps = kThreads / 32;
#pragma unroll
    for (int r = 0; r < M; ++r)
#pragma unroll
        for (int c = 0; c < 2; ++c)
#pragma unroll
            for (int offset = kPerRow; offset < 32; offset *= 2) acc[r][c] += __shfl_xor_sync(0xFFFFFFFFu, acc[r][c], offset);
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    if (lane < kPerRow)
#pragma unroll
        for (int r = 0; r < M; ++r) part[warp][r][2 * pair] = acc[r][0], part[warp][r][2 * pair + 1] = acc[r][1];
    __syncthreads();
    for (int i = threadIdx.x; i < M * kSkinnyCols; i += kThreads) {
        const int r = i / kSkinnyCols, c = blockIdx.x * kSkinnyCols + i % kSkinnyCols;
        if (c >= n) continue;
        float sum = 0.0f;
        for (int p = 0; p < kWarps; ++p) sum += part[p][r][i % kSkinnyCols];
        out[std::size_t(r) * n + c] = __float2bfloat16(sum);
    }
}

template <int M>
void launch_skinny(const __nv_bfloat16* in, const __nv_bfloat16* w, __nv_bfloat16* out, int m, int k, int n, cudaStream_t s) {
    if constexpr (M > 1)
        if (m < M) return launch_skinny<M - 1>(in, w, out, m, k, n, s);
    projection_skinny_kernel<M><<<(n + kSkinnyCols - 1) / kSkinnyCols, kThreads, 0, s>>>(in, w, out, k, n);
}

// Larger M: 16 × 16 tiles through shared memory.
constexpr int kT = 16;

__global__ void projection_tiled_kernel(const __nv_bfloat16* in, const __nv_bfloat16* w, __nv_bfloat16* out, int m, int k, int n) {
    __shared__ float xs[kT][kT], ws[kT][kT];
    const int row = blockIdx.y * kT + threadIdx.y, col = blockIdx.x * kT + threadIdx.x;
    float acc = 0.0f;
    for (int k0 = 0; k0 < k; k0 += kT) {
        xs[threadIdx.y][threadIdx.x] = row < m && k0 + threadIdx.x < k ? __bfloat162float(in[std::size_t(row) * k + k0 + threadIdx.x]) : 0.0f;
        ws[threadIdx.y][threadIdx.x] = k0 + threadIdx.y < k && col < n ? __bfloat162float(w[std::size_t(k0 + threadIdx.y) * n + col]) : 0.0f;
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < kT; ++kk) acc += xs[threadIdx.y][kk] * ws[kk][threadIdx.x];
        __syncthreads();
    }
    if (row < m && col < n) out[std::size_t(row) * n + col] = __float2bfloat16(acc);
}

__global__ void silu_kernel(const __nv_bfloat16* g, __nv_bfloat16* a, std::size_t n) {
    for (std::size_t i = blockIdx.x * std::size_t(kThreads) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * kThreads)
        a[i] = gpulab::silu_bf16(g[i]);
}

__global__ void mul_kernel(const __nv_bfloat16* a, const __nv_bfloat16* u, __nv_bfloat16* p, std::size_t n) {
    for (std::size_t i = blockIdx.x * std::size_t(kThreads) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * kThreads)
        p[i] = __hmul(a[i], u[i]);
}

__global__ void silu_mul_kernel(const __nv_bfloat16* g, const __nv_bfloat16* u, __nv_bfloat16* p, std::size_t n) {
    for (std::size_t i = blockIdx.x * std::size_t(kThreads) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * kThreads)
        p[i] = __hmul(gpulab::silu_bf16(g[i]), u[i]);  // the same two roundings as the separate kernels
}

unsigned elementwise_blocks(std::size_t n) { return unsigned(std::min<std::size_t>((n + kThreads - 1) / kThreads, 4096)); }

}  // namespace

FfnModel::FfnModel(const FfnShape& shape, std::uint64_t seed) : shape_(shape) {
    if (shape.m < 1 || shape.hidden < 1 || shape.ffn < 1 || shape.layers < 1) throw std::invalid_argument("FfnModel: empty shape");
    const std::size_t h = shape.hidden, f = shape.ffn;
    for (int l = 0; l < shape.layers; ++l) {
        const std::uint64_t s = gpulab::mix64(seed + 16 * l);
        __nv_bfloat16* gamma = alloc_bf16(h);
        __nv_bfloat16* gate = alloc_bf16(h * f);
        __nv_bfloat16* up = alloc_bf16(h * f);
        __nv_bfloat16* down = alloc_bf16(f * h);
        gpulab::fill_uniform_bf16_device(gamma, h, s + 1, 0.5f, 1.5f);
        const float a = std::sqrt(3.0f / shape.hidden), b = std::sqrt(3.0f / shape.ffn);  // unit variance out
        gpulab::fill_uniform_bf16_device(gate, h * f, s + 2, -a, a);
        gpulab::fill_uniform_bf16_device(up, h * f, s + 3, -a, a);
        gpulab::fill_uniform_bf16_device(down, f * h, s + 4, -b, b);
        buffers_.insert(buffers_.end(), {gamma, gate, up, down});
    }
    CUDA_CHECK(cudaDeviceSynchronize());
}

FfnModel::~FfnModel() {
    for (__nv_bfloat16* p : buffers_) cudaFree(p);
}

const __nv_bfloat16* FfnModel::gamma(int l) const { return buffers_.at(4 * l); }
const __nv_bfloat16* FfnModel::w_gate(int l) const { return buffers_.at(4 * l + 1); }
const __nv_bfloat16* FfnModel::w_up(int l) const { return buffers_.at(4 * l + 2); }
const __nv_bfloat16* FfnModel::w_down(int l) const { return buffers_.at(4 * l + 3); }

StepBuffers::StepBuffers(const FfnShape& s) {
    const std::size_t mh = std::size_t(s.m) * s.hidden, mf = std::size_t(s.m) * s.ffn;
    h = alloc_bf16(mh), g = alloc_bf16(mf), u = alloc_bf16(mf), a = alloc_bf16(mf), p = alloc_bf16(mf);
    x0 = alloc_bf16(mh), x1 = alloc_bf16(mh);
}

StepBuffers::~StepBuffers() {
    for (__nv_bfloat16* b : {h, g, u, a, p, x0, x1}) cudaFree(b);
}

std::int64_t host_launches() { return g_host_launches.load(); }
std::int64_t graph_launches() { return g_graph_launches.load(); }

void launch_rmsnorm(const __nv_bfloat16* x, const __nv_bfloat16* gamma, __nv_bfloat16* h, int m, int hidden, cudaStream_t s) {
    ++g_host_launches;
    rmsnorm_kernel<<<m, kThreads, 0, s>>>(x, gamma, h, hidden);
    LABS_CHECK_LAUNCH();
}

void launch_projection(const __nv_bfloat16* in, const __nv_bfloat16* w, __nv_bfloat16* out, int m, int k, int n, cudaStream_t s) {
    ++g_host_launches;
    if (n % 2 != 0) throw std::invalid_argument("launch_projection: n must be even (two columns per load), not " + std::to_string(n));
    if (m <= kSkinny) launch_skinny<kSkinny>(in, w, out, m, k, n, s);
    else projection_tiled_kernel<<<dim3((n + kT - 1) / kT, (m + kT - 1) / kT), dim3(kT, kT), 0, s>>>(in, w, out, m, k, n);
    LABS_CHECK_LAUNCH();
}

namespace {
// An elementwise kernel over n values, counted as one host launch.
template <class... Params, class... Args>
void launch_elementwise(void (*kernel)(Params...), std::size_t n, cudaStream_t s, Args... args) {
    ++g_host_launches;
    kernel<<<elementwise_blocks(n), kThreads, 0, s>>>(args...);
    LABS_CHECK_LAUNCH();
}
}  // namespace

void launch_silu(const __nv_bfloat16* g, __nv_bfloat16* a, std::size_t n, cudaStream_t s) {
    launch_elementwise(silu_kernel, n, s, g, a, n);
}

void launch_mul(const __nv_bfloat16* a, const __nv_bfloat16* u, __nv_bfloat16* p, std::size_t n, cudaStream_t s) {
    launch_elementwise(mul_kernel, n, s, a, u, p, n);
}

void launch_silu_mul(const __nv_bfloat16* g, const __nv_bfloat16* u, __nv_bfloat16* p, std::size_t n, cudaStream_t s) {
    launch_elementwise(silu_mul_kernel, n, s, g, u, p, n);
}

void replay(cudaGraphExec_t exec, cudaStream_t s) {
    ++g_host_launches;
    ++g_graph_launches;
    CUDA_CHECK(cudaGraphLaunch(exec, s));
}

void run_step_eager(const FfnModel& model, const StepBuffers& b, const __nv_bfloat16* in, __nv_bfloat16* out, bool fused,
                    cudaStream_t s) {
    const FfnShape& sh = model.shape();
    const std::size_t mf = std::size_t(sh.m) * sh.ffn;
    const __nv_bfloat16* x = in;
    for (int l = 0; l < sh.layers; ++l) {
        __nv_bfloat16* y = l == sh.layers - 1 ? out : (l % 2 == 0 ? b.x0 : b.x1);
        launch_rmsnorm(x, model.gamma(l), b.h, sh.m, sh.hidden, s);
        launch_projection(b.h, model.w_gate(l), b.g, sh.m, sh.hidden, sh.ffn, s);
        launch_projection(b.h, model.w_up(l), b.u, sh.m, sh.hidden, sh.ffn, s);
        if (fused) {
            launch_silu_mul(b.g, b.u, b.p, mf, s);
        } else {
            launch_silu(b.g, b.a, mf, s);
            launch_mul(b.a, b.u, b.p, mf, s);
        }
        launch_projection(b.p, model.w_down(l), y, sh.m, sh.ffn, sh.hidden, s);
        x = y;
    }
}
