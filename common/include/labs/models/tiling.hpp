/**
 * @file tiling.hpp
 * @brief Tiled GEMM C = A·W: local storage of a tile, traffic when every output tile reads its own
 * inputs, intensity and the MFU ceiling it allows, resident tiles per SM, the time ratio of two
 * tilings, the AKG read counts, MMA instruction counts and the per-SM copy/compute time of one K step
 * (sections 5.1.5, 5.2.1, 5.2.2, 5.4.2, 5.4.4, 5.4.6).
 *
 * Traffic is counted at the interface between the local buffer and the next memory level, with no
 * reuse between output tiles: each of the ⌈N/n⌉ column blocks reads all of A, each of the ⌈M/m⌉
 * row blocks reads all of W, and C is written once.
 *
 * @code
 * using namespace gpulab::models;
 * const GemmShape g = running_example_gemm(load_model_shape());   // 1024 × 4096 × 12288, BF16
 * const TileTraffic t = tile_traffic(g, {64, 64, 32});
 * // to_mib(t.total_bytes) == 3096, t.intensity_flop_per_byte ≈ 31.7
 * @endcode
 */
#pragma once

#include <cstdint>

#include "labs/models/datasets.hpp"
#include "labs/models/occupancy.hpp"

namespace gpulab::models {

/** @brief C[M,N] = A[M,K] · W[K,N] with element sizes. */
struct GemmShape {
    std::int64_t m = 0;  ///< rows of A and C
    std::int64_t k = 0;  ///< reduction length
    std::int64_t n = 0;  ///< columns of W and C
    int a_bytes = 2;     ///< bytes per element of A
    int w_bytes = 2;     ///< bytes per element of W
    int c_bytes = 2;     ///< bytes per element of C as written
    int acc_bytes = 4;   ///< bytes per accumulator element (FP32)
};

/**
 * @brief The chapter's running example: one FFN projection of @p model for its running-example
 * tokens, C[M, F] = X[M, H] · W[H, F], all in the model's dtype (Qwen3-8B: 1024 × 4096 × 12288, BF16).
 * @param model model shape from the datasets
 */
[[nodiscard]] GemmShape running_example_gemm(const ModelShape& model);

/** @brief 2·M·K·N. @param g GEMM shape */
[[nodiscard]] double gemm_flop(const GemmShape& g);

/** @brief Bytes when A and W are read once and C written once (the 128 MiB floor). @param g GEMM shape */
[[nodiscard]] double gemm_once_bytes(const GemmShape& g);

/** @brief An output tile m × n advanced k at a time along K. */
struct Tile {
    std::int64_t m = 0;  ///< output rows per tile
    std::int64_t n = 0;  ///< output columns per tile
    std::int64_t k = 0;  ///< reduction step
};

/** @brief Local storage one tile needs: S = buffers·(a·m·k + w·k·n) + acc·m·n. */
struct LocalStorage {
    double a_tile_bytes = 0;   ///< A buffers: buffers · m · k · a_bytes
    double w_tile_bytes = 0;   ///< W buffers: buffers · k · n · w_bytes
    double acc_bytes = 0;      ///< accumulator: m · n · acc_bytes
    double total_bytes = 0;    ///< the sum
};

/**
 * @brief Local storage of @p tile with @p input_buffers sets of input buffers (2 = double buffering).
 * @param g GEMM shape (element sizes) @param tile the tile @param input_buffers input buffer sets (≥ 1)
 */
[[nodiscard]] LocalStorage local_storage(const GemmShape& g, const Tile& tile, int input_buffers = 1);

/** @brief Traffic of the whole GEMM when every output tile reads its own inputs. */
struct TileTraffic {
    std::int64_t row_blocks = 0;    ///< ⌈M / m⌉
    std::int64_t col_blocks = 0;    ///< ⌈N / n⌉
    std::int64_t output_tiles = 0;  ///< row_blocks · col_blocks
    std::int64_t k_steps = 0;       ///< ⌈K / k⌉ steps per tile
    double a_read_bytes = 0;        ///< A read once per column block: col_blocks · M·K·a
    double w_read_bytes = 0;        ///< W read once per row block: row_blocks · K·N·w
    double input_read_bytes = 0;    ///< a_read_bytes + w_read_bytes (the AKG example's 4 GiB)
    double c_write_bytes = 0;       ///< C written once: M·N·c
    double total_bytes = 0;         ///< the sum
    double input_bytes_per_tile = 0;  ///< one tile's reads over all its K steps: K·(m·a + n·w)
    double intensity_flop_per_byte = 0;  ///< 2MKN / total
};

/**
 * @brief Traffic of @p g tiled by @p tile.
 * @param g GEMM shape @param tile the tile
 * @throws std::invalid_argument when a tile side is not positive or larger than the matrix
 */
[[nodiscard]] TileTraffic tile_traffic(const GemmShape& g, const Tile& tile);

/**
 * @brief Input reads when every multiply-add fetches both operands from memory: M·N·K·(a + w)
 * (the AKG example's 256 GiB). @param g GEMM shape
 */
[[nodiscard]] double naive_input_read_bytes(const GemmShape& g);

/**
 * @brief Time ratio of two bandwidth-bound variants: T_new / T_old = (V_new / V_old) · (B_old / B_new).
 * @param bytes_new traffic of the new variant @param bytes_old traffic of the old variant
 * @param bandwidth_new effective bandwidth of the new variant (any unit, same as @p bandwidth_old)
 * @param bandwidth_old effective bandwidth of the old variant
 */
[[nodiscard]] double time_ratio(double bytes_new, double bytes_old, double bandwidth_new, double bandwidth_old);

/**
 * @brief The smallest fraction of the old variant's effective bandwidth the new one needs to be
 * faster: V_new / V_old. @param bytes_new traffic of the new variant @param bytes_old of the old one
 */
[[nodiscard]] double break_even_bandwidth_fraction(double bytes_new, double bytes_old);

/** @brief Everything section 5.2.2 says about one tile on one device. */
struct TilingReport {
    LocalStorage local;          ///< local storage of one tile
    TileTraffic traffic;         ///< whole-GEMM traffic
    double flop = 0;             ///< 2MKN
    double once_bytes = 0;       ///< A, W, C each through the interface once
    double device_intensity_flop_per_byte = 0;  ///< the device's ridge point
    double mfu_ceiling = 0;      ///< min(1, intensity / device intensity)
    int resident_tiles_per_sm = 0;  ///< tiles whose local storage fits in one SM's shared memory at once
};

/**
 * @brief Local storage, traffic, intensity, MFU ceiling and resident tiles of @p tile on @p device.
 * @param g GEMM shape @param tile the tile @param device the device @param input_buffers input buffer sets
 */
[[nodiscard]] TilingReport tiling_report(const GemmShape& g, const Tile& tile, const DeviceSpec& device,
                                         int input_buffers = 1);

/** @brief Shape of one tensor-core MMA instruction (m × n × k). */
struct MmaShape {
    int m = 16;  ///< rows of the A fragment and of the result
    int n = 8;   ///< columns of the W fragment and of the result
    int k = 16;  ///< reduction length
};

/** @brief MMA instructions one tile issues per K step. */
struct MmaCount {
    std::int64_t instructions = 0;     ///< (m/16)(n/8)(k/16)
    double flop_per_instruction = 0;   ///< 2·16·8·16 = 4096
    double tile_flop = 0;              ///< 2·m·n·k
    std::int64_t per_warp = 0;         ///< instructions / warps
    std::int64_t fragments_per_warp = 0;  ///< output fragments (m/16)(n/8) / warps each warp owns
};

/**
 * @brief MMA instructions of one K step of @p tile shared by @p warps warps.
 * @param tile the tile (sides multiples of the MMA shape) @param warps warps per block (≥ 1)
 * @param mma instruction shape
 */
[[nodiscard]] MmaCount mma_count(const Tile& tile, int warps, MmaShape mma = {});

/** @brief Copy and math time of one K step on one SM holding its share of the device. */
struct SmStepTimes {
    double per_sm_bandwidth_gbps = 0;  ///< device bandwidth / SMs
    double per_sm_tflops = 0;          ///< device peak / SMs
    double step_bytes = 0;             ///< A and W tiles of one K step
    double step_flop = 0;              ///< 2·m·n·k
    double copy_us = 0;                ///< step_bytes / per-SM bandwidth
    double math_us = 0;                ///< step_flop / per-SM peak
    double copy_over_math = 0;         ///< how many times slower the copy is
    double step_intensity_flop_per_byte = 0;  ///< step_flop / step_bytes
};

/**
 * @brief Per-SM time to copy and to multiply one K step of @p tile on @p device (section 5.1.5).
 * @param device the device @param g GEMM shape (element sizes) @param tile the tile
 */
[[nodiscard]] SmStepTimes sm_step_times(const DeviceSpec& device, const GemmShape& g, const Tile& tile);

}  // namespace gpulab::models
