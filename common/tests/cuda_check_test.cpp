// Error checks: what the exception carries; sticky-error classification; probing without a device.
#include <string>

#include "catch_compat.hpp"
#include "labs/cuda_check.hpp"
#include "labs/device.hpp"

TEST_CASE("CUDA_CHECK throws with expression, file, line and error name", "[cuda_check]") {
    int line = 0;
    try {
        line = __LINE__ + 1;
        CUDA_CHECK(cudaErrorIllegalAddress);
        FAIL("CUDA_CHECK did not throw");
    } catch (const gpulab::CudaError& e) {
        CHECK(e.name() == "cudaErrorIllegalAddress");
        CHECK(e.expression() == "cudaErrorIllegalAddress");
        CHECK(e.line() == line);
        CHECK(std::string(e.what()).find("cuda_check_test.cpp:" + std::to_string(line)) != std::string::npos);
        CHECK(e.sticky());
    }
}

TEST_CASE("CUDA_CHECK passes success through", "[cuda_check]") {
    CHECK_NOTHROW([] { CUDA_CHECK(cudaSuccess); }());
}

TEST_CASE("Configuration errors are not sticky; memory faults are", "[cuda_check]") {
    CHECK_FALSE(gpulab::is_sticky_error(cudaErrorInvalidConfiguration));
    CHECK_FALSE(gpulab::is_sticky_error(cudaErrorMemoryAllocation));
    CHECK(gpulab::is_sticky_error(cudaErrorIllegalAddress));
    CHECK(gpulab::is_sticky_error(cudaErrorLaunchFailure));
}

TEST_CASE("cuBLAS and NVRTC failures name their library's status", "[cuda_check]") {
    try {
        CUBLAS_CHECK(7);  // CUBLAS_STATUS_INVALID_VALUE
        FAIL("CUBLAS_CHECK did not throw");
    } catch (const gpulab::CudaError& e) {
        CHECK(e.name() == "CUBLAS_STATUS_INVALID_VALUE");
        CHECK(e.source() == gpulab::ErrorSource::cublas);
    }
    CHECK_THROWS_AS([] { NVRTC_CHECK(3); }(), gpulab::CudaError);
}

TEST_CASE("Probing never throws and explains a missing device", "[device]") {
    const gpulab::DeviceProbe p = gpulab::probe_device(0);
    if (p.available()) {
        CHECK_FALSE(p.info.name.empty());
    } else {
        CHECK(p.reason.rfind("no ", 0) == 0);
    }
    const gpulab::DeviceProbe q = gpulab::probe_device(4096);
    CHECK_FALSE(q.available());
    CHECK_FALSE(q.reason.empty());
}
