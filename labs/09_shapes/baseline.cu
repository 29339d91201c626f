// FROZEN: do not edit. Lab 09's given code: the trace loader and the generic GEMM (runtime M).
#include <fstream>
#include <stdexcept>
#include <string>

#include "labs/cuda_check.hpp"
#include "shapes.hpp"

std::vector<int> load_trace(const std::filesystem::path& path) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("load_trace: cannot open " + path.string());
    std::vector<int> rows;
    bool header = false;
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
        if (line.empty() || line[0] == '#') continue;
        if (!header) {
            if (line != "rows") throw std::runtime_error(path.string() + ":" + std::to_string(number) + ": expected the header 'rows'");
            header = true;
            continue;
        }
        std::size_t used = 0;
        long value = 0;
        try {
            value = std::stol(line, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (used != line.size() || value < 1 || value > (1 << 20))
            throw std::runtime_error(path.string() + ":" + std::to_string(number) + ": '" + line +
                                     "' is not a row count (an integer from 1 to 2^20)");
        rows.push_back(static_cast<int>(value));
    }
    if (!header) throw std::runtime_error(path.string() + ": no header line 'rows'");
    return rows;
}

namespace {

constexpr int kTile = 16;

// One thread per output element, 16 × 16 tiles through shared memory, M at run time.
__global__ void gemm_generic_kernel(Gemm g) {
    __shared__ float xs[kTile][kTile], ws[kTile][kTile];
    const int row = blockIdx.y * kTile + threadIdx.y, col = blockIdx.x * kTile + threadIdx.x;
    float acc = 0.0f;
    for (int k0 = 0; k0 < g.k; k0 += kTile) {
        xs[threadIdx.y][threadIdx.x] = row < g.m && k0 + threadIdx.x < g.k ? __bfloat162float(g.x[std::size_t(row) * g.k + k0 + threadIdx.x]) : 0.0f;
        ws[threadIdx.y][threadIdx.x] = k0 + threadIdx.y < g.k && col < g.n ? __bfloat162float(g.w[std::size_t(k0 + threadIdx.y) * g.n + col]) : 0.0f;
        __syncthreads();
        for (int kk = 0; kk < kTile; ++kk) acc += xs[threadIdx.y][kk] * ws[kk][threadIdx.x];
        __syncthreads();
    }
    if (row < g.m && col < g.n) g.y[std::size_t(row) * g.n + col] = __float2bfloat16(acc);
}

}  // namespace

void launch_gemm_generic(const Gemm& g, cudaStream_t stream) {
    const dim3 grid((g.n + kTile - 1) / kTile, (g.m + kTile - 1) / kTile), block(kTile, kTile);
    gemm_generic_kernel<<<grid, block, 0, stream>>>(g);
    LABS_CHECK_LAUNCH();
}
