// Known-bad (wrong/expect.json): a correct one-thread-per-element kernel whose launcher, once, sets aside
// the largest persisting-L2 carve-out the GPU allows. That is device-wide state: every later kernel and
// copy of the process, the grader's reference copy among them, runs with it. The code policy denies the
// runtime call (cudaDeviceSetLimit) and the driver API by name, so this version finds the driver's
// cuCtxSetLimit by walking the dynamic symbol table of the loaded libcuda itself, through dl_iterate_phdr:
// no denied header, no driver symbol. The code policy now denies the loader's iterator itself, so it stops
// this version before it runs (l2_persisting_r_debug.cu finds the loaded objects another way).
#define WRONG_WALK_PHDR 1
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
