// Tiled GEMM: local storage, traffic, intensity, resident tiles, MMA counts, per-SM step times.
#include "labs/models/tiling.hpp"

#include <stdexcept>
#include <string>

#include "labs/math.hpp"
#include "labs/models/roofline.hpp"
#include "labs/models/units.hpp"

namespace gpulab::models {
namespace {

void check_tile(const GemmShape& g, const Tile& tile) {
    if (g.m < 1 || g.k < 1 || g.n < 1) throw std::invalid_argument("matrix sizes must be positive");
    if (tile.m < 1 || tile.n < 1 || tile.k < 1) throw std::invalid_argument("tile sizes must be positive");
    const auto too_big = [](const char* side, std::int64_t t, const char* dim, std::int64_t d) {
        return std::invalid_argument(std::string("tile ") + side + "=" + std::to_string(t) +
                                     " is larger than the matrix " + dim + "=" + std::to_string(d));
    };
    if (tile.m > g.m) throw too_big("m", tile.m, "M", g.m);
    if (tile.n > g.n) throw too_big("n", tile.n, "N", g.n);
    if (tile.k > g.k) throw too_big("k", tile.k, "K", g.k);
}

}  // namespace

GemmShape running_example_gemm(const ModelShape& model) {
    GemmShape g;
    g.m = model.running_example_tokens;
    g.k = model.hidden_size;
    g.n = model.intermediate_size;
    g.a_bytes = g.w_bytes = g.c_bytes = model.dtype_bytes;
    return g;
}

double gemm_flop(const GemmShape& g) {
    return 2.0 * static_cast<double>(g.m) * static_cast<double>(g.k) * static_cast<double>(g.n);
}

double gemm_once_bytes(const GemmShape& g) {
    const double m = static_cast<double>(g.m), k = static_cast<double>(g.k), n = static_cast<double>(g.n);
    return m * k * g.a_bytes + k * n * g.w_bytes + m * n * g.c_bytes;
}

LocalStorage local_storage(const GemmShape& g, const Tile& tile, int input_buffers) {
    if (input_buffers < 1) throw std::invalid_argument("at least one set of input buffers");
    LocalStorage s;
    s.a_tile_bytes = static_cast<double>(input_buffers) * tile.m * tile.k * g.a_bytes;
    s.w_tile_bytes = static_cast<double>(input_buffers) * tile.k * tile.n * g.w_bytes;
    s.acc_bytes = static_cast<double>(tile.m) * tile.n * g.acc_bytes;
    s.total_bytes = s.a_tile_bytes + s.w_tile_bytes + s.acc_bytes;
    return s;
}

TileTraffic tile_traffic(const GemmShape& g, const Tile& tile) {
    check_tile(g, tile);
    const double m = static_cast<double>(g.m), k = static_cast<double>(g.k), n = static_cast<double>(g.n);
    TileTraffic t;
    t.row_blocks = ceil_div(g.m, tile.m);
    t.col_blocks = ceil_div(g.n, tile.n);
    t.output_tiles = t.row_blocks * t.col_blocks;
    t.k_steps = ceil_div(g.k, tile.k);
    t.a_read_bytes = static_cast<double>(t.col_blocks) * m * k * g.a_bytes;  // every column block reads all of A
    t.w_read_bytes = static_cast<double>(t.row_blocks) * k * n * g.w_bytes;  // every row block reads all of W
    t.input_read_bytes = t.a_read_bytes + t.w_read_bytes;
    t.c_write_bytes = m * n * g.c_bytes;
    t.total_bytes = t.input_read_bytes + t.c_write_bytes;
    t.input_bytes_per_tile = k * (static_cast<double>(tile.m) * g.a_bytes + static_cast<double>(tile.n) * g.w_bytes);
    t.intensity_flop_per_byte = arithmetic_intensity(gemm_flop(g), t.total_bytes);
    return t;
}

double naive_input_read_bytes(const GemmShape& g) {
    return static_cast<double>(g.m) * static_cast<double>(g.n) * static_cast<double>(g.k) * (g.a_bytes + g.w_bytes);
}

double time_ratio(double bytes_new, double bytes_old, double bandwidth_new, double bandwidth_old) {
    if (!(bytes_old > 0) || !(bandwidth_new > 0)) throw std::invalid_argument("traffic and bandwidth must be positive");
    return (bytes_new / bytes_old) * (bandwidth_old / bandwidth_new);
}

double break_even_bandwidth_fraction(double bytes_new, double bytes_old) {
    if (!(bytes_old > 0)) throw std::invalid_argument("traffic must be positive");
    return bytes_new / bytes_old;
}

TilingReport tiling_report(const GemmShape& g, const Tile& tile, const DeviceSpec& device, int input_buffers) {
    TilingReport r;
    r.local = local_storage(g, tile, input_buffers);
    r.traffic = tile_traffic(g, tile);
    r.flop = gemm_flop(g);
    r.once_bytes = gemm_once_bytes(g);
    r.device_intensity_flop_per_byte = device_intensity_flop_per_byte(device);
    r.mfu_ceiling = mfu_ceiling(r.traffic.intensity_flop_per_byte, r.device_intensity_flop_per_byte);
    r.resident_tiles_per_sm =
        blocks_by_smem(sm_limits(device), static_cast<std::int64_t>(r.local.total_bytes));
    return r;
}

MmaCount mma_count(const Tile& tile, int warps, MmaShape mma) {
    if (warps < 1) throw std::invalid_argument("at least one warp");
    if (tile.m % mma.m != 0 || tile.n % mma.n != 0 || tile.k % mma.k != 0) {
        throw std::invalid_argument("tile sides must be multiples of the MMA shape");
    }
    MmaCount c;
    const std::int64_t fragments = (tile.m / mma.m) * (tile.n / mma.n);  // output fragments of the tile
    c.instructions = fragments * (tile.k / mma.k);
    c.flop_per_instruction = 2.0 * mma.m * mma.n * mma.k;
    c.tile_flop = 2.0 * static_cast<double>(tile.m) * tile.n * tile.k;
    c.per_warp = c.instructions / warps;
    c.fragments_per_warp = fragments / warps;
    return c;
}

SmStepTimes sm_step_times(const DeviceSpec& device, const GemmShape& g, const Tile& tile) {
    SmStepTimes s;
    s.per_sm_bandwidth_gbps = device.memory_bandwidth_gbps / device.sm_count;
    s.per_sm_tflops = device.bf16_dense_tflops / device.sm_count;
    s.step_bytes = static_cast<double>(tile.m) * tile.k * g.a_bytes + static_cast<double>(tile.k) * tile.n * g.w_bytes;
    s.step_flop = 2.0 * static_cast<double>(tile.m) * tile.n * tile.k;
    s.copy_us = transfer_time_us(s.step_bytes, s.per_sm_bandwidth_gbps);
    s.math_us = compute_time_us(s.step_flop, s.per_sm_tflops);
    s.copy_over_math = s.copy_us / s.math_us;
    s.step_intensity_flop_per_byte = arithmetic_intensity(s.step_flop, s.step_bytes);
    return s;
}

}  // namespace gpulab::models
