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

TensorMap make_tensor_map_2d_bf16(const void* base, std::uint64_t inner, std::uint64_t outer, std::uint64_t row_pitch_bytes,
                                  std::uint32_t box_inner, std::uint32_t box_outer, TmaSwizzle swizzle) {
    const std::uint32_t span = swizzle == TmaSwizzle::bytes128 ? 128 : swizzle == TmaSwizzle::bytes64 ? 64
                               : swizzle == TmaSwizzle::bytes32 ? 32 : 0;
    if (base == nullptr || reinterpret_cast<std::uintptr_t>(base) % 16 != 0) refuse("the base address must be 16-byte aligned");
    if (inner == 0 || outer == 0) refuse("the tensor must have at least one row of one element");
    if (row_pitch_bytes % 16 != 0 || row_pitch_bytes < inner * 2)
        refuse("the row pitch (" + std::to_string(row_pitch_bytes) + " bytes) must be a multiple of 16 and hold a row");
    if (box_inner == 0 || box_outer == 0 || box_inner > 256 || box_outer > 256) refuse("a box side must be 1 to 256");
    if ((box_inner * 2) % 16 != 0) refuse("a box row must be a multiple of 16 bytes");
    if (span != 0 && box_inner * 2 > span)
        refuse("a box row of " + std::to_string(box_inner * 2) + " bytes is wider than the " + std::to_string(span) +
               "-byte swizzle");
    const Encode encode = encoder();
    if (encode == nullptr) refuse("the driver has no cuTensorMapEncodeTiled (TMA needs CUDA 12 and compute capability 9.0)");
    CUtensorMap map{};
    const cuuint64_t dims[2] = {inner, outer};
    const cuuint64_t strides[1] = {row_pitch_bytes};
    const cuuint32_t box[2] = {box_inner, box_outer};
    const cuuint32_t element_strides[2] = {1, 1};
    const CUtensorMapSwizzle sw = swizzle == TmaSwizzle::bytes128 ? CU_TENSOR_MAP_SWIZZLE_128B
                                  : swizzle == TmaSwizzle::bytes64 ? CU_TENSOR_MAP_SWIZZLE_64B
                                  : swizzle == TmaSwizzle::bytes32 ? CU_TENSOR_MAP_SWIZZLE_32B
                                                                   : CU_TENSOR_MAP_SWIZZLE_NONE;
    const CUresult r = encode(&map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, const_cast<void*>(base), dims, strides, box,
                              element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, sw, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                              CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) refuse("the driver refused the map (CUresult " + std::to_string(static_cast<int>(r)) + ")");
    TensorMap out;
    static_assert(sizeof out == sizeof map);
    __builtin_memcpy(&out, &map, sizeof map);
    return out;
}

}  // namespace gpulab
