// Lab 09 reference (work in progress: the program cache and the policy; the bucketed and specialised kernels
// come with the GPU run).
// The cache: programs by a hash of every part of their key, the most recently used in memory (a list in use
// order and a map into it), all of them on disk as one file each. A file holds a magic word, the lengths, a
// checksum of the program, the whole key (a hash can collide; the key cannot) and the program. It is written
// to a temporary file in the same directory, flushed, and renamed over the final name: rename is atomic, so a
// reader — this process or another — sees the old file or the new one, never half of one. On reading, every
// field is checked; a file that fails is reported, never used, and replaced by a fresh build.
// The policy: the strategy with the least P + r·T for the r calls still expected (lower index on a tie).
#include <atomic>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <list>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <unordered_map>

#include <unistd.h>

#include "shapes.hpp"

namespace {

constexpr char kMagic[8] = {'L', 'A', 'B', 'P', 'R', 'O', 'G', '1'};

std::uint64_t fnv1a(const void* data, std::size_t n, std::uint64_t h = 0xcbf29ce484222325ull) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

// The key as bytes: each part with its length in front, so that ("ab", "c") and ("a", "bc") differ.
std::string serialise(const ProgramKey& k) {
    std::string out;
    for (const std::string& part : {k.source, k.options, k.arch, std::to_string(k.driver)}) {
        const std::uint64_t n = part.size();
        out.append(reinterpret_cast<const char*>(&n), sizeof n);
        out += part;
    }
    return out;
}

// 128 bits of hash, as 32 hex digits: the file's name.
std::string name_of(const std::string& key_bytes) {
    char hex[33];
    std::snprintf(hex, sizeof hex, "%016llx%016llx", (unsigned long long)fnv1a(key_bytes.data(), key_bytes.size()),
                  (unsigned long long)fnv1a(key_bytes.data(), key_bytes.size(), 0x84222325cbf29ce4ull));
    return hex;
}

struct Header {
    char magic[8];
    std::uint64_t key_bytes;
    std::uint64_t image_bytes;
    std::uint64_t image_checksum;
};

}  // namespace

struct ProgramCache::Impl {
    std::filesystem::path dir;
    std::size_t capacity;
    std::mutex mutex;
    using Entry = std::pair<std::string, std::shared_ptr<const std::vector<char>>>;  // name, program
    std::list<Entry> lru;  // most recently used first
    std::unordered_map<std::string, std::list<Entry>::iterator> where;

    std::shared_ptr<const std::vector<char>> remember(const std::string& name, std::shared_ptr<const std::vector<char>> image) {
        if (auto it = where.find(name); it != where.end()) lru.erase(it->second);
        lru.emplace_front(name, std::move(image));
        where[name] = lru.begin();
        while (lru.size() > capacity) {
            where.erase(lru.back().first);
            lru.pop_back();
        }
        return lru.front().second;
    }

    // The file's program when every field checks out; "" in `why` then, else what is wrong (the file exists).
    std::shared_ptr<const std::vector<char>> read(const std::filesystem::path& path, const std::string& key_bytes,
                                                  std::string& why) {
        std::ifstream in(path, std::ios::binary);
        if (!in) return nullptr;  // not there: a plain miss
        Header h{};
        if (!in.read(reinterpret_cast<char*>(&h), sizeof h)) return why = "shorter than its header", nullptr;
        if (std::memcmp(h.magic, kMagic, sizeof kMagic) != 0) return why = "not a program file (magic word)", nullptr;
        const auto size = std::filesystem::file_size(path);
        if (size != sizeof h + h.key_bytes + h.image_bytes)
            return why = "truncated or extended: " + std::to_string(size) + " bytes, its header says " +
                         std::to_string(sizeof h + h.key_bytes + h.image_bytes),
                   nullptr;
        std::string key(h.key_bytes, '\0');
        auto image = std::make_shared<std::vector<char>>(h.image_bytes);
        if (!in.read(key.data(), std::streamsize(key.size())) || !in.read(image->data(), std::streamsize(image->size())))
            return why = "could not be read whole", nullptr;
        if (key != key_bytes) return why = "holds another key (a hash collision)", nullptr;
        if (fnv1a(image->data(), image->size()) != h.image_checksum) return why = "its program fails its checksum", nullptr;
        return image;
    }

    // Temporary file, flushed, renamed over the final name.
    void write(const std::filesystem::path& path, const std::string& key_bytes, const std::vector<char>& image) {
        static std::atomic<unsigned> counter{0};
        const std::filesystem::path tmp =
            path.string() + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
        Header h{};
        std::memcpy(h.magic, kMagic, sizeof kMagic);
        h.key_bytes = key_bytes.size();
        h.image_bytes = image.size();
        h.image_checksum = fnv1a(image.data(), image.size());
        {
            std::FILE* f = std::fopen(tmp.c_str(), "wb");
            if (f == nullptr) throw std::runtime_error("program cache: cannot write " + tmp.string());
            const bool ok = std::fwrite(&h, sizeof h, 1, f) == 1 &&
                            std::fwrite(key_bytes.data(), 1, key_bytes.size(), f) == key_bytes.size() &&
                            std::fwrite(image.data(), 1, image.size(), f) == image.size() && std::fflush(f) == 0 &&
                            ::fsync(::fileno(f)) == 0;
            std::fclose(f);
            if (!ok) {
                std::filesystem::remove(tmp);
                throw std::runtime_error("program cache: writing " + tmp.string() + " failed");
            }
        }
        std::filesystem::rename(tmp, path);
    }
};

ProgramCache::ProgramCache(std::filesystem::path dir, std::size_t memory_entries)
    : impl_(std::make_unique<Impl>()) {
    if (memory_entries < 1) throw std::invalid_argument("ProgramCache: keep at least one program in memory");
    std::filesystem::create_directories(dir);
    impl_->dir = std::move(dir);
    impl_->capacity = memory_entries;
}

ProgramCache::~ProgramCache() = default;

CacheResult ProgramCache::get(const ProgramKey& key, const std::function<std::vector<char>()>& build) {
    const std::string key_bytes = serialise(key), name = name_of(key_bytes);
    const std::filesystem::path path = impl_->dir / (name + ".prog");
    std::lock_guard<std::mutex> lock(impl_->mutex);
    CacheResult r;
    if (auto it = impl_->where.find(name); it != impl_->where.end()) {
        r.image = impl_->remember(name, it->second->second);
        r.outcome = CacheOutcome::memory_hit;
        return r;
    }
    std::string why;
    if (auto image = impl_->read(path, key_bytes, why)) {
        r.image = impl_->remember(name, std::move(image));
        r.outcome = CacheOutcome::disk_hit;
        return r;
    }
    auto image = std::make_shared<const std::vector<char>>(build());
    impl_->write(path, key_bytes, *image);
    r.image = impl_->remember(name, std::move(image));
    r.outcome = why.empty() ? CacheOutcome::built : CacheOutcome::rebuilt_corrupt;
    r.note = why.empty() ? "" : path.filename().string() + " " + why;
    return r;
}

int choose_strategy(const std::array<StrategyCost, 3>& costs, double expected_calls) {
    int best = 0;
    for (int s = 1; s < 3; ++s)
        if (costs[s].prep_ms + expected_calls * costs[s].call_ms < costs[best].prep_ms + expected_calls * costs[best].call_ms)
            best = s;
    return best;
}

// ---- not written yet (the GPU part of the lab; no check calls them on this branch) ----

void launch_gemm_bucketed(const Gemm&, std::span<const int>, cudaStream_t) {
    throw std::logic_error("launch_gemm_bucketed: not written yet (wip/lab09)");
}

void launch_gemm_specialized(const Gemm&, ProgramCache&, cudaStream_t) {
    throw std::logic_error("launch_gemm_specialized: not written yet (wip/lab09)");
}
