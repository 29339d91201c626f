/**
 * @file tma.hpp
 * @brief The host half of a TMA copy (labs/hopper.cuh has the device half): the tensor map that tells the copy
 * engine a tensor's address, shape, row pitch, box and swizzle, encoded by the driver (cuTensorMapEncodeTiled,
 * reached through the runtime so that the graded code needs neither cuda.h nor the driver library).
 */
#pragma once

#include <cstdint>
#include <string>

#include <cuda_runtime_api.h>

namespace gpulab {

/** @brief A CUtensorMap: 128 opaque bytes, 128-byte aligned. Pass it to a kernel by value, as a
 *  `const __grid_constant__ gpulab::TensorMap` parameter, and give the copy its address (&map). */
struct alignas(128) TensorMap {
    unsigned long long opaque[16];  ///< the driver's encoding
};

/** @brief How TMA lays a box's rows out in shared memory; wgmma's descriptors must name the same mode. */
enum class TmaSwizzle {
    none,     ///< rows one after another
    bytes32,  ///< 16-byte chunks XOR-ed within 32 bytes
    bytes64,  ///< within 64 bytes
    bytes128  ///< within 128 bytes: rows of 128 bytes (64 BF16), 8-row atoms of 1024 bytes (what wgmma reads best)
};

/**
 * @brief Encodes the tensor map of a row-major 2-D BF16 tensor: @p outer rows of @p inner elements, @p row_pitch_bytes
 * apart, copied in boxes of @p box_outer rows × @p box_inner elements. Elements of a box outside the tensor arrive as
 * zeros. Costs a few microseconds on the host (no GPU work): encode once per tensor and shape, not per launch, where
 * that matters.
 * @param base the tensor's first element (16-byte aligned) @param inner elements per row (≥ 1)
 * @param outer rows (≥ 1) @param row_pitch_bytes bytes from one row to the next (a multiple of 16)
 * @param box_inner box width in elements (box_inner · 2 ≤ the swizzle's span, e.g. 64 for 128-byte swizzle; ≤ 256)
 * @param box_outer box height in rows (1–256) @param swizzle shared-memory layout
 * @throws std::invalid_argument when an argument breaks a rule above, or the driver refuses the map (its error named)
 */
TensorMap make_tensor_map_2d_bf16(const void* base, std::uint64_t inner, std::uint64_t outer, std::uint64_t row_pitch_bytes,
                                  std::uint32_t box_inner, std::uint32_t box_outer, TmaSwizzle swizzle = TmaSwizzle::bytes128);

/**
 * @brief As make_tensor_map_2d_bf16(), for a 3-D BF16 tensor [outer][middle][inner] (e.g. [batch·heads][L][d]): a box
 * of box_outer × box_middle × box_inner never reads across the middle dimension's end into the next outer slice —
 * rows past it arrive as zeros, as past the tensor's end.
 * @param base first element (16-byte aligned) @param inner elements per row @param middle rows per slice
 * @param outer slices @param row_pitch_bytes bytes between rows (multiple of 16)
 * @param slice_pitch_bytes bytes between slices (multiple of 16) @param box_inner box width (elements)
 * @param box_middle box rows @param box_outer box slices @param swizzle shared-memory layout
 * @throws std::invalid_argument as make_tensor_map_2d_bf16()
 */
TensorMap make_tensor_map_3d_bf16(const void* base, std::uint64_t inner, std::uint64_t middle, std::uint64_t outer,
                                  std::uint64_t row_pitch_bytes, std::uint64_t slice_pitch_bytes, std::uint32_t box_inner,
                                  std::uint32_t box_middle, std::uint32_t box_outer, TmaSwizzle swizzle = TmaSwizzle::bytes128);

/**
 * @brief Why sm_90a code (wgmma, TMA, setmaxnreg) cannot run here, or "" when it can: the current GPU must be of
 * compute capability 9.0 (H100, H200), and the file that includes this must have been compiled for `90a-real` — the
 * build says so with LABS_SM90A=1 (labs_add_lab's SM90A option adds both wherever the build targets 9.0).
 * Inline on purpose: it reports on the translation unit that calls it.
 */
inline std::string sm90a_unavailable() {
    int device = 0, major = 0, minor = 0;
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess ||
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) != cudaSuccess) {
        (void)cudaGetLastError();
        return "no CUDA device";
    }
    if (major != 9 || minor != 0)
        return "needs a GPU of compute capability 9.0 (H100, H200; wgmma and TMA), this one is " + std::to_string(major) +
               "." + std::to_string(minor);
#if defined(LABS_SM90A) && LABS_SM90A
    return "";
#else
    return "this build has no sm_90a code: configure it on the H100/H200 (CUDA architectures `native`) or with 90 among "
           "CMAKE_CUDA_ARCHITECTURES";
#endif
}

}  // namespace gpulab
