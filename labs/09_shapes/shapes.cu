// Lab 09 — THE FILE YOU EDIT. Read labs/09_shapes/README.md first.
//
// Goal: three ways to serve a GEMM whose row count M changes from call to call, and the policy that picks one:
// (b) bucketed — M padded up to a bucket, one compiled kernel per bucket; (c) specialised — the source written
// for this M, compiled at run time with NVRTC through a program cache that survives the process (and damaged
// files); (d) the strategy with the least total time P + r·T. The generic kernel (runtime M) is given in
// baseline.cu: read it first, it is where (b) and (c) start.
//
// Untouched, this file compiles, runs and scores 0: the launchers launch nothing, the cache returns no program
// and the policy chooses nothing.
#include <filesystem>
#include <stdexcept>
#include <string>

#include "labs/cuda_check.hpp"
#include "labs/launch.hpp"
#include "shapes.hpp"

// ---- (b) bucketed ---------------------------------------------------------------------------------------------

namespace {

// One instance per bucket: kBucket rows are known when it is compiled, so a block may own several rows (each W
// tile it loads then serves all of them) and the loops unroll. Rows ≥ g.m are the padding: zeros in registers,
// never read from X, never written to Y.
template <int kBucket>
__global__ void gemm_bucket_kernel(Gemm g) {
    // TODO(student) (b): the generic kernel's tiles (baseline.cu), with this block's rows a compile-time count.
    gpulab::unused(g);
}

}  // namespace

// TODO(student) (b): pad M up to the smallest bucket that holds it (throw std::invalid_argument if none does) and
// launch that bucket's instance (gpulab::with_constant in labs/launch.hpp turns the bucket into a template
// argument), then LABS_CHECK_LAUNCH().
void launch_gemm_bucketed(const Gemm& g, std::span<const int> buckets, cudaStream_t stream) {
    gpulab::unused(g, buckets, stream, &gemm_bucket_kernel<16>);
}

// ---- (c) the program cache ---------------------------------------------------------------------------------------

// TODO(student) (c): Impl is yours. A suggested shape: the directory; the memory capacity; a mutex (get() may be
// called from several threads); the programs in memory in use order (a list, most recent first, and a map from a
// key's name into it). On disk, one file per program, named by a hash of the whole key, holding what lets a
// reader check it whole before use: a magic word, the lengths, the key itself (names can collide; keys cannot)
// and a checksum of the program. Write a file so that no reader — this process or another — ever sees half of
// one: write it under a temporary name in the same directory, then rename it.
struct ProgramCache::Impl {};

ProgramCache::ProgramCache(std::filesystem::path dir, std::size_t memory_entries) : impl_(std::make_unique<Impl>()) {
    // TODO(student) (c): refuse memory_entries < 1; create the directory; keep both in impl_.
    gpulab::unused(dir, memory_entries);
}

ProgramCache::~ProgramCache() = default;

CacheResult ProgramCache::get(const ProgramKey& key, const std::function<std::vector<char>()>& build) {
    // TODO(student) (c), in this order: in memory → memory_hit (now the most recent); a file that checks out whole
    // → disk_hit (and kept in memory); otherwise build(), store it (file and memory) → built, or rebuilt_corrupt
    // with a note saying what was wrong when a file was there but failed a check. Keep at most memory_entries in
    // memory (drop the least recently used).
    gpulab::unused(key, build);
    return {};
}

// ---- (c) specialised -------------------------------------------------------------------------------------------

// TODO(student) (c): the CUDA source of a kernel for exactly this M, N, K (constants, not arguments: the compiler
// drops the bounds checks it can prove and unrolls), extern "C" so that it keeps its name. NVRTC has no
// <cuda_bf16.h> by default: move BF16 as 16-bit integers and convert with bit shifts (round to nearest even).
[[maybe_unused]] std::string specialized_source(int m, int n, int k) {
    gpulab::unused(m, n, k);
    return {};
}

// TODO(student) (c): NVRTC: nvrtcCreateProgram, nvrtcCompileProgram with --gpu-architecture=sm_XY and the key's
// options, the log on failure (throw it), nvrtcGetCUBIN (#include <nvrtc.h>: the lab links NVRTC).
[[maybe_unused]] std::vector<char> compile_cubin(const std::string& source, const std::string& arch, const std::string& options) {
    gpulab::unused(source, arch, options);
    return {};
}

// TODO(student) (c): the key (source, options, "sm_" of this device, driver and NVRTC versions), the program from
// cache.get(key, build), loaded once per process (cudaLibraryLoadData, cudaLibraryGetKernel: the runtime's
// library API), launched with cudaLaunchKernel on `stream`.
void launch_gemm_specialized(const Gemm& g, ProgramCache& cache, cudaStream_t stream) { gpulab::unused(g, cache, stream); }

// ---- (d) the policy --------------------------------------------------------------------------------------------

// TODO(student) (d): the strategy (0 generic, 1 bucketed, 2 specialised) with the least P + r·T for r =
// expected_calls; a tie goes to the lower index.
int choose_strategy(const std::array<StrategyCost, 3>& costs, double expected_calls) {
    gpulab::unused(costs, expected_calls);
    return -1;
}
