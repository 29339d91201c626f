// The tensor map of labs/tma.hpp, encoded by the driver's cuTensorMapEncodeTiled (found through the runtime once).
#include "labs/tma.hpp"

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace gpulab {
namespace {

using Encode = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*, const cuuint64_t*,
                            const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave, CUtensorMapSwizzle,
                            CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

Encode encoder() {
    static const Encode f = [] {
        void* p = nullptr;
        cudaDriverEntryPointQueryResult found{};
        if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &found) != cudaSuccess ||
            found != cudaDriverEntryPointSuccess || p == nullptr) {
            (void)cudaGetLastError();
            return Encode{nullptr};
        }
        return reinterpret_cast<Encode>(p);
    }();
    return f;
}

[[noreturn]] void refuse(const std::string& why) { throw std::invalid_argument("make_tensor_map_2d_bf16: " + why); }

}  // namespace

static_assert(sizeof(TensorMap) == sizeof(CUtensorMap) && alignof(TensorMap) == alignof(CUtensorMap),
              "gpulab::TensorMap must be a CUtensorMap's bytes");

namespace {

// Any rank from 1 to 3: dims and box innermost first, pitches (bytes) of every dimension but the innermost.
TensorMap encode_bf16(const void* base, int rank, const std::uint64_t* dims, const std::uint64_t* pitches, const std::uint32_t* box,
                      TmaSwizzle swizzle) {
    const std::uint32_t span = swizzle == TmaSwizzle::bytes128 ? 128 : swizzle == TmaSwizzle::bytes64 ? 64
                               : swizzle == TmaSwizzle::bytes32 ? 32 : 0;
    if (base == nullptr || reinterpret_cast<std::uintptr_t>(base) % 16 != 0) refuse("the base address must be 16-byte aligned");
    for (int i = 0; i < rank; ++i) {
        if (dims[i] == 0) refuse("every dimension must have at least one element");
        if (box[i] == 0 || box[i] > 256) refuse("a box side must be 1 to 256");
    }
    for (int i = 0; i + 1 < rank; ++i) {
        const std::uint64_t below = i == 0 ? dims[0] * 2 : pitches[i - 1] * dims[i];
        if (pitches[i] % 16 != 0 || pitches[i] < below)
            refuse("a pitch (" + std::to_string(pitches[i]) + " bytes) must be a multiple of 16 and hold what lies below it");
    }
    if ((box[0] * 2) % 16 != 0) refuse("a box row must be a multiple of 16 bytes");
    if (span != 0 && box[0] * 2 > span)
        refuse("a box row of " + std::to_string(box[0] * 2) + " bytes is wider than the " + std::to_string(span) + "-byte swizzle");
    const Encode encode = encoder();
    if (encode == nullptr) refuse("the driver has no cuTensorMapEncodeTiled (TMA needs CUDA 12 and compute capability 9.0)");
    CUtensorMap map{};
    cuuint64_t d[3], p[2];
    cuuint32_t b[3], element_strides[3] = {1, 1, 1};
    for (int i = 0; i < rank; ++i) d[i] = dims[i], b[i] = box[i];
    for (int i = 0; i + 1 < rank; ++i) p[i] = pitches[i];
    const CUtensorMapSwizzle sw = swizzle == TmaSwizzle::bytes128 ? CU_TENSOR_MAP_SWIZZLE_128B
                                  : swizzle == TmaSwizzle::bytes64 ? CU_TENSOR_MAP_SWIZZLE_64B
                                  : swizzle == TmaSwizzle::bytes32 ? CU_TENSOR_MAP_SWIZZLE_32B
                                                                   : CU_TENSOR_MAP_SWIZZLE_NONE;
    const CUresult r = encode(&map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, static_cast<cuuint32_t>(rank), const_cast<void*>(base), d, p,
                              b, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, sw, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                              CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) refuse("the driver refused the map (CUresult " + std::to_string(static_cast<int>(r)) + ")");
    TensorMap out;
    static_assert(sizeof out == sizeof map);
    __builtin_memcpy(&out, &map, sizeof map);
    return out;
}

}  // namespace

TensorMap make_tensor_map_2d_bf16(const void* base, std::uint64_t inner, std::uint64_t outer, std::uint64_t row_pitch_bytes,
                                  std::uint32_t box_inner, std::uint32_t box_outer, TmaSwizzle swizzle) {
    const std::uint64_t dims[2] = {inner, outer}, pitches[1] = {row_pitch_bytes};
    const std::uint32_t box[2] = {box_inner, box_outer};
    return encode_bf16(base, 2, dims, pitches, box, swizzle);
}

TensorMap make_tensor_map_3d_bf16(const void* base, std::uint64_t inner, std::uint64_t middle, std::uint64_t outer,
                                  std::uint64_t row_pitch_bytes, std::uint64_t slice_pitch_bytes, std::uint32_t box_inner,
                                  std::uint32_t box_middle, std::uint32_t box_outer, TmaSwizzle swizzle) {
    const std::uint64_t dims[3] = {inner, middle, outer}, pitches[2] = {row_pitch_bytes, slice_pitch_bytes};
    const std::uint32_t box[3] = {box_inner, box_middle, box_outer};
    return encode_bf16(base, 3, dims, pitches, box, swizzle);
}

}  // namespace gpulab
