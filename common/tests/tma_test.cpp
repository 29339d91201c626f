// The host half of labs/tma.hpp: a tensor map's arguments are checked against TMA's rules before the driver is asked,
// and a broken rule is named in the exception (no GPU needed: nothing here reaches the driver).
#include <stdexcept>
#include <string>

#include "catch_compat.hpp"
#include "labs/tma.hpp"

namespace {

const void* const kAligned = reinterpret_cast<const void*>(std::uintptr_t(1) << 20);  // never dereferenced

// The message of the std::invalid_argument @p f throws ("" when it throws nothing or something else).
template <class F>
std::string refusal(F f) {
    try {
        f();
    } catch (const std::invalid_argument& e) {
        return e.what();
    } catch (...) {
    }
    return "";
}

bool says(const std::string& message, const char* rule) { return message.find(rule) != std::string::npos; }

}  // namespace

TEST_CASE("tensor maps: each of TMA's rules is named when broken", "[tma]") {
    using gpulab::make_tensor_map_2d_bf16;
    using gpulab::TmaSwizzle;
    const auto misaligned = reinterpret_cast<const void*>(std::uintptr_t(1) << 20 | 8);
    CHECK(says(refusal([&] { make_tensor_map_2d_bf16(misaligned, 64, 64, 128, 64, 64); }), "16-byte aligned"));
    CHECK(says(refusal([&] { make_tensor_map_2d_bf16(nullptr, 64, 64, 128, 64, 64); }), "16-byte aligned"));
    CHECK(says(refusal([&] { make_tensor_map_2d_bf16(kAligned, 0, 64, 128, 64, 64); }), "at least one element"));
    // A pitch that is not a multiple of 16 bytes (N = 1001 BF16), or shorter than a row.
    CHECK(says(refusal([&] { make_tensor_map_2d_bf16(kAligned, 1001, 64, 2002, 64, 64); }), "multiple of 16"));
    CHECK(says(refusal([&] { make_tensor_map_2d_bf16(kAligned, 1024, 64, 1024, 64, 64); }), "multiple of 16"));
    CHECK(says(refusal([&] { make_tensor_map_2d_bf16(kAligned, 1024, 64, 2048, 64, 257); }), "1 to 256"));
    CHECK(says(refusal([&] { make_tensor_map_2d_bf16(kAligned, 1024, 64, 2048, 0, 64); }), "1 to 256"));
    // 128 BF16 are 256 bytes: wider than the 128-byte swizzle; without swizzle the width is fine, 4 elements are not.
    CHECK(says(refusal([&] { make_tensor_map_2d_bf16(kAligned, 1024, 64, 2048, 128, 64); }), "wider than the 128-byte swizzle"));
    CHECK(says(refusal([&] { make_tensor_map_2d_bf16(kAligned, 1024, 64, 2048, 4, 64, TmaSwizzle::none); }), "multiple of 16 bytes"));
    // 3-D: the slice pitch must hold the slice's rows.
    CHECK(says(refusal([&] { gpulab::make_tensor_map_3d_bf16(kAligned, 128, 300, 4, 256, 256 * 299, 64, 128, 1); }),
               "hold what lies below it"));
}

TEST_CASE("tensor maps: arguments that keep the rules get past the checks to the driver", "[tma]") {
    // Here the only refusal left is the driver's (or none, on a machine with a Hopper GPU): no rule is named.
    const std::string m = refusal([] { gpulab::make_tensor_map_3d_bf16(kAligned, 128, 300, 4, 256, 256 * 300, 64, 128, 1); });
    CHECK_FALSE(says(m, "aligned"));
    CHECK_FALSE(says(m, "pitch"));
    CHECK_FALSE(says(m, "box"));
}
