// The timing protocol: events, warm-up, L2 flush, stable median, interleaved A/B.
#include "labs/timing.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>

#include <nvtx3/nvToolsExt.h>

#include "labs/cuda_check.hpp"

namespace gpulab {

EventTimer::EventTimer() {
    CUDA_CHECK(cudaEventCreate(&start_));
    CUDA_CHECK(cudaEventCreate(&stop_));
}

EventTimer::~EventTimer() {
    (void)cudaEventDestroy(start_);
    (void)cudaEventDestroy(stop_);
}

void EventTimer::start(cudaStream_t stream) { CUDA_CHECK(cudaEventRecord(start_, stream)); }
void EventTimer::stop(cudaStream_t stream) { CUDA_CHECK(cudaEventRecord(stop_, stream)); }

float EventTimer::elapsed_ms() {
    CUDA_CHECK(cudaEventSynchronize(stop_));
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
    return ms;
}

L2Flusher::L2Flusher(std::size_t l2_bytes)
    : buffer_(std::max<std::size_t>(2 * l2_bytes, std::size_t(8) << 20)) {}

void L2Flusher::flush(cudaStream_t stream) {
    // A memset writes every line of a buffer twice the L2's size: whatever the next kernel reads was
    // evicted. (Writes, not reads, so that the flush cannot be served from the cache itself.)
    CUDA_CHECK(cudaMemsetAsync(buffer_.data(), 0x5A, buffer_.bytes(), stream));
}

NvtxRange::NvtxRange(const char* name) { nvtxRangePushA(name); }
NvtxRange::~NvtxRange() { nvtxRangePop(); }

namespace {

double quantile(const std::vector<double>& sorted, double q) {
    if (sorted.empty()) return 0;
    const double pos = q * static_cast<double>(sorted.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(pos));
    const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
    const double f = pos - static_cast<double>(lo);
    return sorted[lo] * (1 - f) + sorted[hi] * f;
}

// Events for one batch of repetitions of several interleaved workloads.
struct EventPool {
    std::vector<cudaEvent_t> events;
    explicit EventPool(std::size_t n) : events(n, nullptr) {
        for (auto& e : events) CUDA_CHECK(cudaEventCreate(&e));
    }
    ~EventPool() {
        for (auto e : events) (void)cudaEventDestroy(e);
    }
    EventPool(const EventPool&) = delete;
    EventPool& operator=(const EventPool&) = delete;
};

TimingObserver& observer() {
    static TimingObserver o;
    return o;
}

bool done(const std::vector<std::vector<double>>& samples, const TimingOptions& opts, double total_ms) {
    const std::size_t n = samples.front().size();
    if (n < static_cast<std::size_t>(opts.min_reps)) return false;
    if (n >= static_cast<std::size_t>(opts.max_reps) || total_ms >= opts.max_total_ms) return true;
    return std::all_of(samples.begin(), samples.end(), [&](const std::vector<double>& s) {
        const TimingResult r = summarize(s);
        return r.rel_ci <= opts.max_rel_ci;
    });
}

// Times each workload of `work` in turn (A, B, A, B, ...) until the stopping rule holds for all.
std::vector<TimingResult> time_interleaved(const std::vector<const Enqueue*>& work, const TimingOptions& opts,
                                           cudaStream_t stream, L2Flusher* flusher, const TimingHooks* hooks) {
    NvtxRange range(opts.label.c_str());
    std::unique_ptr<L2Flusher> own;
    if (opts.flush_l2 && flusher == nullptr) {
        int dev = 0;
        CUDA_CHECK(cudaGetDevice(&dev));
        int l2 = 0;
        CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
        own = std::make_unique<L2Flusher>(static_cast<std::size_t>(l2));
        flusher = own.get();
    }
    {
        NvtxRange warm("warm-up");
        for (int i = 0; i < opts.warmup; ++i)
            for (const Enqueue* w : work) (*w)(stream);
        CUDA_CHECK(cudaStreamSynchronize(stream));
    }
    const std::size_t k = work.size();
    std::vector<std::vector<double>> samples(k);
    const std::size_t kBatch = static_cast<std::size_t>(std::max(1, opts.batch));
    EventPool pool(2 * k * kBatch);
    double total_ms = 0;
    while (!done(samples, opts, total_ms)) {
        const int first_rep = static_cast<int>(samples.front().size());
        for (std::size_t rep = 0; rep < kBatch; ++rep) {
            for (std::size_t w = 0; w < k; ++w) {
                const int timed_rep = first_rep + static_cast<int>(rep);
                if (hooks != nullptr && hooks->before) hooks->before(w, timed_rep, stream);
                if (opts.flush_l2) flusher->flush(stream);
                if (opts.hold_us > 0) hold_stream(stream, opts.hold_us);
                const std::size_t e = 2 * (rep * k + w);
                CUDA_CHECK(cudaEventRecord(pool.events[e], stream));
                (*work[w])(stream);
                CUDA_CHECK(cudaEventRecord(pool.events[e + 1], stream));
                if (hooks != nullptr && hooks->after) hooks->after(w, timed_rep, stream);
            }
        }
        CUDA_CHECK(cudaStreamSynchronize(stream));
        for (std::size_t rep = 0; rep < kBatch; ++rep) {
            for (std::size_t w = 0; w < k; ++w) {
                const std::size_t e = 2 * (rep * k + w);
                float ms = 0;
                CUDA_CHECK(cudaEventElapsedTime(&ms, pool.events[e], pool.events[e + 1]));
                samples[w].push_back(ms);
                total_ms += ms;
            }
        }
        if (observer()) observer()(opts.label, static_cast<int>(samples.front().size()), opts.max_reps);
    }
    std::vector<TimingResult> out;
    for (auto& s : samples) {
        TimingResult r = summarize(s);
        r.converged = r.rel_ci <= opts.max_rel_ci;
        out.push_back(r);
    }
    return out;
}

}  // namespace

void set_timing_observer(TimingObserver o) { observer() = std::move(o); }

TimingResult summarize(std::vector<double> samples) {
    TimingResult r;
    if (samples.empty()) return r;
    std::sort(samples.begin(), samples.end());
    r.count = static_cast<int>(samples.size());
    r.median_ms = quantile(samples, 0.5);
    r.q1_ms = quantile(samples, 0.25);
    r.q3_ms = quantile(samples, 0.75);
    r.min_ms = samples.front();
    r.rel_ci = r.median_ms > 0 ? 1.57 * (r.q3_ms - r.q1_ms) / std::sqrt(static_cast<double>(r.count)) / r.median_ms
                               : 0.0;
    return r;
}

void to_json(nlohmann::json& j, const TimingResult& t) {
    j = nlohmann::json{{"median_ms", t.median_ms}, {"q1_ms", t.q1_ms}, {"q3_ms", t.q3_ms},
                       {"min_ms", t.min_ms},       {"count", t.count}, {"rel_ci", t.rel_ci},
                       {"converged", t.converged}};
}

TimingResult time_region(const Enqueue& work, const TimingOptions& opts, cudaStream_t stream, L2Flusher* flusher) {
    return time_interleaved({&work}, opts, stream, flusher, nullptr).front();
}

AbResult time_ab(const Enqueue& a, const Enqueue& b, const TimingOptions& opts, cudaStream_t stream,
                 L2Flusher* flusher, const TimingHooks* hooks) {
    const auto r = time_interleaved({&a, &b}, opts, stream, flusher, hooks);
    AbResult ab;
    ab.a = r[0];
    ab.b = r[1];
    ab.ratio = ab.b.median_ms > 0 ? ab.a.median_ms / ab.b.median_ms : 0.0;
    return ab;
}

double host_us_per_call(const std::function<void(int i)>& call, cudaStream_t stream, int calls) {
    CUDA_CHECK(cudaStreamSynchronize(stream));
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < calls; ++i) call(i);
    CUDA_CHECK(cudaStreamSynchronize(stream));
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / calls;
}

double median_of(std::vector<double> values) {
    if (values.empty()) return 0;
    std::nth_element(values.begin(), values.begin() + values.size() / 2, values.end());
    return values[values.size() / 2];
}

}  // namespace gpulab
