/**
 * @file shapes.hpp
 * @brief Lab 09 interface: serving calls whose row count M changes from call to call — one generic kernel,
 * kernels for buckets of M, or kernels compiled at run time for one M each (NVRTC) and kept in a program cache —
 * and a policy that picks among them from what each costs (sections 5.4.6, 5.5.3).
 *
 * FROZEN: do not edit.
 *
 * The work of one call: Y[M × N] = X[M × K] · W[K × N], BF16 in and out, FP32 accumulation (an FFN projection;
 * N = K = 4096 in the traces' experiments).
 */
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

/** @brief One call. */
struct Gemm {
    const __nv_bfloat16* x = nullptr;  ///< [M, K], row-major
    const __nv_bfloat16* w = nullptr;  ///< [K, N], row-major
    __nv_bfloat16* y = nullptr;        ///< [M, N], row-major: only its first M rows may be written
    int m = 1;                         ///< rows of this call
    int n = 4096;                      ///< output columns
    int k = 4096;                      ///< reduction length
};

// ---- given (baseline.cu) ----------------------------------------------------------------------------------

/** @brief The row counts of a trace file (datasets/traces/NAME.csv: comment lines, a header `rows`, one positive
 *  integer per line). @throws std::runtime_error naming the file and line of anything else */
[[nodiscard]] std::vector<int> load_trace(const std::filesystem::path& path);

/** @brief (a) The generic kernel: M at run time. */
void launch_gemm_generic(const Gemm& g, cudaStream_t stream);

// ---- yours (shapes.cu) ---------------------------------------------------------------------------------------

/** @brief (b) The call padded up to the smallest of @p buckets (ascending) that holds M, with the padding masked:
 *  the same result as the generic kernel, no read of X and no write of Y past row M.
 *  @throws std::invalid_argument when M is above the largest bucket (the policy serves such shapes otherwise) */
void launch_gemm_bucketed(const Gemm& g, std::span<const int> buckets, cudaStream_t stream);

/** @brief What identifies a compiled program: everything its binary depends on. A cubin is what one compiler
 *  made of one source with one set of options for one architecture, so the compiler's version is part of the key;
 *  the driver's is too, because a driver may load (and JIT-compile, for PTX) the same bytes differently. */
struct ProgramKey {
    std::string source;   ///< the kernel's CUDA source
    std::string options;  ///< the compiler's options (NVRTC's, e.g. "--std=c++17")
    std::string arch;     ///< the target, e.g. "sm_90"
    int driver = 0;       ///< the driver's version (cudaDriverGetVersion: 1000 · major + 10 · minor)
    int nvrtc = 0;        ///< NVRTC's version (nvrtcVersion, written as 1000 · major + 10 · minor)
};

/** @brief Where a program came from. */
enum class CacheOutcome {
    memory_hit,       ///< kept in memory since an earlier get()
    disk_hit,         ///< read back from the cache directory, checked whole
    built,            ///< not cached: build() ran, and the result was stored
    rebuilt_corrupt,  ///< a cached file was damaged (truncated, changed): it was not used; build() ran and replaced it
};

/** @brief What ProgramCache::get() returns. */
struct CacheResult {
    std::shared_ptr<const std::vector<char>> image;  ///< the program's bytes (what build() returned, or a copy)
    CacheOutcome outcome = CacheOutcome::built;      ///< where they came from
    std::string note;                                ///< for rebuilt_corrupt: what was wrong with the file
};

/**
 * @brief (c) Compiled programs by key: the most recently used in memory, every one on disk in @p dir, so that a
 * second process — or a second ProgramCache on the same directory, at the same time — starts warm. A damaged
 * file is never returned: it is reported and rebuilt.
 */
class ProgramCache {
public:
    /** @param dir the cache directory (created when missing) @param memory_entries programs kept in memory (≥ 1) */
    ProgramCache(std::filesystem::path dir, std::size_t memory_entries);
    ~ProgramCache();
    ProgramCache(const ProgramCache&) = delete;
    ProgramCache& operator=(const ProgramCache&) = delete;
    /** @brief The program of @p key: from memory, else from disk, else from @p build (whose bytes are stored). */
    CacheResult get(const ProgramKey& key, const std::function<std::vector<char>()>& build);

    struct Impl;  ///< yours

private:
    std::unique_ptr<Impl> impl_;
};

/** @brief (c) The source of a kernel specialised for one M (and your tile choices), NVRTC-compiled through @p cache,
 *  loaded with the runtime's library API (cudaLibraryLoadData, cudaLibraryGetKernel) and launched. */
void launch_gemm_specialized(const Gemm& g, ProgramCache& cache, cudaStream_t stream);

/** @brief One strategy's cost for one shape: what is left to prepare (0 when done) and the time per call. */
struct StrategyCost {
    double prep_ms = 0;  ///< P: still to compile, tune, load
    double call_ms = 0;  ///< T: one call
};

/** @brief (d) Which strategy serves @p expected_calls calls of one shape (this one and those still to come) in the
 *  least total time, P + r·T from @p costs: 0 generic, 1 bucketed, 2 specialised (a tie goes to the lower index). */
[[nodiscard]] int choose_strategy(const std::array<StrategyCost, 3>& costs, double expected_calls);
