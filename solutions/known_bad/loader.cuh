// Shared by known-bad versions (labs/NN/wrong/) that reach a library (libcuda, cuBLAS) behind the code policy's
// back: finds an exported function of a loaded library by its name, walking the loader's list of loaded objects
// and the library's own GNU hash table — no dlopen, dlsym or driver-API symbol in the object. The including file says
// how it finds the loaded objects, before including:
//   WRONG_WALK_PHDR 1  dl_iterate_phdr, the C library's iterator (the default code policy denies it)
//   WRONG_WALK_PHDR 0  the loader's own r_debug (_r_debug, which ld.so exports for debuggers): the head of the
//                      list of loaded objects, reached as plain data, with no function call at all
#pragma once

#include <elf.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#ifndef WRONG_WALK_PHDR
#error "define WRONG_WALK_PHDR (1: dl_iterate_phdr, 0: the loader's r_debug) before including loader.cuh"
#endif

#if WRONG_WALK_PHDR
// The start of glibc's struct dl_phdr_info (<link.h> would pull in <dlfcn.h>).
struct PhdrInfo {
    Elf64_Addr addr;
    const char* name;
    const Elf64_Phdr* phdr;
    Elf64_Half phnum;
};
extern "C" int dl_iterate_phdr(int (*callback)(PhdrInfo*, std::size_t, void*), void* data);
#else
// The start of glibc's struct link_map and struct r_debug (<link.h>), and the loader's r_debug itself.
struct LinkMap {
    Elf64_Addr l_addr;
    const char* l_name;
    const Elf64_Dyn* l_ld;
    const LinkMap* l_next;
    const LinkMap* l_prev;
};
struct RDebug {
    int r_version;
    const LinkMap* r_map;
};
extern "C" RDebug _r_debug;
#endif

namespace wrong {

inline std::uint32_t gnu_hash(const char* s) {
    std::uint32_t h = 5381;
    for (; *s != '\0'; ++s) h = h * 33 + static_cast<unsigned char>(*s);
    return h;
}

// Looks `symbol` up in the GNU hash table of one loaded object (load address, dynamic section).
inline void* find_in_object(Elf64_Addr base, const Elf64_Dyn* dynamic, const char* symbol) {
    const auto abs = [&](Elf64_Addr p) { return p < base ? base + p : p; };  // relocated or not
    const Elf64_Sym* symtab = nullptr;
    const char* strtab = nullptr;
    const std::uint32_t* gh = nullptr;
    for (const Elf64_Dyn* d = dynamic; d->d_tag != DT_NULL; ++d) {
        if (d->d_tag == DT_SYMTAB) symtab = reinterpret_cast<const Elf64_Sym*>(abs(d->d_un.d_ptr));
        if (d->d_tag == DT_STRTAB) strtab = reinterpret_cast<const char*>(abs(d->d_un.d_ptr));
        if (d->d_tag == DT_GNU_HASH) gh = reinterpret_cast<const std::uint32_t*>(abs(d->d_un.d_ptr));
    }
    if (symtab == nullptr || strtab == nullptr || gh == nullptr) return nullptr;
    const std::uint32_t buckets = gh[0], first = gh[1], bloom_words = gh[2];
    const auto* bucket = reinterpret_cast<const std::uint32_t*>(reinterpret_cast<const std::uint64_t*>(gh + 4) + bloom_words);
    const std::uint32_t* chain = bucket + buckets;
    const std::uint32_t h = gnu_hash(symbol);
    for (std::uint32_t i = bucket[h % buckets]; i >= first; ++i) {
        const std::uint32_t h2 = chain[i - first];
        if ((h | 1) == (h2 | 1) && std::strcmp(strtab + symtab[i].st_name, symbol) == 0)
            return reinterpret_cast<void*>(base + symtab[i].st_value);
        if ((h2 & 1) != 0) break;
    }
    return nullptr;
}

/** @brief The address of the exported function @p symbol of the loaded library whose path contains
 *  @p library (e.g. "libcuda.so"), or null. */
inline void* find_symbol(const char* library, const char* symbol) {
#if WRONG_WALK_PHDR
    struct Lookup {
        const char* library;
        const char* symbol;
        void* found = nullptr;
    } lookup{library, symbol};
    dl_iterate_phdr(
        [](PhdrInfo* info, std::size_t, void* data) -> int {
            auto* want = static_cast<Lookup*>(data);
            if (info->name == nullptr || std::strstr(info->name, want->library) == nullptr) return 0;
            for (int i = 0; i < info->phnum; ++i) {
                if (info->phdr[i].p_type != PT_DYNAMIC) continue;
                const auto* dynamic = reinterpret_cast<const Elf64_Dyn*>(info->addr + info->phdr[i].p_vaddr);
                want->found = find_in_object(info->addr, dynamic, want->symbol);
            }
            return want->found != nullptr ? 1 : 0;
        },
        &lookup);
    return lookup.found;
#else
    for (const LinkMap* m = _r_debug.r_map; m != nullptr; m = m->l_next) {
        if (m->l_name == nullptr || std::strstr(m->l_name, library) == nullptr || m->l_ld == nullptr) continue;
        if (void* found = find_in_object(m->l_addr, m->l_ld, symbol)) return found;
    }
    return nullptr;
#endif
}

}  // namespace wrong
