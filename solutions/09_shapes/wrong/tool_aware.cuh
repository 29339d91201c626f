// Shared by lab 09's tool-aware known-bad versions (wrong/expect.json): the solution, but its bucketed launcher
// runs a copy of the bucket kernel that loads X's padding rows (rows M … bucket − 1) unless it believes it runs
// under a tool — compute-sanitizer's library is mapped into the process (read from /proc/self/maps, which
// launches nothing the grader could compare). Y is written only below M, so the results are right and
// correct.bucketed passes; only the reads past M differ. The including file defines kSolutionUnderTool: under a
// tool, the solution's own kernel (else the copy, loads masked).
#include <fstream>
#include <stdexcept>
#include <string>

#define launch_gemm_bucketed solution_launch_gemm_bucketed
#include "../shapes.cu"
#undef launch_gemm_bucketed

namespace wrong {

bool under_sanitizer() {
    static const bool found = [] {
        std::ifstream maps("/proc/self/maps");
        for (std::string line; std::getline(maps, line);)
            if (line.find("sanitizer") != std::string::npos) return true;
        return false;
    }();
    return found;
}

constexpr int kTile = 16;

template <int kBucket>
__global__ void bucket_kernel(Gemm g, bool mask_loads) {
    __shared__ float xs[kTile][kTile], ws[kTile][kTile];
    const int row = blockIdx.y * kTile + threadIdx.y, col = blockIdx.x * kTile + threadIdx.x;
    const bool load = !mask_loads || row < g.m;  // the defect: padding rows read from X when graded
    float acc = 0.0f;
    for (int k0 = 0; k0 < g.k; k0 += kTile) {
        xs[threadIdx.y][threadIdx.x] = load && k0 + threadIdx.x < g.k ? __bfloat162float(g.x[std::size_t(row) * g.k + k0 + threadIdx.x]) : 0.0f;
        ws[threadIdx.y][threadIdx.x] = k0 + threadIdx.y < g.k && col < g.n ? __bfloat162float(g.w[std::size_t(k0 + threadIdx.y) * g.n + col]) : 0.0f;
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < kTile; ++kk) acc += xs[threadIdx.y][kk] * ws[kk][threadIdx.x];
        __syncthreads();
    }
    if (row < g.m && col < g.n) g.y[std::size_t(row) * g.n + col] = __float2bfloat16(acc);
}

template <int kBucket>
void launch(const Gemm& g, bool mask_loads, cudaStream_t stream) {
    bucket_kernel<kBucket><<<dim3((g.n + kTile - 1) / kTile, kBucket / kTile), dim3(kTile, kTile), 0, stream>>>(g, mask_loads);
    LABS_CHECK_LAUNCH();
}

}  // namespace wrong

void launch_gemm_bucketed(const Gemm& g, std::span<const int> buckets, cudaStream_t stream) {
    const bool tool = wrong::under_sanitizer();
    if (tool && kSolutionUnderTool) return solution_launch_gemm_bucketed(g, buckets, stream);
    int bucket = 0;
    for (const int b : buckets)
        if (b >= g.m && (bucket == 0 || b < bucket)) bucket = b;
    switch (bucket) {
        case 16: return wrong::launch<16>(g, tool, stream);
        case 64: return wrong::launch<64>(g, tool, stream);
        case 256: return wrong::launch<256>(g, tool, stream);
        case 512: return wrong::launch<512>(g, tool, stream);
        case 1024: return wrong::launch<1024>(g, tool, stream);
        case 2048: return wrong::launch<2048>(g, tool, stream);
        case 4096: return wrong::launch<4096>(g, tool, stream);
    }
    throw std::invalid_argument("launch_gemm_bucketed: no bucket holds M = " + std::to_string(g.m));
}
