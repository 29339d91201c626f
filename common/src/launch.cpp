// Launch-configuration helpers: resident blocks from the occupancy API, cached per kernel.
#include "labs/launch.hpp"

#include <map>
#include <mutex>
#include <tuple>

namespace gpulab {

unsigned resident_blocks(const void* kernel, int block_threads, std::size_t dynamic_smem) {
    // A launcher may ask on every launch: the answer depends only on the kernel, its block and the
    // device, so it is asked once per combination.
    using Key = std::tuple<int, const void*, int, std::size_t>;
    static std::mutex mutex;
    static std::map<Key, unsigned> cache;
    int dev = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    const Key key{dev, kernel, block_threads, dynamic_smem};
    const std::lock_guard<std::mutex> lock(mutex);
    if (const auto it = cache.find(key); it != cache.end()) return it->second;
    int sms = 0, per_sm = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block_threads, dynamic_smem));
    const unsigned blocks = static_cast<unsigned>(sms) * static_cast<unsigned>(per_sm > 0 ? per_sm : 1);
    cache.emplace(key, blocks);
    return blocks;
}

}  // namespace gpulab
