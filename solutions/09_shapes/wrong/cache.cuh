// Shared by lab 09's known-bad versions: a plain program cache (a text header — key hash, length, checksum — then
// the bytes; written to a temporary file and renamed) and policy, each with at most one defect switched on by
// the including file, which defines:
//   kNoChecksum    the checksum is stored but not compared: a changed byte goes unnoticed
//   kFifo          memory drops the program stored first, not the least recently used
//   kIgnoreDriver  the driver version is left out of the key
//   kIgnoreNvrtc   the compiler's (NVRTC's) version is left out of the key
//   kMinCallTime   the policy takes the fastest call and ignores what is left to prepare
#include <cstdio>
#include <deque>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

#include <unistd.h>

#include "shapes.hpp"

namespace wrong {

std::uint64_t hash(const std::string& s) {
    std::uint64_t h = 1469598103934665603ull;
    for (const unsigned char c : s) h = (h ^ c) * 1099511628211ull;
    return h;
}

std::string key_text(const ProgramKey& k) {
    return k.source + '\x1f' + k.options + '\x1f' + k.arch + (kIgnoreDriver ? std::string() : '\x1f' + std::to_string(k.driver)) +
           (kIgnoreNvrtc ? std::string() : '\x1f' + std::to_string(k.nvrtc));
}

}  // namespace wrong

void launch_gemm_bucketed(const Gemm&, std::span<const int>, cudaStream_t) { throw std::logic_error("not part of this version"); }
void launch_gemm_specialized(const Gemm&, ProgramCache&, cudaStream_t) { throw std::logic_error("not part of this version"); }

struct ProgramCache::Impl {
    std::filesystem::path dir;
    std::size_t capacity = 1;
    std::map<std::string, std::shared_ptr<const std::vector<char>>> memory;
    std::deque<std::string> order;  // front: the first to leave
};

ProgramCache::ProgramCache(std::filesystem::path dir, std::size_t memory_entries) : impl_(std::make_unique<Impl>()) {
    std::filesystem::create_directories(dir);
    impl_->dir = std::move(dir);
    impl_->capacity = memory_entries;
}

ProgramCache::~ProgramCache() = default;

CacheResult ProgramCache::get(const ProgramKey& key, const std::function<std::vector<char>()>& build) {
    const std::string text = wrong::key_text(key), name = std::to_string(wrong::hash(text));
    const auto keep = [&](std::shared_ptr<const std::vector<char>> image) {
        if (!impl_->memory.count(name)) impl_->order.push_back(name);
        else if (!kFifo) {  // most recently used goes to the back
            impl_->order.erase(std::find(impl_->order.begin(), impl_->order.end(), name));
            impl_->order.push_back(name);
        }
        impl_->memory[name] = image;
        while (impl_->order.size() > impl_->capacity) {
            impl_->memory.erase(impl_->order.front());
            impl_->order.pop_front();
        }
        return image;
    };
    if (auto it = impl_->memory.find(name); it != impl_->memory.end()) return {keep(it->second), CacheOutcome::memory_hit, ""};
    const std::filesystem::path path = impl_->dir / (name + ".bin");
    std::string problem;
    if (std::ifstream in{path, std::ios::binary}) {
        std::ostringstream all;
        all << in.rdbuf();
        const std::string data = all.str();
        std::istringstream head(data);
        std::uint64_t size = 0, sum = 0;
        std::string stored_key_hash;
        head >> stored_key_hash >> size >> sum;
        const std::size_t start = std::size_t(head.tellg()) + 1;
        if (!head || stored_key_hash != name || data.size() != start + size) problem = "wrong length";
        else {
            auto image = std::make_shared<std::vector<char>>(data.begin() + std::ptrdiff_t(start), data.end());
            if (!kNoChecksum && wrong::hash(std::string(image->begin(), image->end())) != sum) problem = "checksum";
            else return {keep(image), CacheOutcome::disk_hit, ""};
        }
    }
    auto image = std::make_shared<const std::vector<char>>(build());
    const std::filesystem::path tmp = path.string() + "." + std::to_string(::getpid()) + ".tmp";
    {
        std::ofstream out(tmp, std::ios::binary);
        out << name << ' ' << image->size() << ' ' << wrong::hash(std::string(image->begin(), image->end())) << '\n';
        out.write(image->data(), std::streamsize(image->size()));
    }
    std::filesystem::rename(tmp, path);
    return {keep(image), problem.empty() ? CacheOutcome::built : CacheOutcome::rebuilt_corrupt, problem};
}

int choose_strategy(const std::array<StrategyCost, 3>& costs, double expected_calls) {
    int best = 0;
    for (int s = 1; s < 3; ++s) {
        const double a = kMinCallTime ? costs[s].call_ms : costs[s].prep_ms + expected_calls * costs[s].call_ms;
        const double b = kMinCallTime ? costs[best].call_ms : costs[best].prep_ms + expected_calls * costs[best].call_ms;
        if (a < b) best = s;
    }
    return best;
}
