// Counts instruction kinds in a cubin's kernels. The sm_90 opcodes below were read from cubins that ptxas made of
// one-instruction probe kernels and checked against cuobjdump's disassembly of the labs' own kernels (the test
// grader/tests/kernel_code_test.cpp compiles the probes again at build time, so a toolkit that encodes differently
// fails there, not in a student's grade).
#include "grader/kernel_code.hpp"

#include <elf.h>

#include <cstring>
#include <string>

namespace gpulab::grader {

namespace {

// The low 12 bits of an sm_90 instruction: the operation and its operand form.
constexpr std::uint32_t kOpHgmmaShared = 0x9f0;    // HGMMA, A from shared memory
constexpr std::uint32_t kOpHgmmaRegister = 0xdf0;  // HGMMA, A from registers
constexpr std::uint32_t kOpHmma = 0x23c;           // HMMA (mma.sync / wmma, FP16, BF16, TF32)
constexpr std::uint32_t kOpImma = 0x237;           // IMMA (mma.sync, integer)
constexpr std::uint32_t kOpUtmaldg = 0x5b4;        // UTMALDG
constexpr std::uint32_t kOpUblkcp = 0x3ba;         // UBLKCP
constexpr std::uint32_t kOpLdgsts = 0xfae;         // LDGSTS
constexpr std::uint32_t kOpRedgFloat = 0x9a6;      // REDG.F (a floating-point add to global memory: atomicAdd, no result)
constexpr std::uint32_t kOpAtomgFloat = 0x9a3;     // ATOMG.F (a floating-point add to global memory returning the old value)
constexpr std::uint32_t kOpMembar = 0x992;         // MEMBAR (any scope; the scope is in bits 13-14 of the high word)
constexpr std::uint32_t kOpAcqbulk = 0x82e;        // ACQBULK (griddepcontrol.wait)
constexpr std::uint32_t kOpPreexit = 0x82d;        // PREEXIT (griddepcontrol.launch_dependents)

// MEMBAR's scope bits: 0 at block scope (.CTA), set at GPU scope (0x2000: .SC.GPU; 0xa000: .ALL.GPU, as release and
// acquire fences compile) and wider.
constexpr std::uint64_t kMembarScopeBits = 0x6000;

bool is_elf(const char* image, std::size_t size) {
    return image != nullptr && size >= sizeof(Elf64_Ehdr) && std::memcmp(image, ELFMAG, SELFMAG) == 0 &&
           image[EI_CLASS] == ELFCLASS64;
}

void count(KernelCode& k, const unsigned char* text, std::size_t bytes) {
    for (std::size_t at = 0; at + 16 <= bytes; at += 16) {
        std::uint64_t low = 0, high = 0;
        std::memcpy(&low, text + at, sizeof low);
        std::memcpy(&high, text + at + 8, sizeof high);
        ++k.instructions;
        switch (static_cast<std::uint32_t>(low & 0xfff)) {
            case kOpHgmmaShared:
            case kOpHgmmaRegister: ++k.wgmma; break;
            case kOpHmma:
            case kOpImma: ++k.mma_sync; break;
            case kOpUtmaldg: ++k.tma_load; break;
            case kOpUblkcp: ++k.bulk_copy; break;
            case kOpLdgsts: ++k.cp_async; break;
            case kOpRedgFloat:
            case kOpAtomgFloat: ++k.float_atomics; break;
            case kOpMembar: k.gpu_fences += (high & kMembarScopeBits) != 0 ? 1u : 0u; break;
            case kOpAcqbulk: ++k.dependency_waits; break;
            case kOpPreexit: ++k.dependents_launched; break;
            default: break;
        }
    }
}

}  // namespace

int cubin_sm(const char* image, std::size_t size) {
    if (!is_elf(image, size)) return 0;
    const auto* eh = reinterpret_cast<const Elf64_Ehdr*>(image);
    return static_cast<int>((eh->e_flags >> 8) & 0xff);  // EF_CUDA_SM: the SM version in bits 8-15
}

std::map<std::string, KernelCode> kernel_code_of_cubin(const char* image, std::size_t size) {
    std::map<std::string, KernelCode> out;
    if (!is_elf(image, size)) return out;
    const auto* eh = reinterpret_cast<const Elf64_Ehdr*>(image);
    if (eh->e_shoff == 0 || eh->e_shoff + std::size_t(eh->e_shnum) * sizeof(Elf64_Shdr) > size || eh->e_shstrndx >= eh->e_shnum)
        return out;
    const int sm = cubin_sm(image, size);
    const auto* sh = reinterpret_cast<const Elf64_Shdr*>(image + eh->e_shoff);
    const Elf64_Shdr& names = sh[eh->e_shstrndx];
    for (int i = 0; i < eh->e_shnum; ++i) {
        if (names.sh_offset + sh[i].sh_name >= size) continue;
        const char* n = image + names.sh_offset + sh[i].sh_name;
        const std::size_t room = size - (names.sh_offset + sh[i].sh_name);
        const std::string name(n, strnlen(n, room));
        // A kernel's code is the section ".text.<mangled name>"; device functions that are not inlined have sections
        // of their own too, and are counted under their names.
        if (name.rfind(".text.", 0) != 0 || sh[i].sh_type != SHT_PROGBITS) continue;
        if (sh[i].sh_offset > size || sh[i].sh_size > size - sh[i].sh_offset) continue;
        KernelCode& k = out[name.substr(6)];
        k.sm = sm;
        k.known = sm == 90;
        if (k.known) count(k, reinterpret_cast<const unsigned char*>(image + sh[i].sh_offset), sh[i].sh_size);
    }
    return out;
}

}  // namespace gpulab::grader
