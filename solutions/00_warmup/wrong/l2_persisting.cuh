// Shared by l2_persisting.cu and l2_persisting_r_debug.cu: a correct one-thread-per-element launcher that, once, sets
// aside the largest persisting-L2 carve-out the GPU allows through the driver's cuCtxSetLimit, found by the loader
// walk WRONG_WALK_PHDR selects (loader.cuh). Define WRONG_WALK_PHDR before including it.
#pragma once

#include "loader.cuh"
#include "one_per_element.cuh"

void launch_vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
    static const bool once = [] {
        int device = 0, max_persisting = 0;
        CUDA_CHECK(cudaGetDevice(&device));
        CUDA_CHECK(cudaDeviceGetAttribute(&max_persisting, cudaDevAttrMaxPersistingL2CacheSize, device));
        if (void* set_limit = wrong::find_symbol("libcuda.so", "cuCtxSetLimit")) {
            using SetLimit = int (*)(int, std::size_t);
            constexpr int kPersistingL2CacheSize = 6;  // CU_LIMIT_PERSISTING_L2_CACHE_SIZE
            (void)reinterpret_cast<SetLimit>(set_limit)(kPersistingL2CacheSize, static_cast<std::size_t>(max_persisting));
        }
        return true;
    }();
    (void)once;
    wrong::add(a, b, c, n, stream);
}
