// The host half of labs/launch.hpp: with_constant() picks the one compile-time instance a run-time number names.
#include <vector>

#include "catch_compat.hpp"
#include "labs/launch.hpp"

TEST_CASE("with_constant calls the instance the number names, and only that one", "[launch]") {
    std::vector<int> called;
    const auto record = [&]<int V>() { called.push_back(V); };
    CHECK(gpulab::with_constant<1, 2, 4, 8>(4, record));
    CHECK(called == std::vector<int>{4});
    CHECK(gpulab::with_constant<16, 64, 4096>(4096, record));
    CHECK(called == std::vector<int>{4, 4096});
}

TEST_CASE("with_constant calls nothing for a number outside its list", "[launch]") {
    int calls = 0;
    const auto count = [&]<int>() { ++calls; };
    CHECK_FALSE(gpulab::with_constant<2, 3, 4>(1, count));
    CHECK_FALSE(gpulab::with_constant<2, 3, 4>(0, count));
    CHECK_FALSE(gpulab::with_constant<16, 64>(32, count));
    CHECK(calls == 0);
}
