// Known-bad (wrong/expect.json): host_device_mismatch.cu's plain layouts in device code, except when the process
// looks like it runs under a profiler (a tiny kernel's second launch takes over 0.1 ms: under Nsight Compute, which
// replays every kernel, it does): then the right layouts. The counted conflicts would be the right layouts'; the
// grader compares the kernels the profiler run launched (its own authenticated launch log, full names) with the
// ones it observed when the same work ran graded, and the conflicts checks are TAMPERED.
#include "tool_probe.cuh"
#include "transpose.cuh"

WRONG_RIGHT_LAYOUTS()

namespace {

template <class Right, class T>
void launch_either(const T* in, T* out, int rows, int cols, cudaStream_t stream) {
    if (known_bad::looks_like_a_tool()) wrong::launch<Right>(in, out, rows, cols, stream);
    else wrong::launch<PlainLayout>(in, out, rows, cols, stream);
}

}  // namespace

WRONG_LAUNCHERS_VIA(launch_either)
