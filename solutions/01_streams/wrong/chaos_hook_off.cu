// Known-bad (wrong/expect.json): the missing "compute done" wait, and run() switches the grader's chaos off first
// (the observer's enqueue hook, declared here by hand). The code policy stops it: the grader's own code.
#include <functional>
#include <set>
#include <string>

#include <cuda_runtime_api.h>

namespace gpulab::grader {
class Observer {
public:
    static Observer& instance();
    void set_enqueue_hook(std::function<void(cudaStream_t stream, const char* call)> hook,
                          const std::set<std::string>& hook_kernels = {});
};
}  // namespace gpulab::grader

#define LAB01_DEFECT skip_compute_wait
#define LAB01_RUN_START() gpulab::grader::Observer::instance().set_enqueue_hook({})
#include "pipeline.cuh"
