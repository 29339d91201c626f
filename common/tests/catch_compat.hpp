// Catch2 v2/v3 compatibility: the one header that tells the two apart (CMake sets
// LABS_CATCH2_MAJOR; see common/cmake/LabsTesting.cmake). Test files include this, never Catch2.
#pragma once

#if LABS_CATCH2_MAJOR >= 3
#include <catch2/catch_all.hpp>
#else
#include <catch2/catch.hpp>
#endif

namespace gpulab::testing {
#if LABS_CATCH2_MAJOR >= 3
using Catch::Approx;
#else
using Catch::Detail::Approx;
#endif
}  // namespace gpulab::testing
