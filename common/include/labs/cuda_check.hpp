/**
 * @file cuda_check.hpp
 * @brief Error checking for CUDA runtime, cuBLAS and NVRTC calls, and for kernel launches.
 *
 * Every failure throws a gpulab::CudaError that carries the failing expression, the file and line,
 * and the library's name for the error (for example `cudaErrorIllegalAddress`). Nothing is printed
 * and nothing exits: the caller (a test, the grader's lab runner) decides what a failure means.
 *
 * @code
 * CUDA_CHECK(cudaMalloc(&p, bytes));
 * my_kernel<<<grid, block, 0, stream>>>(p, n);
 * LABS_CHECK_LAUNCH();                 // launch-configuration errors, raised right here
 * @endcode
 */
#pragma once

#include <stdexcept>
#include <string>

#include <cuda_runtime_api.h>

namespace gpulab {

/** @brief Which library reported an error. */
enum class ErrorSource { cuda_runtime, cublas, nvrtc };

/**
 * @brief An error reported by a CUDA library, with where it happened.
 *
 * `what()` reads like `cudaErrorIllegalAddress (an illegal memory access was encountered) in
 * cudaDeviceSynchronize() at vector_add.cu:42`.
 */
class CudaError : public std::runtime_error {
public:
    /**
     * @param source     library that reported the error
     * @param code       the library's numeric status
     * @param name       the library's name for the status, e.g. "cudaErrorIllegalAddress"
     * @param message    the library's description of the status (may be empty)
     * @param expression the source text of the failing call
     * @param file       source file of the call
     * @param line       source line of the call
     */
    CudaError(ErrorSource source, int code, std::string name, std::string message,
              std::string expression, std::string file, int line);

    /** @brief Library that reported the error. */
    [[nodiscard]] ErrorSource source() const noexcept { return source_; }
    /** @brief Numeric status (cudaError_t, cublasStatus_t or nvrtcResult). */
    [[nodiscard]] int code() const noexcept { return code_; }
    /** @brief The library's name for the status. */
    [[nodiscard]] const std::string& name() const noexcept { return name_; }
    /** @brief The failing expression as written in the source. */
    [[nodiscard]] const std::string& expression() const noexcept { return expression_; }
    /** @brief Source file of the failing call. */
    [[nodiscard]] const std::string& file() const noexcept { return file_; }
    /** @brief Source line of the failing call. */
    [[nodiscard]] int line() const noexcept { return line_; }
    /**
     * @brief True when the error is sticky: the CUDA context is corrupted and every later call in
     * this process fails too (illegal address, launch failure, trap, ...). Only a new process recovers.
     */
    [[nodiscard]] bool sticky() const noexcept;

private:
    ErrorSource source_;
    int code_;
    std::string name_;
    std::string expression_;
    std::string file_;
    int line_;
};

/** @brief True when @p e leaves the CUDA context unusable for the rest of the process. */
[[nodiscard]] bool is_sticky_error(cudaError_t e) noexcept;

/** @brief Throws CudaError when @p e is not cudaSuccess. Used by CUDA_CHECK. */
void check_cuda(cudaError_t e, const char* expression, const char* file, int line);
/** @brief Throws CudaError when @p status (a cublasStatus_t) is not CUBLAS_STATUS_SUCCESS. */
void check_cublas(int status, const char* expression, const char* file, int line);
/** @brief Throws CudaError when @p result (an nvrtcResult) is not NVRTC_SUCCESS. */
void check_nvrtc(int result, const char* expression, const char* file, int line);

}  // namespace gpulab

/** @brief Evaluates a CUDA runtime call once and throws gpulab::CudaError if it failed. */
#define CUDA_CHECK(expr)                                              \
    do {                                                              \
        ::gpulab::check_cuda((expr), #expr, __FILE__, __LINE__);        \
    } while (false)

/** @brief Evaluates a cuBLAS call once and throws gpulab::CudaError if it failed. */
#define CUBLAS_CHECK(expr)                                                         \
    do {                                                                           \
        ::gpulab::check_cublas(static_cast<int>(expr), #expr, __FILE__, __LINE__);  \
    } while (false)

/** @brief Evaluates an NVRTC call once and throws gpulab::CudaError if it failed. */
#define NVRTC_CHECK(expr)                                                         \
    do {                                                                          \
        ::gpulab::check_nvrtc(static_cast<int>(expr), #expr, __FILE__, __LINE__);  \
    } while (false)

/**
 * @brief Put right after a kernel launch: throws if the launch itself failed (bad configuration,
 * too much shared memory, no kernel image for this GPU). Errors raised while the kernel runs surface
 * at the next synchronizing call, which CUDA_CHECK reports.
 */
#define LABS_CHECK_LAUNCH()                                                          \
    do {                                                                             \
        ::gpulab::check_cuda(cudaGetLastError(), "kernel launch", __FILE__, __LINE__);  \
    } while (false)
