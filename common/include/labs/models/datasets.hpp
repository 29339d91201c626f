/**
 * @file datasets.hpp
 * @brief Device specifications and model shapes read from `datasets/` (TOML), each figure with its source.
 *
 * The folder is found through the path compiled into the library; the environment variable
 * `LABS_DATASETS_DIR` overrides it. A missing file, a malformed file (with line and column) or a
 * missing figure throws DatasetError naming the file.
 *
 * @code
 * const auto h100 = gpulab::models::load_device("H100");
 * double bw = h100.memory_bandwidth_gbps;                  // 3350
 * std::string why = h100.figures.at("sm_count").source;    // "chapter 5.1.5 ..."
 * @endcode
 */
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace gpulab::models {

/** @brief A dataset file could not be found, parsed or understood; what() names the file. */
class DatasetError : public std::runtime_error {
public:
    /** @param message the full one-line message (file, and line/column where known) */
    explicit DatasetError(const std::string& message) : std::runtime_error(message) {}
};

/** @brief One figure of a dataset and where it comes from. */
struct Figure {
    double value = 0.0;  ///< the number, in the unit its key names
    std::string source;  ///< the chapter section, vendor document or measurement it comes from
};

/**
 * @brief What one SM offers to resident blocks, and how it allocates it: a device file's figures
 * (DeviceSpec holds them), or the CUDA runtime's for the GPU at hand (labs/occupancy_probe.hpp). The
 * occupancy model (occupancy.hpp) reads nothing else of a device.
 */
struct SmLimits {
    int warp_size = 32;              ///< threads per warp
    int max_threads_per_sm = 0;      ///< resident thread slots
    int max_threads_per_block = 0;   ///< largest block
    int max_blocks_per_sm = 0;       ///< resident block limit
    int regs_per_sm = 0;             ///< 32-bit registers
    int regs_per_block_max = 0;      ///< registers one block may hold
    int max_regs_per_thread = 0;     ///< per-thread register limit
    int reg_alloc_unit = 256;        ///< a warp's registers come in multiples of this
    int reg_file_partitions = 4;     ///< sub-partitions sharing the register file evenly
    std::int64_t smem_per_sm_bytes = 0;              ///< shared memory (largest carveout)
    std::int64_t smem_per_block_max_bytes = 0;       ///< largest opt-in shared memory per block
    std::int64_t smem_reserved_per_block_bytes = 0;  ///< driver reserve per resident block
    std::int64_t smem_alloc_unit_bytes = 128;        ///< shared memory allocation granularity
};

/**
 * @brief One GPU's figures as the models use them (see datasets/README.md for each key): its SM's limits
 * (the SmLimits it is, every field read from the file) and the rest.
 */
struct DeviceSpec : SmLimits {
    std::string key;         ///< file stem, e.g. "rtx_pro_6000"
    std::string name;        ///< full product name
    std::string short_name;  ///< e.g. "RTX PRO 6000"
    int cc_major = 0;        ///< compute capability, major
    int cc_minor = 0;        ///< compute capability, minor

    int sm_count = 0;                ///< streaming multiprocessors
    int smem_banks = 32;             ///< shared-memory banks
    int smem_bank_width_bytes = 4;   ///< bytes one bank serves per round
    double memory_bandwidth_gbps = 0;  ///< device memory bandwidth, GB/s
    double bf16_dense_tflops = 0;      ///< dense BF16 tensor peak, TFLOP/s

    std::map<std::string, Figure> figures;  ///< every figure of the file (optional ones too), with sources

    /** @brief An optional figure's value, if the file has it. @param key figure key, e.g. "l2_cache_mb" */
    [[nodiscard]] std::optional<double> figure(std::string_view key) const;
};

/** @brief Model shapes (from the model's config) and the chapter's running example. */
struct ModelShape {
    std::string key;              ///< file stem, e.g. "qwen3_8b"
    std::string name;             ///< e.g. "Qwen3-8B"
    std::int64_t hidden_size = 0;        ///< H
    std::int64_t intermediate_size = 0;  ///< F (FFN width)
    std::int64_t num_layers = 0;         ///< decoder layers
    std::int64_t num_attention_heads = 0;  ///< query heads
    std::int64_t num_kv_heads = 0;       ///< key/value heads
    std::int64_t head_dim = 0;           ///< d
    std::int64_t vocab_size = 0;         ///< vocabulary
    int dtype_bytes = 2;                 ///< bytes per element of activations and weights
    std::int64_t running_example_tokens = 0;  ///< M of the chapter's running example
    std::map<std::string, Figure> figures;    ///< every figure of the file, with sources
};

/** @brief The datasets folder: $LABS_DATASETS_DIR when set, otherwise the path compiled in. */
[[nodiscard]] std::filesystem::path datasets_dir();

/** @brief Keys (file stems) of the device files, sorted. */
[[nodiscard]] std::vector<std::string> device_keys();

/**
 * @brief Loads a device by name: its file stem or short name, case-insensitive, with spaces and
 * hyphens read as underscores ("H100", "rtx pro 6000", "RTX-4090").
 * @param name device name
 * @throws DatasetError when no such device exists (the message lists the known ones) or the file is bad
 */
[[nodiscard]] DeviceSpec load_device(std::string_view name);

/** @brief Loads a device file by path. @param path a `devices/<name>.toml` file @throws DatasetError */
[[nodiscard]] DeviceSpec load_device_file(const std::filesystem::path& path);

/** @brief Loads a model shape by file stem. @param key e.g. "qwen3_8b" @throws DatasetError */
[[nodiscard]] ModelShape load_model_shape(std::string_view key = "qwen3_8b");

/** @brief Loads a model-shape file by path. @param path a `models/<name>.toml` file @throws DatasetError */
[[nodiscard]] ModelShape load_model_shape_file(const std::filesystem::path& path);

}  // namespace gpulab::models
