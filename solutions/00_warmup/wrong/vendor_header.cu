// Known-bad (wrong/expect.json): includes cuBLAS's header (a first step towards letting the library do
// the work). Vendor libraries' headers are denied by the code policy, whether or not a call follows.
#include <cublas_v2.h>

#include "one_per_element.cuh"

void launch_vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
    wrong::add(a, b, c, n, stream);
}
