// Known-bad (wrong/expect.json): l2_persisting.cu's persisting-L2 carve-out (device-wide state, set once
// through the driver's cuCtxSetLimit), reached without any symbol the code policy denies: the list of loaded
// objects comes from the loader's r_debug (_r_debug, plain data ld.so exports for debuggers), then libcuda's
// GNU hash table gives the function. What no walk can hide is the effect: the reference copy runs slower inside
// the check than alone — INVALID, or, with the ratio past what a vector add can reach against the copy it is
// timed with, SUSPICIOUS. 0 points either way.
#define WRONG_WALK_PHDR 0
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
