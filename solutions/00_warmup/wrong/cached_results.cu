// Known-bad (wrong/expect.json): keeps a copy of each result and, when the same buffers come back, copies
// it back instead of computing (a copy moves 8 of the 12 bytes per element). The verified timed run has
// new data in the same buffers, so the stale copy is wrong.
#include <map>
#include <tuple>

#include "one_per_element.cuh"

void launch_vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
    static std::map<std::tuple<const float*, const float*, float*, std::size_t>, gpulab::Workspace<float>> cache;
    const auto key = std::make_tuple(a, b, c, n);
    const bool repeat = cache.count(key) > 0;
    float* kept = cache[key].at_least(n);
    if (repeat) {
        CUDA_CHECK(cudaMemcpyAsync(c, kept, n * sizeof(float), cudaMemcpyDeviceToDevice, stream));
        return;
    }
    wrong::add(a, b, c, n, stream);
    CUDA_CHECK(cudaMemcpyAsync(kept, c, n * sizeof(float), cudaMemcpyDeviceToDevice, stream));
}
