/**
 * @file streams.hpp
 * @brief Lab 01 interface: a host program that pushes a large BF16 tensor through the GPU in chunks —
 * copy in, a kernel, copy out — on several streams, ordered by events, from and to pinned host memory it
 * allocates once; the three clocks of one call; and a watchdog that turns a hang into a report.
 *
 * FROZEN: do not edit. Host tensors are `std::uint16_t` arrays of BF16 bits; device tensors are
 * `__nv_bfloat16`. The given kernel (launch_work) computes every element independently, so any chunking
 * gives the same bits as the serial path — unless a chunk is read before it arrived or overwritten before it
 * was used.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

// ---- Given (baseline.cu) --------------------------------------------------------------------------

/**
 * @brief The work: out[i] = `iters` steps of a fixed FP32 recurrence on in[i], rounded to BF16. Its time
 * grows with @p iters, so it can be set near a chunk's copy time. Enqueued on @p stream.
 * @param in input (device) @param out output (device; may not alias @p in) @param n elements
 * @param iters work per element (≥ 0) @param stream stream
 */
void launch_work(const __nv_bfloat16* in, __nv_bfloat16* out, std::size_t n, int iters, cudaStream_t stream);

/**
 * @brief The serial path: one stream, pageable host memory, synchronous copies — copy all of @p in to the
 * device, run the work, copy all of the result back to @p out. The baseline for time; the results must
 * equal its bits.
 * @param in input (host, pageable) @param out output (host, pageable) @param n elements @param iters work
 */
void run_serial(const std::uint16_t* in, std::uint16_t* out, std::size_t n, int iters);

/**
 * @brief A pipeline's timeline hook, for the lab's bench (`lab01_bench --timeline`): a pipeline calls
 * point(stream) right before each operation it enqueues on a stream (a copy or a kernel) and done(stream) right
 * after it.
 *
 * By default point() and done() only count. After record_timeline() they record a CUDA event around each
 * operation, and timeline() returns when each one ran — the picture of your pipeline that figures.py draws.
 *
 * The grader does not use it. Its chaos — a spin kernel of random length and a random host delay before every
 * copy and kernel, on the stream the operation really goes to (each stream slow, normal or rushed) — goes in at
 * each copy and kernel your code enqueues, without asking the pipeline, and its checks grade what the GPU ran:
 * nothing graded depends on these calls or their counts.
 */
class Chaos {
public:
    /** @brief Counts only. */
    Chaos() = default;
    ~Chaos();
    Chaos(const Chaos&) = delete;
    Chaos& operator=(const Chaos&) = delete;
    /** @brief Records a timeline from now on (events around every operation). */
    void record_timeline();
    /** @brief Call right before enqueuing an operation on @p stream. @param stream the stream */
    void point(cudaStream_t stream);
    /** @brief Call right after enqueuing that operation. @param stream the same stream */
    void done(cudaStream_t stream);
    /** @brief How many times point() was called. */
    [[nodiscard]] std::size_t points() const noexcept { return points_; }
    /** @brief How many times done() was called. */
    [[nodiscard]] std::size_t dones() const noexcept { return dones_; }

    /** @brief One operation of the timeline. */
    struct Span {
        int stream = 0;        ///< the stream, numbered in the order first seen (0, 1, 2, ...)
        double start_ms = 0;   ///< when it started, from the first operation's start
        double end_ms = 0;     ///< when it ended
    };
    /** @brief The recorded operations (waits for their last events first), in the order enqueued. */
    [[nodiscard]] std::vector<Span> timeline() const;

private:
    bool timeline_ = false;
    std::size_t points_ = 0, dones_ = 0;
    std::map<cudaStream_t, int> numbers_;
    struct Recorded {
        int stream = 0;
        cudaEvent_t start = nullptr, end = nullptr;
    };
    std::vector<Recorded> recorded_;
    std::map<cudaStream_t, std::size_t> open_;  // the stream's operation waiting for its done()
};

/**
 * @brief A program that hangs: a consumer stream runs a kernel that waits for a flag that a producer stream
 * should set — but the producer's release is never enqueued (the bug). Nothing fails; the consumer simply
 * never finishes. The grader asks your watchdog about it (under names and in an order it draws for each run,
 * with a deadline it draws too), then sets the flag from the host so that the process can go on. The grader's
 * program, not yours: the code policy does not let streams.cu call it.
 */
class HangDemo {
public:
    HangDemo();
    ~HangDemo();
    HangDemo(const HangDemo&) = delete;
    HangDemo& operator=(const HangDemo&) = delete;
    /** @brief Enqueues the producer's work (without its release) and the waiting consumer; returns at once.
     *  @param with_release also enqueue the producer's release (the fixed program) */
    void start(bool with_release);
    /** @brief Sets the flag from the host: the consumer finishes. */
    void unblock();
    /** @brief The producer stream. */
    [[nodiscard]] cudaStream_t producer() const noexcept { return producer_; }
    /** @brief The consumer stream. */
    [[nodiscard]] cudaStream_t consumer() const noexcept { return consumer_; }
    /** @brief Recorded on the consumer stream after its kernel: "the flag was seen". */
    [[nodiscard]] cudaEvent_t consumed() const noexcept { return consumed_; }

private:
    cudaStream_t producer_ = nullptr, consumer_ = nullptr;
    cudaEvent_t consumed_ = nullptr;
    volatile unsigned* flag_ = nullptr;  // host-mapped pinned memory, seen by the consumer kernel
};

// ---- Yours (streams.cu) ---------------------------------------------------------------------------

/** @brief The three clocks of one call (milliseconds). */
struct Clocks {
    double submit_ms = 0;      ///< host clock around the enqueuing calls only: they return before the work is done
    double device_ms = 0;      ///< CUDA events around the work on its stream: the device's time for it
    double end_to_end_ms = 0;  ///< host clock from before the first enqueue to when the result is usable
};

/**
 * @brief (a) Enqueues one call — copy @p pinned_in to @p dev_in, run the work into @p dev_out, copy it back
 * to @p pinned_out, all on @p stream — and measures it with the three clocks. Work may already be queued on
 * @p stream: the call waits for nothing before its last enqueue, so the end-to-end clock counts that queue and the
 * device clock (events around the call's own work) does not.
 * @param pinned_in input (host, pinned) @param pinned_out output (host, pinned) @param dev_in device input
 * @param dev_out device output @param n elements @param iters work @param stream stream
 */
Clocks three_clocks(const std::uint16_t* pinned_in, std::uint16_t* pinned_out, __nv_bfloat16* dev_in,
                    __nv_bfloat16* dev_out, std::size_t n, int iters, cudaStream_t stream);

/**
 * @brief (b, c) The chunked pipeline over pinned staging.
 *
 * (b) The object owns pinned host memory for a whole input and a whole output, allocated once in the
 * constructor and reused by every run(): the caller writes its input straight into input() and reads the
 * result from output(), so no copy ever goes through pageable memory (which the driver must stage
 * through a pinned buffer of its own, at a fraction of the speed).
 *
 * (c) run() splits the tensor into `chunks` chunks (the last may be shorter) and streams them through at
 * least two device slots: copy in on one stream, the work on another, copy out on a third (or the first).
 * It must not synchronise the device or a stream inside its loop over chunks: the order comes from events —
 * "copy done" before a chunk's kernel, "compute done" before its slot's input is overwritten by a later
 * chunk, "copy-out done" before its slot's output is overwritten. Each chunk is one cudaMemcpyAsync from
 * input(), one launch_work and one cudaMemcpyAsync into output(); nothing is allocated in run(). It returns
 * when output() holds the result (all of its work done). It may call chaos.point(stream) right before and
 * chaos.done(stream) right after every operation it enqueues, for the bench's timeline (Chaos).
 */
class Pipeline {
public:
    /** @param max_elements largest tensor run() will get @param max_chunks largest chunk count */
    Pipeline(std::size_t max_elements, std::size_t max_chunks);
    ~Pipeline();
    Pipeline(const Pipeline&) = delete;
    Pipeline& operator=(const Pipeline&) = delete;
    /** @brief The pinned input: max_elements BF16 values (as bits) the caller fills before run(). */
    [[nodiscard]] std::uint16_t* input() noexcept;
    /** @brief The pinned output: run() leaves the result here. */
    [[nodiscard]] const std::uint16_t* output() const noexcept;
    /**
     * @brief Runs the work over the first @p n elements of input() in @p chunks chunks into output().
     * @param n elements (1 … max_elements) @param iters work @param chunks chunks (1 … min(max_chunks, n))
     * @param chaos the timeline hook (the grader passes one that only counts, and ignores it)
     */
    void run(std::size_t n, int iters, std::size_t chunks, Chaos& chaos);

private:
    struct State;
    State* state_ = nullptr;
};

/** @brief Something the watchdog waits for: a stream (all work enqueued on it so far) or an event. */
struct Watched {
    std::string name;              ///< as the report should name it
    cudaStream_t stream = nullptr;  ///< the stream, or
    cudaEvent_t event = nullptr;    ///< the event (set exactly one of the two)
};

/** @brief What the watchdog found. */
struct WatchReport {
    bool finished = false;                ///< everything completed before the deadline
    double waited_ms = 0;                 ///< how long it waited
    std::vector<std::string> unfinished;  ///< the names of what had not completed, in the order given
};

/**
 * @brief (d) Waits until everything in @p items has completed or @p deadline_ms has passed, whichever comes
 * first, without blocking on any one of them (it polls: cudaStreamQuery / cudaEventQuery): it never waits longer
 * than the deadline, and on a hang it names what is stuck instead of hanging itself.
 * @param items what to wait for @param deadline_ms the deadline (ms, > 0)
 */
WatchReport watch(const std::vector<Watched>& items, double deadline_ms);
