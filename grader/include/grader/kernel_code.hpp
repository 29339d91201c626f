/**
 * @file kernel_code.hpp
 * @brief What a kernel's machine code holds, read from the cubin the driver loaded: how many of its instructions are
 * warpgroup MMAs (wgmma), warp MMAs (mma.sync), TMA tensor loads, bulk copies, cp.async copies and floating-point
 * atomic adds. A check that grades an idea ("part v4 runs on wgmma and TMA") reads the code of the kernels it saw run instead of asking the graded code
 * what it used, and instead of inferring it from a speed another design might also reach.
 *
 * The counts are static (instructions in the kernel's code, executed or not): a kernel that holds no wgmma cannot
 * have run one; a kernel that holds mma.sync may have done its work there. Encodings are known for sm_90 (H100,
 * H200): an instruction is 16 bytes and its low 12 bits name the operation. On other architectures KernelCode::known
 * is false and a check built on it is SKIPPED with the reason.
 *
 * @code
 * for (const auto& [name, code] : kernel_code_of_cubin(image, size))
 *     if (code.known && code.wgmma == 0) ...  // this kernel runs no warpgroup MMA
 * @endcode
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

namespace gpulab::grader {

/** @brief One kernel's machine code, counted by the kind of instruction. */
struct KernelCode {
    int sm = 0;                     ///< the cubin's architecture (90 for sm_90 and sm_90a)
    bool known = false;             ///< this architecture's encodings are known (the counts below mean something)
    std::uint32_t instructions = 0; ///< every instruction (NOPs of the padding included)
    std::uint32_t wgmma = 0;        ///< warpgroup MMAs (SASS HGMMA: wgmma.mma_async, A from shared memory or registers)
    std::uint32_t mma_sync = 0;     ///< warp MMAs (SASS HMMA and IMMA: mma.sync, wmma)
    std::uint32_t tma_load = 0;     ///< TMA tensor loads (SASS UTMALDG: cp.async.bulk.tensor, global to shared)
    std::uint32_t bulk_copy = 0;    ///< bulk copies without a tensor map (SASS UBLKCP: cp.async.bulk)
    std::uint32_t cp_async = 0;     ///< per-thread asynchronous copies (SASS LDGSTS: cp.async)
    /// floating-point atomic adds to global memory (SASS REDG and ATOMG with .ADD.F32 or .F64: atomicAdd on a float
    /// or double; integer atomics and compare-and-swap loops are not counted)
    std::uint32_t float_atomics = 0;
    /// memory fences at GPU or system scope (SASS MEMBAR.GPU, .SC.GPU, .ALL.GPU, .SYS: __threadfence(), fence.sc/acq_rel.gpu,
    /// and the fence a release atomic carries); block-scope fences (__threadfence_block) are not counted
    std::uint32_t gpu_fences = 0;
    std::uint32_t dependency_waits = 0;     ///< waits for the preceding grid (SASS ACQBULK: griddepcontrol.wait)
    std::uint32_t dependents_launched = 0;  ///< early triggers of the next grid (SASS PREEXIT: griddepcontrol.launch_dependents)
};

/**
 * @brief Every kernel of an ELF cubin (by mangled name) with what its code holds. Empty when @p image is not an
 * ELF cubin or has no kernel; a kernel of an architecture whose encodings are not known has `known` false.
 */
[[nodiscard]] std::map<std::string, KernelCode> kernel_code_of_cubin(const char* image, std::size_t size);

/** @brief The architecture of an ELF cubin (90 for sm_90 and sm_90a; 0 when @p image is not one). */
[[nodiscard]] int cubin_sm(const char* image, std::size_t size);

}  // namespace gpulab::grader
