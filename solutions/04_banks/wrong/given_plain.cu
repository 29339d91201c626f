// Known-bad (wrong/expect.json): right layouts, but the FP32 launchers hand the work to the given plain
// tiled transpose. The code policy finds the call in the compiled object before anything runs.
#include "transpose.cuh"

WRONG_RIGHT_LAYOUTS()

void launch_transpose_padded(const float* in, float* out, int rows, int cols, cudaStream_t stream) {
    launch_transpose_plain(in, out, rows, cols, stream);
}
void launch_transpose_swizzled(const float* in, float* out, int rows, int cols, cudaStream_t stream) {
    launch_transpose_plain(in, out, rows, cols, stream);
}
void launch_transpose_swizzled_bf16(const __nv_bfloat16* in, __nv_bfloat16* out, int rows, int cols,
                                    cudaStream_t stream) {
    wrong::launch<SwizzledLayoutBf16>(in, out, rows, cols, stream);
}
