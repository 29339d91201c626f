// The code policy, on small objects compiled for the test: what it lets through and what it names.
#include <string>
#include <vector>

#include "catch_compat.hpp"
#include "grader/policy.hpp"

using namespace gpulab::grader;

namespace {

std::vector<std::string> found(const ScanResult& r) {
    std::vector<std::string> out;
    for (const Violation& v : r.violations) out.push_back(v.what + " | " + v.why);
    return out;
}

bool any_contains(const std::vector<std::string>& v, const std::string& part) {
    for (const std::string& s : v)
        if (s.find(part) != std::string::npos) return true;
    return false;
}

}  // namespace

TEST_CASE("Ordinary code passes the default policy", "[policy]") {
    const ScanResult r = scan_object(POLICY_OBJECT_CLEAN, default_policy());
    REQUIRE(r.error.empty());
    INFO(::Catch::Detail::stringify(found(r)));
    CHECK(r.violations.empty());
    CHECK_FALSE(r.defined_symbols.empty());  // its own function, for provenance
}

TEST_CASE("An object that was never built is said so, with how to build it, not as a failing tool", "[policy]") {
    const ScanResult r = scan_object("/nonexistent/lab00_impl_student.dir/vector_add.cu.o", default_policy());
    CHECK(r.error.find("was not built") != std::string::npos);
    CHECK(r.error.find("labs_student_all") != std::string::npos);
    CHECK(r.error.find("nm") == std::string::npos);
}

TEST_CASE("A write behind a macro, and exit, are named", "[policy]") {
    const auto v = found(scan_object(POLICY_OBJECT_WRITES, default_policy()));
    INFO(::Catch::Detail::stringify(v));
    CHECK(any_contains(v, "write | system call"));
    CHECK(any_contains(v, "exit"));
}

TEST_CASE("A vendor library is denied by default, a lab's given implementation by its DENY", "[policy]") {
    const auto by_default = found(scan_object(POLICY_OBJECT_LIBRARY, default_policy()));
    CHECK(any_contains(by_default, "cublasCreate_v2 | vendor library"));
    CHECK_FALSE(any_contains(by_default, "launch_gemm_cublas"));
    const auto lab = found(scan_object(POLICY_OBJECT_LIBRARY, lab_policy({"launch_gemm_cublas"}, {})));
    CHECK(any_contains(lab, "launch_gemm_cublas(void const*"));
    CHECK(any_contains(lab, "given implementation"));
    // A lab may say why it denies a call: "pattern -- why".
    const auto reasoned = found(scan_object(POLICY_OBJECT_LIBRARY, lab_policy({"launch_gemm_cublas -- not in this lab"}, {})));
    CHECK(any_contains(reasoned, "launch_gemm_cublas(void const*"));
    CHECK(any_contains(reasoned, "not in this lab"));
    CHECK_FALSE(any_contains(reasoned, "given implementation"));
    const auto allowed = found(scan_object(POLICY_OBJECT_LIBRARY, lab_policy({}, {"^cublasCreate"})));
    CHECK(allowed.empty());
}

TEST_CASE("An early constructor, a file stream and an inline system call are named", "[policy]") {
    const auto v = found(scan_object(POLICY_OBJECT_EARLY, default_policy()));
    INFO(::Catch::Detail::stringify(v));
    CHECK(any_contains(v, "section .init_array.00101"));
    CHECK(any_contains(v, "std::basic_ofstream"));
#if defined(__x86_64__)
    CHECK(any_contains(v, "system-call instruction"));
#endif
}

TEST_CASE("Headers of vendor libraries and symbols of header-only ones are denied", "[policy]") {
    const CodePolicy p = default_policy();
    const auto v = check_policy({}, {"void cub::CUB_300000_SM_900_NS::DeviceReduceKernel<int>(int*)"}, {}, "",
                                {"/usr/local/cuda/include/cuda_runtime.h", "/usr/local/cuda/include/cublas_v2.h",
                                 "/usr/local/cuda/include/cuda/std/atomic", "/usr/local/cuda/include/cub/cub.cuh"},
                                p);
    std::vector<std::string> s;
    for (const Violation& x : v) s.push_back(x.what);
    INFO(::Catch::Detail::stringify(s));
    CHECK(s.size() == 3);
    CHECK(any_contains(s, "cublas_v2.h"));
    CHECK(any_contains(s, "cub/cub.cuh"));
    CHECK(any_contains(s, "DeviceReduceKernel"));
    CHECK_FALSE(any_contains(s, "cuda/std/atomic"));  // libcu++ is allowed
}

TEST_CASE("A missing object is a scan error, not a pass", "[policy]") {
    const ScanResult r = scan_object("/nonexistent/object.o", default_policy());
    CHECK_FALSE(r.error.empty());
}

TEST_CASE("Honest threads and atomics pass: the policy judges calls, not the headers libstdc++ pulls in", "[policy]") {
    const ScanResult r = scan_object(POLICY_OBJECT_THREADS, default_policy());
    REQUIRE(r.error.empty());
    INFO(::Catch::Detail::stringify(found(r)));
    CHECK(r.violations.empty());
    // The same file's headers, as the build tool lists them, pass too (sys/syscall.h among them).
    CHECK(check_policy({}, {}, {}, "", {"/usr/include/x86_64-linux-gnu/sys/syscall.h", "/usr/include/c++/12/thread"},
                       default_policy())
              .empty());
}

TEST_CASE("The environment, the loader's tables, sleeps, dprintf and CUPTI are named", "[policy]") {
    const auto v = found(scan_object(POLICY_OBJECT_PEEKS, default_policy()));
    INFO(::Catch::Detail::stringify(v));
    CHECK(any_contains(v, "dl_iterate_phdr"));
    CHECK(any_contains(v, "getenv"));
    CHECK(any_contains(v, "environ"));
    CHECK(any_contains(v, "dprintf"));
    CHECK(any_contains(v, "nanosleep"));
    CHECK(any_contains(v, "cuptiActivityDisable | the profiling interface"));
}

TEST_CASE("A lab's DENY of a namespace denies every function in it", "[policy]") {
    const CodePolicy p = lab_policy({"gpulab::models::"}, {});
    const auto v = check_policy({"gpulab::models::occupancy(gpulab::models::Kernel const&)"}, {}, {}, "", {}, p);
    REQUIRE(v.size() == 1);
    CHECK(v.front().why.find("given implementation") != std::string::npos);
}
