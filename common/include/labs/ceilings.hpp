/**
 * @file ceilings.hpp
 * @brief What this GPU can do, measured in one run: the ceilings every performance target of the
 * labs is a fraction of.
 *
 * Targets are never absolute times; they are ratios against these numbers, measured on the reader's
 * own GPU in the same run as the code being graded.
 */
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace gpulab {

/** @brief Sizes and repetitions for measure_ceilings(). */
struct CeilingOptions {
    std::size_t copy_bytes = std::size_t(1) << 30;      ///< D2D copy size (bytes per buffer)
    std::size_t transfer_bytes = std::size_t(256) << 20; ///< H2D/D2H transfer size
    int gemm_m = 8192;   ///< cuBLAS BF16 GEMM shape (random data, FP32 accumulation)
    int gemm_n = 8192;   ///< GEMM N
    int gemm_k = 8192;   ///< GEMM K
    int launches = 2000; ///< empty kernels per launch-latency measurement
    bool quick = false;  ///< smaller sizes and fewer repetitions (tests)
};

/** @brief The measured ceilings. Rates use decimal units (1 GB/s = 10^9 B/s). */
struct Ceilings {
    double d2d_copy_gbps = 0;        ///< device-to-device copy, (bytes read + bytes written) / s
    double bf16_gemm_tflops = 0;     ///< cuBLAS BF16 GEMM, FP32 accumulation, random inputs
    double fp32_fma_tflops = 0;      ///< FP32 fused multiply-add rate (2 FLOP per FMA)
    double launch_submit_us = 0;     ///< host time to enqueue one empty kernel
    double launch_device_us = 0;     ///< device time per empty kernel launched back to back
    double graph_node_us = 0;        ///< device time per empty-kernel node when a graph replays
    double h2d_pinned_gbps = 0;      ///< host-to-device from pinned memory
    double d2h_pinned_gbps = 0;      ///< device-to-host into pinned memory
    double h2d_pageable_gbps = 0;    ///< host-to-device from pageable memory
    double d2h_pageable_gbps = 0;    ///< device-to-host into pageable memory
    double dram_latency_ns = 0;      ///< one dependent load from device memory (a pointer chase over 1 GiB)
    double l2_latency_ns = 0;        ///< one dependent load from the L2 cache (a pointer chase over 4 MiB, warm)
    int sm_count = 0;                ///< streaming multiprocessors
    std::string gemm_shape;          ///< "MxNxK" of the GEMM measurement
    std::string copy_size;           ///< size of the copy measurement, e.g. "1 GiB"
    double copy_bytes = 0;           ///< the same in bytes (per buffer), to repeat the measurement
};

/** @brief Measures every ceiling on the current device (a few seconds; ~1 s with quick). */
[[nodiscard]] Ceilings measure_ceilings(const CeilingOptions& opts = {});

/** @brief Measures only the D2D copy bandwidth in GB/s (read + write), for labs that need just it. */
[[nodiscard]] double measure_copy_bandwidth_gbps(std::size_t bytes = std::size_t(1) << 30);

/** @brief JSON form: every field, rates with their units in the names. */
void to_json(nlohmann::json& j, const Ceilings& c);

/** @brief A plain-text table of the ceilings, one per line, with units. */
[[nodiscard]] std::string format_ceilings(const Ceilings& c);

}  // namespace gpulab
