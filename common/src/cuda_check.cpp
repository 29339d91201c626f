// Error checking for CUDA runtime, cuBLAS and NVRTC calls.
#include "labs/cuda_check.hpp"

#include <cublas_api.h>
#include <nvrtc.h>

#include <filesystem>

namespace gpulab {
namespace {

std::string describe(const std::string& name, const std::string& message, const std::string& expr,
                     const std::string& file, int line) {
    std::string s = name;
    if (!message.empty()) s += " (" + message + ")";
    s += " in " + expr + " at " + std::filesystem::path(file).filename().string() + ":" +
         std::to_string(line);
    return s;
}

}  // namespace

CudaError::CudaError(ErrorSource source, int code, std::string name, std::string message,
                     std::string expression, std::string file, int line)
    : std::runtime_error(describe(name, message, expression, file, line)),
      source_(source),
      code_(code),
      name_(std::move(name)),
      expression_(std::move(expression)),
      file_(std::move(file)),
      line_(line) {}

bool CudaError::sticky() const noexcept {
    return source_ == ErrorSource::cuda_runtime && is_sticky_error(static_cast<cudaError_t>(code_));
}

bool is_sticky_error(cudaError_t e) noexcept {
    switch (e) {
        case cudaErrorIllegalAddress:
        case cudaErrorLaunchFailure:
        case cudaErrorHardwareStackError:
        case cudaErrorIllegalInstruction:
        case cudaErrorMisalignedAddress:
        case cudaErrorInvalidAddressSpace:
        case cudaErrorInvalidPc:
        case cudaErrorAssert:
        case cudaErrorLaunchTimeout:
        case cudaErrorECCUncorrectable:
        case cudaErrorContextIsDestroyed:
        case cudaErrorUnknown:
            return true;
        default:
            return false;
    }
}

void check_cuda(cudaError_t e, const char* expression, const char* file, int line) {
    if (e == cudaSuccess) return;
    throw CudaError(ErrorSource::cuda_runtime, static_cast<int>(e), cudaGetErrorName(e),
                    cudaGetErrorString(e), expression, file, line);
}

void check_cublas(int status, const char* expression, const char* file, int line) {
    if (status == CUBLAS_STATUS_SUCCESS) return;
    const auto s = static_cast<cublasStatus_t>(status);
    throw CudaError(ErrorSource::cublas, status, cublasGetStatusName(s), cublasGetStatusString(s),
                    expression, file, line);
}

void check_nvrtc(int result, const char* expression, const char* file, int line) {
    if (result == NVRTC_SUCCESS) return;
    const auto r = static_cast<nvrtcResult>(result);
    throw CudaError(ErrorSource::nvrtc, result, "nvrtc error " + std::to_string(result),
                    nvrtcGetErrorString(r), expression, file, line);
}

}  // namespace gpulab
