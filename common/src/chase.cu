#include "labs/chase.hpp"

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "labs/cuda_check.hpp"
#include "labs/random.hpp"
#include "labs/timing.hpp"

namespace gpulab {

namespace {

__global__ void scatter_links(std::uint32_t* words, const std::uint32_t* next, std::size_t lines) {
    const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (i < lines) words[i * ChaseChain::kLineWords] = next[i] * static_cast<std::uint32_t>(ChaseChain::kLineWords);
}

__global__ void library_chase(const std::uint32_t* words, std::uint32_t start, std::int64_t steps, std::uint32_t* end) {
    std::uint32_t i = start;
    for (std::int64_t s = 0; s < steps; ++s) i = __ldcg(words + i);
    *end = i;
}

}  // namespace

ChaseChain::ChaseChain(std::size_t bytes, std::uint64_t seed) {
    const std::size_t lines = std::max<std::size_t>(2, bytes / kLineBytes);
    if (lines * kLineWords > 0xFFFFFFFFull) throw std::invalid_argument("ChaseChain: at most 16 GiB");
    // The lines in a random order (Fisher-Yates), each linked to the next and the last to the first: one
    // cycle through all of them.
    order_.resize(lines);
    for (std::size_t i = 0; i < lines; ++i) order_[i] = static_cast<std::uint32_t>(i);
    for (std::size_t i = lines - 1; i > 0; --i) std::swap(order_[i], order_[random_bits(seed, i) % (i + 1)]);
    std::vector<std::uint32_t> next_line(lines);
    for (std::size_t i = 0; i < lines; ++i) next_line[order_[i]] = order_[(i + 1) % lines];
    words_ = DeviceBuffer<std::uint32_t>(lines * kLineWords);
    CUDA_CHECK(cudaMemset(words_.data(), 0, words_.bytes()));
    DeviceBuffer<std::uint32_t> next(lines);
    CUDA_CHECK(cudaMemcpy(next.data(), next_line.data(), lines * sizeof(std::uint32_t), cudaMemcpyHostToDevice));
    scatter_links<<<static_cast<unsigned>((lines + 255) / 256), 256>>>(words_.data(), next.data(), lines);
    LABS_CHECK_LAUNCH();
    CUDA_CHECK(cudaStreamSynchronize(nullptr));
}

void launch_library_chase(const std::uint32_t* words, std::uint32_t start, std::int64_t steps, std::uint32_t* end,
                          cudaStream_t stream) {
    library_chase<<<1, 1, 0, stream>>>(words, start, steps, end);
    LABS_CHECK_LAUNCH();
}

ChaseLatency measure_chase_latency(const ChaseChain& chain, std::int64_t steps, int reps, ChaseLauncher launch,
                                   std::size_t first_position) {
    if (launch == nullptr) launch = launch_library_chase;
    if (steps < 1) throw std::invalid_argument("measure_chase_latency: steps must be at least 1");
    DeviceBuffer<std::uint32_t> end(1);
    ChaseLatency r;
    r.steps = steps;
    r.walked = true;
    std::size_t position = first_position % chain.lines();  // where the next walk starts
    const auto walk_from_here = [&](std::int64_t n, EventTimer* timer) {
        CUDA_CHECK(cudaMemset(end.data(), 0xFF, sizeof(std::uint32_t)));
        if (timer != nullptr) timer->start(nullptr);
        launch(chain.words(), chain.word_at(position), n, end.data(), nullptr);
        if (timer != nullptr) timer->stop(nullptr);
        std::uint32_t got = 0;
        CUDA_CHECK(cudaMemcpy(&got, end.data(), sizeof got, cudaMemcpyDeviceToHost));
        r.walked = r.walked && got == chain.end_after(position, n);
        position = (position + static_cast<std::size_t>(n)) % chain.lines();
    };
    const auto median_ms = [&](std::int64_t n) {
        std::vector<float> t;
        for (int i = 0; i < std::max(1, reps); ++i) {
            EventTimer timer;
            walk_from_here(n, &timer);
            t.push_back(timer.elapsed_ms());
        }
        std::sort(t.begin(), t.end());
        return double(t[t.size() / 2]);
    };
    const NvtxRange range("pointer chase");
    walk_from_here(static_cast<std::int64_t>(std::min<std::size_t>(chain.lines(), 4 * static_cast<std::size_t>(steps))),
                   nullptr);  // warm-up
    const double once = median_ms(steps), twice = median_ms(2 * steps);
    r.ns_per_load = (twice - once) * 1e6 / double(steps);
    return r;
}

}  // namespace gpulab
