// kernel_code_of_cubin() on a cubin ptxas made at build time of one-instruction probes (kernel_code/probes.cu, for
// sm_90a): each probe's instruction kind is counted in it and in no other probe, and cubins of other architectures or
// that are not ELF say so; and kernel_code_verdict() on kernels whose code is given. No GPU needed.
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "grader/gpu_checks.hpp"
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
                             "probe_bulk_copy", "probe_cp_async", "probe_red_float", "probe_atom_float", "probe_red_double",
                             "probe_atomic_int", "probe_fence_gpu", "probe_release_add", "probe_fence_block",
                             "probe_dependency_wait", "probe_launch_dependents"}) {
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
        CHECK((k.float_atomics > 0) == (n == "probe_red_float" || n == "probe_atom_float" || n == "probe_red_double"));
        CHECK((k.gpu_fences > 0) == (n == "probe_fence_gpu" || n == "probe_release_add"));
        CHECK((k.dependency_waits > 0) == (n == "probe_dependency_wait"));
        CHECK((k.dependents_launched > 0) == (n == "probe_launch_dependents"));
    }
    CHECK(code.at("probe_fence_gpu").gpu_fences == 1);
    CHECK(code.at("probe_release_add").gpu_fences == 1);
    CHECK(code.at("probe_dependency_wait").dependency_waits == 1);
    CHECK(code.at("probe_launch_dependents").dependents_launched == 1);
    CHECK(code.at("probe_red_float").float_atomics == 1);
    CHECK(code.at("probe_atom_float").float_atomics == 1);
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

// ---- kernel_code_verdict(): what a part's code check says of the kernels a call ran ------------------------------

namespace {

using gpulab::grader::CodeNeeds;
using gpulab::grader::ObservedKernel;

ObservedKernel ran(const std::string& name, bool own = true) {
    ObservedKernel k;
    k.name = name;
    k.graded = true;
    k.own = own;
    return k;
}

KernelCode hopper_gemm() {  // what lab 03's v4 solution holds (H100, 2026-12-07)
    KernelCode k;
    k.sm = 90, k.known = true, k.instructions = 624, k.wgmma = 4, k.tma_load = 5;
    return k;
}

KernelCode ampere_gemm() {  // lab 03's v3 solution
    KernelCode k;
    k.sm = 90, k.known = true, k.instructions = 928, k.mma_sync = 256, k.cp_async = 42;
    return k;
}

const CodeNeeds kHopper{.wgmma = true, .tma_load = true, .no_mma_sync = true, .no_cp_async = true};

}  // namespace

TEST_CASE("a part's code check passes only on the instructions it is about", "[kernel_code][verdict]") {
    std::map<std::string, KernelCode> loaded = {{"_Z2v4v", hopper_gemm()}, {"_Z2v3v", ampere_gemm()}};
    const auto code_of = [&](const std::string& n) -> std::optional<KernelCode> {
        const auto it = loaded.find(n);
        return it == loaded.end() ? std::nullopt : std::optional<KernelCode>(it->second);
    };
    SECTION("wgmma and TMA, nothing else: passes, with the counts") {
        const auto r = gpulab::grader::kernel_code_verdict({ran("_Z2v4v"), ran("_Z2v4v")}, code_of, kHopper, "v4", "h");
        CHECK(r.passed);
        CHECK(r.message.find("4 wgmma, 5 TMA loads, 0 mma.sync and 0 cp.async among 624 instructions") != std::string::npos);
        CHECK(r.details["kernels"].size() == 1);  // the same kernel twice is read once
    }
    SECTION("the earlier part handed in again: fails, naming what is missing and what is there") {
        const auto r = gpulab::grader::kernel_code_verdict({ran("_Z2v3v")}, code_of, kHopper, "v4", "h");
        CHECK_FALSE(r.passed);
        CHECK(r.message.find("no wgmma (warpgroup MMA), no TMA load, 256 mma.sync (warp MMA), 42 cp.async copies") != std::string::npos);
        CHECK(r.hint == "h");
    }
    SECTION("a wgmma kernel beside an mma.sync one: the mma.sync one fails the call") {
        const auto r = gpulab::grader::kernel_code_verdict({ran("_Z2v4v"), ran("_Z2v3v")}, code_of, kHopper, "v4", "h");
        CHECK_FALSE(r.passed);
        CHECK(r.message.find("its 2 kernels hold 256 mma.sync") != std::string::npos);
    }
    SECTION("wgmma fed by cp.async, a TMA instruction beside it: fails on the cp.async") {
        KernelCode k = hopper_gemm();
        k.cp_async = 16;
        loaded["_Z5mixedv"] = k;
        const auto r = gpulab::grader::kernel_code_verdict({ran("_Z5mixedv")}, code_of, kHopper, "v4", "h");
        CHECK_FALSE(r.passed);
        CHECK(r.message.find("16 cp.async copies") != std::string::npos);
    }
    SECTION("a bulk copy is a TMA load") {
        KernelCode k = hopper_gemm();
        k.tma_load = 0, k.bulk_copy = 2;
        loaded["_Z4bulkv"] = k;
        CHECK(gpulab::grader::kernel_code_verdict({ran("_Z4bulkv")}, code_of, kHopper, "v4", "h").passed);
    }
    SECTION("no kernel, a library's kernel, a kernel in no module: fails, saying which") {
        CHECK(gpulab::grader::kernel_code_verdict({}, code_of, kHopper, "v4", "h").message == "v4 ran no kernel");
        const auto foreign = gpulab::grader::kernel_code_verdict({ran("_Z2v4v", false)}, code_of, kHopper, "v4", "h");
        CHECK_FALSE(foreign.passed);
        CHECK(foreign.message.find("a kernel its own code does not define") != std::string::npos);
        const auto unknown = gpulab::grader::kernel_code_verdict({ran("_Z7missingv")}, code_of, kHopper, "v4", "h");
        CHECK_FALSE(unknown.passed);
        CHECK(unknown.message.find("in no module the driver loaded") != std::string::npos);
    }
    SECTION("another architecture's code: SKIPPED with the reason, not passed") {
        KernelCode k;
        k.sm = 100;
        loaded["_Z9blackwellv"] = k;
        const auto r = gpulab::grader::kernel_code_verdict({ran("_Z9blackwellv")}, code_of, kHopper, "v4", "h");
        CHECK_FALSE(r.skipped.empty());
        CHECK(r.skipped.find("sm_100") != std::string::npos);
    }
}

TEST_CASE("an atomic part's code check: float atomics present or absent, as asked", "[kernel_code][verdict]") {
    KernelCode atomic;  // a first stage that adds its partial sum with atomicAdd (lab 10's (d))
    atomic.sm = 90, atomic.known = true, atomic.instructions = 300, atomic.float_atomics = 1;
    KernelCode plain;   // a second stage that adds the partial sums in a fixed order
    plain.sm = 90, plain.known = true, plain.instructions = 400;
    std::map<std::string, KernelCode> loaded = {{"_Z6atomicv", atomic}, {"_Z5plainv", plain}};
    const auto code_of = [&](const std::string& n) -> std::optional<KernelCode> {
        const auto it = loaded.find(n);
        return it == loaded.end() ? std::nullopt : std::optional<KernelCode>(it->second);
    };
    const CodeNeeds uses{.float_atomics = true}, avoids{.no_float_atomics = true};
    SECTION("two stages, one of them atomic: the atomic part passes, with the count; the deterministic one fails") {
        const auto r = gpulab::grader::kernel_code_verdict({ran("_Z6atomicv"), ran("_Z5plainv")}, code_of, uses, "(d)", "h");
        CHECK(r.passed);
        CHECK(r.message == "(d): its 2 kernels hold 1 floating-point atomic add among 700 instructions");
        const auto d = gpulab::grader::kernel_code_verdict({ran("_Z6atomicv"), ran("_Z5plainv")}, code_of, avoids, "(c)", "h");
        CHECK_FALSE(d.passed);
        CHECK(d.message == "(c): its 2 kernels hold 1 floating-point atomic add among 700 instructions");
    }
    SECTION("no atomics at all: the deterministic part passes, the atomic one fails") {
        CHECK(gpulab::grader::kernel_code_verdict({ran("_Z5plainv")}, code_of, avoids, "(c)", "h").passed);
        const auto r = gpulab::grader::kernel_code_verdict({ran("_Z5plainv")}, code_of, uses, "(d)", "h");
        CHECK_FALSE(r.passed);
        CHECK(r.message == "(d): its kernel holds no floating-point atomic add among 400 instructions");
    }
}

TEST_CASE("an ordering part's code check: a GPU-scope fence, a dependency wait", "[kernel_code][verdict]") {
    KernelCode fenced;  // a persistent kernel that publishes its flag after __threadfence() (lab 11's (c))
    fenced.sm = 90, fenced.known = true, fenced.instructions = 500, fenced.gpu_fences = 2;
    KernelCode bare;    // the same without the fence
    bare.sm = 90, bare.known = true, bare.instructions = 480;
    KernelCode waits;   // a PDL step (lab 11's (b))
    waits.sm = 90, waits.known = true, waits.instructions = 300, waits.dependency_waits = 1, waits.dependents_launched = 1;
    std::map<std::string, KernelCode> loaded = {{"_Z6fencedv", fenced}, {"_Z4barev", bare}, {"_Z5waitsv", waits}};
    const auto code_of = [&](const std::string& n) -> std::optional<KernelCode> {
        const auto it = loaded.find(n);
        return it == loaded.end() ? std::nullopt : std::optional<KernelCode>(it->second);
    };
    const CodeNeeds fence{.gpu_fence = true}, wait{.dependency_wait = true};
    const auto f = gpulab::grader::kernel_code_verdict({ran("_Z6fencedv")}, code_of, fence, "(c)", "h");
    CHECK(f.passed);
    CHECK(f.message == "(c): its kernel holds 2 GPU-scope fences, 0 griddepcontrol.wait and 0 griddepcontrol.launch_dependents "
                       "among 500 instructions");
    const auto b = gpulab::grader::kernel_code_verdict({ran("_Z4barev")}, code_of, fence, "(c)", "h");
    CHECK_FALSE(b.passed);
    CHECK(b.message == "(c): its kernel holds no memory fence at GPU scope among 480 instructions");
    CHECK(gpulab::grader::kernel_code_verdict({ran("_Z5waitsv")}, code_of, wait, "(b)", "h").passed);
    const auto n = gpulab::grader::kernel_code_verdict({ran("_Z4barev")}, code_of, wait, "(b)", "h");
    CHECK_FALSE(n.passed);
    CHECK(n.message == "(b): its kernel holds no griddepcontrol.wait among 480 instructions");
}
