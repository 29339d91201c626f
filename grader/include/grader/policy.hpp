/**
 * @file policy.hpp
 * @brief The code policy: what the student's compiled code may call and include, checked on the object
 * file the compiler produced (so a macro cannot hide a call) before any of that code runs.
 *
 * The default policy denies system calls and file, descriptor, process and dynamic-loading functions;
 * CUDA calls that change device-wide state; vendor libraries (cuBLAS, cuDNN, CUB, Thrust, CUTLASS/CuTe,
 * ...), the driver API and NVRTC; the grader's own internals; inline system-call instructions in host
 * code; and static constructors with an explicit priority (they could run before the grader's). Debug
 * printing to stdout/stderr, the ordinary CUDA runtime, libcu++ and the standard library's containers,
 * algorithms and math stay allowed. A lab adds to it in its CMakeLists.txt:
 * `labs_add_lab(... DENY launch_gemm_cublas ALLOW "^nvrtc")` — DENY and ALLOW take regular expressions
 * over demangled symbol names (a plain name matches that function, whatever its arguments).
 */
#pragma once

#include <string>
#include <vector>

namespace gpulab::grader {

/** @brief One rule: a regular expression and why what it matches is denied. */
struct PolicyRule {
    std::string pattern;  ///< ECMAScript regex, searched in the demangled symbol (or the header path)
    std::string why;      ///< for the student: "vendor library (cuBLAS)", "system call", ...
};

/** @brief What the student's object may reference and include. */
struct CodePolicy {
    std::vector<PolicyRule> deny_symbols;   ///< undefined (called) symbols that are denied
    std::vector<PolicyRule> deny_defined;   ///< symbols the object may not define (inlined header libraries)
    std::vector<PolicyRule> deny_headers;   ///< included headers that are denied
    std::vector<std::string> allow;         ///< regexes that override a deny (symbols and headers)
};

/** @brief The default policy (see the file comment). */
[[nodiscard]] CodePolicy default_policy();

/**
 * @brief The default policy with a lab's additions: each of @p deny becomes a denied symbol ("a given
 * implementation of the lab"), each of @p allow an exception.
 * @param deny regexes (a plain identifier matches a function of that name) @param allow regexes
 */
[[nodiscard]] CodePolicy lab_policy(const std::vector<std::string>& deny, const std::vector<std::string>& allow);

/** @brief One thing the policy denies, found in the object. */
struct Violation {
    std::string what;  ///< the symbol, header or instruction
    std::string why;   ///< the rule's reason
};

/** @brief What scanning an object found. */
struct ScanResult {
    std::vector<Violation> violations;         ///< empty: the object complies
    std::vector<std::string> defined_symbols;  ///< mangled names it defines (its kernels among them)
    std::string error;                         ///< the scan itself could not run (a tool missing, ...)
};

/**
 * @brief Scans a compiled object: its undefined and defined symbols (`nm`), its sections and host
 * instructions (`objdump`). (The headers its source included come from the build tool's recorded
 * dependencies, `ninja -t deps OBJECT`: the grader asks for them and checks them with check_policy().)
 * @param object the object file
 * @param policy what is allowed
 */
[[nodiscard]] ScanResult scan_object(const std::string& object, const CodePolicy& policy);

/**
 * @brief The same checks on text already in hand (for tests, and the pieces scan_object() collects).
 * @param undefined undefined symbols, demangled @param defined defined symbols, demangled
 * @param sections section names @param disassembly host disassembly @param headers included headers
 * @param policy what is allowed
 */
[[nodiscard]] std::vector<Violation> check_policy(const std::vector<std::string>& undefined,
                                                  const std::vector<std::string>& defined,
                                                  const std::vector<std::string>& sections,
                                                  const std::string& disassembly,
                                                  const std::vector<std::string>& headers, const CodePolicy& policy);

}  // namespace gpulab::grader
