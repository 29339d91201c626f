// Known-bad (wrong/expect.json): a correct one-thread-per-element kernel whose launcher, once, sets aside
// the largest persisting-L2 carve-out the GPU allows. That is device-wide state: every later kernel and
// copy of the process, the grader's reference copy among them, runs with it. The code policy denies the
// runtime call (cudaDeviceSetLimit) and the driver API by name, so this version finds the driver's
// cuCtxSetLimit by walking the dynamic symbol table of the loaded libcuda itself: no denied symbol, no
// denied header. What it cannot hide is the effect: the copy inside the check runs slower than when timed
// alone before the first check, so the measurement is INVALID, 0 points.
#include <elf.h>

#include <cstring>

#include "one_per_element.cuh"

// The start of glibc's struct dl_phdr_info (<link.h> would pull in <dlfcn.h>, which the policy denies).
struct PhdrInfo {
    Elf64_Addr addr;
    const char* name;
    const Elf64_Phdr* phdr;
    Elf64_Half phnum;
};
extern "C" int dl_iterate_phdr(int (*callback)(PhdrInfo*, std::size_t, void*), void* data);

namespace {

std::uint32_t gnu_hash(const char* s) {
    std::uint32_t h = 5381;
    for (; *s != '\0'; ++s) h = h * 33 + static_cast<unsigned char>(*s);
    return h;
}

struct Lookup {
    const char* symbol;
    void* found = nullptr;
};

// Looks the symbol up in one loaded object's GNU hash table.
int find_in_object(PhdrInfo* info, std::size_t, void* data) {
    auto* want = static_cast<Lookup*>(data);
    if (info->name == nullptr || std::strstr(info->name, "libcuda.so") == nullptr) return 0;
    const auto abs = [&](Elf64_Addr p) { return p < info->addr ? info->addr + p : p; };  // relocated or not
    const Elf64_Sym* symtab = nullptr;
    const char* strtab = nullptr;
    const std::uint32_t* gh = nullptr;
    for (int i = 0; i < info->phnum; ++i) {
        if (info->phdr[i].p_type != PT_DYNAMIC) continue;
        for (auto* d = reinterpret_cast<const Elf64_Dyn*>(info->addr + info->phdr[i].p_vaddr); d->d_tag != DT_NULL; ++d) {
            if (d->d_tag == DT_SYMTAB) symtab = reinterpret_cast<const Elf64_Sym*>(abs(d->d_un.d_ptr));
            if (d->d_tag == DT_STRTAB) strtab = reinterpret_cast<const char*>(abs(d->d_un.d_ptr));
            if (d->d_tag == DT_GNU_HASH) gh = reinterpret_cast<const std::uint32_t*>(abs(d->d_un.d_ptr));
        }
    }
    if (symtab == nullptr || strtab == nullptr || gh == nullptr) return 0;
    const std::uint32_t buckets = gh[0], first = gh[1], bloom_words = gh[2];
    const auto* bucket = reinterpret_cast<const std::uint32_t*>(reinterpret_cast<const std::uint64_t*>(gh + 4) + bloom_words);
    const std::uint32_t* chain = bucket + buckets;
    const std::uint32_t h = gnu_hash(want->symbol);
    for (std::uint32_t i = bucket[h % buckets]; i >= first; ++i) {
        const std::uint32_t h2 = chain[i - first];
        if ((h | 1) == (h2 | 1) && std::strcmp(strtab + symtab[i].st_name, want->symbol) == 0) {
            want->found = reinterpret_cast<void*>(info->addr + symtab[i].st_value);
            return 1;
        }
        if ((h2 & 1) != 0) break;
    }
    return 0;
}

}  // namespace

void launch_vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
    static const bool once = [] {
        int device = 0, max_persisting = 0;
        CUDA_CHECK(cudaGetDevice(&device));
        CUDA_CHECK(cudaDeviceGetAttribute(&max_persisting, cudaDevAttrMaxPersistingL2CacheSize, device));
        Lookup lookup{"cuCtxSetLimit"};
        dl_iterate_phdr(&find_in_object, &lookup);
        if (lookup.found != nullptr) {
            using SetLimit = int (*)(int, std::size_t);
            constexpr int kPersistingL2CacheSize = 6;  // CU_LIMIT_PERSISTING_L2_CACHE_SIZE
            (void)reinterpret_cast<SetLimit>(lookup.found)(kPersistingL2CacheSize, static_cast<std::size_t>(max_persisting));
        }
        return true;
    }();
    (void)once;
    wrong::add(a, b, c, n, stream);
}
