// kernel_code_of_cubin() on a cubin ptxas made at build time of one-instruction probes (kernel_code/probes.cu, for
// sm_90a): each probe's instruction kind is counted in it and in no other probe, and cubins of other architectures or
// that are not ELF say so. No GPU needed.
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "grader/kernel_code.hpp"
#include "catch_compat.hpp"

using gpulab::grader::KernelCode;
using gpulab::grader::kernel_code_of_cubin;

namespace {

std::vector<char> read(const char* path) {
    std::ifstream f(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

}  // namespace

TEST_CASE("each probe's instruction kind is counted in it and in no other", "[kernel_code]") {
    const std::vector<char> cubin = read(KERNEL_CODE_PROBES);
    REQUIRE(cubin.size() > 64);
    REQUIRE(gpulab::grader::cubin_sm(cubin.data(), cubin.size()) == 90);
    const auto code = kernel_code_of_cubin(cubin.data(), cubin.size());
    for (const char* name : {"probe_plain", "probe_mma_sync", "probe_wgmma_shared", "probe_wgmma_registers", "probe_tma_load",
                             "probe_bulk_copy", "probe_cp_async"}) {
        INFO(name);
        REQUIRE(code.count(name) == 1);
        const KernelCode& k = code.at(name);
        CHECK(k.known);
        CHECK(k.sm == 90);
        CHECK(k.instructions > 4);
        const std::string n = name;
        CHECK((k.mma_sync > 0) == (n == "probe_mma_sync"));
        CHECK((k.wgmma > 0) == (n == "probe_wgmma_shared" || n == "probe_wgmma_registers"));
        CHECK((k.tma_load > 0) == (n == "probe_tma_load"));
        CHECK((k.bulk_copy > 0) == (n == "probe_bulk_copy"));
        CHECK((k.cp_async > 0) == (n == "probe_cp_async"));
    }
    CHECK(code.at("probe_mma_sync").mma_sync == 1);
    CHECK(code.at("probe_wgmma_shared").wgmma == 1);
    CHECK(code.at("probe_wgmma_registers").wgmma == 1);
}

TEST_CASE("a cubin of another architecture is read but its counts are not claimed", "[kernel_code]") {
    std::vector<char> cubin = read(KERNEL_CODE_PROBES);
    REQUIRE(cubin.size() > 64);
    // EF_CUDA_SM in bits 8-15 of e_flags: make it sm_80.
    std::uint32_t flags = 0;
    std::memcpy(&flags, cubin.data() + 0x30, sizeof flags);
    flags = (flags & ~0xff00u) | (80u << 8);
    std::memcpy(cubin.data() + 0x30, &flags, sizeof flags);
    const auto code = kernel_code_of_cubin(cubin.data(), cubin.size());
    REQUIRE(code.count("probe_mma_sync") == 1);
    CHECK_FALSE(code.at("probe_mma_sync").known);
    CHECK(code.at("probe_mma_sync").sm == 80);
    CHECK(code.at("probe_mma_sync").mma_sync == 0);
}

TEST_CASE("what is not a cubin holds no kernel", "[kernel_code]") {
    const std::string text = "not an ELF file at all, just text long enough to be read as a header by mistake........";
    CHECK(kernel_code_of_cubin(text.data(), text.size()).empty());
    CHECK(kernel_code_of_cubin(nullptr, 0).empty());
    std::vector<char> cubin = read(KERNEL_CODE_PROBES);
    REQUIRE(cubin.size() > 64);
    CHECK(kernel_code_of_cubin(cubin.data(), 40).empty());  // cut inside the header
    cubin.resize(cubin.size() / 2);                           // cut inside the sections: no read past the end
    (void)kernel_code_of_cubin(cubin.data(), cubin.size());
}
