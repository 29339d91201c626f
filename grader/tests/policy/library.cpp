// Denied by default: a vendor library's function (declared by hand, no header); denied by a lab's DENY:
// the lab's given implementation.
extern "C" int cublasCreate_v2(void** handle);
void launch_gemm_cublas(const void* a, const void* w, void* c, int m, int n, int k, void* stream);

int policy_sample_library(void** h) {
    launch_gemm_cublas(nullptr, nullptr, nullptr, 1, 1, 1, nullptr);
    return cublasCreate_v2(h);
}
