/**
 * @file observer.hpp
 * @brief The grader's observer: what the graded code really did on the GPU, recorded by CUPTI — every
 * kernel, copy and memset (stream, grid, block, shared memory, registers, start, end, graph), every
 * allocation of every kind, the runtime and driver calls that matter (launches, graph instantiate / update /
 * launch, stream creation, module loads, calls that change device-wide state) and the modules loaded with
 * their static `__device__` data — so that a check grades what happened instead of what the code says.
 *
 * One observer per process, started by the code runner before the graded code is loaded. A check opens a
 * Window ("what ran between here and here"), calls the graded code inside GradedCall scopes, and closes the
 * window to get an Observation: the records whose work started inside it. Everything the graded code
 * allocated is in a ledger that never forgets (memory_held()).
 *
 * Where CUPTI cannot be used — no GPU, or a profiler (Nsight Compute, compute-sanitizer) already holds the
 * profiling interface — Observer::running() is false and Observer::why_not() says why: a check that grades an
 * observation is then SKIPPED with that reason, never passed (observation_skip()).
 *
 * @code
 * Window w;
 * { GradedCall call; launch_mine(x, y, n, stream); }
 * const Observation seen = w.close();
 * seen.kernels.size();              // kernels that ran, graded or not
 * seen.graded_kernels().size();     // those the graded code launched
 * seen.streams_of_graded();         // the streams its work ran on
 * @endcode
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <cuda_runtime_api.h>
#include <nlohmann/json.hpp>

#include "grader/kernel_code.hpp"

namespace gpulab::grader {

/** @brief Where a byte of memory lives, as the observer tells allocations apart. */
enum class MemoryKind {
    device,           ///< cudaMalloc and relatives, cudaMallocAsync / pools, graph memory nodes
    pinned_host,      ///< cudaMallocHost / cudaHostAlloc (mapped or not) / cudaHostRegister
    managed,          ///< cudaMallocManaged
    device_static,    ///< a module's static `__device__` data
    array,            ///< CUDA arrays
    other,            ///< anything CUPTI does not name
};

/** @brief Lower-case name of a memory kind ("device", "pinned_host", ...). */
[[nodiscard]] const char* to_string(MemoryKind k) noexcept;

/** @brief One kernel that ran. */
struct ObservedKernel {
    std::string name;            ///< mangled, as the device knows it
    std::uint32_t stream = 0;    ///< CUPTI's stream id (Observer::stream_id() maps a cudaStream_t to it)
    std::uint32_t grid[3] = {0, 0, 0};   ///< grid of the launch
    std::uint32_t block[3] = {0, 0, 0};  ///< block of the launch
    std::int32_t static_smem = 0;   ///< static shared memory per block, bytes
    std::int32_t dynamic_smem = 0;  ///< dynamic shared memory per block, bytes
    std::uint32_t registers = 0;    ///< registers per thread
    std::uint32_t local_bytes = 0;  ///< local memory per thread (spills, local arrays), bytes
    std::uint64_t start = 0;        ///< when it started (CUPTI timestamp, ns)
    std::uint64_t end = 0;          ///< when it ended
    std::uint32_t graph = 0;        ///< CUPTI id of the executable graph it ran in (0: launched directly)
    std::uint64_t graph_node = 0;   ///< its node in that graph
    std::uint32_t correlation = 0;  ///< the call that launched it (or the graph launch)
    bool graded = false;            ///< launched by the graded code (its call, or the graph launch, was)
    bool own = false;               ///< defined by the graded code's own objects (Observer::set_own_symbols)
    std::string launched_from;      ///< the image whose code made the launch call ("" when not known)
    /** @brief Threads in the grid. */
    [[nodiscard]] std::uint64_t threads() const noexcept;
    /** @brief Duration, ms. */
    [[nodiscard]] double ms() const noexcept { return double(end - start) * 1e-6; }
};

/** @brief Direction of a copy. */
enum class CopyKind {
    h2d,    ///< host to device
    d2h,    ///< device to host
    d2d,    ///< device to device
    h2h,    ///< host to host
    p2p,    ///< between devices
    other,  ///< anything else (a memset)
};
/** @brief "h2d", "d2h", ... */
[[nodiscard]] const char* to_string(CopyKind k) noexcept;

/** @brief One copy (or memset: kind other, is_memset) that ran. */
struct ObservedCopy {
    CopyKind kind = CopyKind::other;  ///< its direction
    bool is_memset = false;           ///< a memset, not a copy
    bool pageable_host = false;       ///< its host side is pageable memory (staged by the driver)
    std::uint64_t bytes = 0;          ///< bytes copied or set
    std::uint32_t stream = 0;         ///< CUPTI's stream id
    std::uint64_t start = 0;          ///< when it started (CUPTI timestamp, ns)
    std::uint64_t end = 0;            ///< when it ended
    std::uint32_t graph = 0;          ///< the executable graph it ran in (0: none)
    std::uint32_t correlation = 0;    ///< the call that issued it
    bool graded = false;              ///< issued by the graded code
    /** @brief Duration, ms. */
    [[nodiscard]] double ms() const noexcept { return double(end - start) * 1e-6; }
};

/** @brief One allocation (or its release), of any kind. */
struct ObservedAllocation {
    MemoryKind kind = MemoryKind::other;  ///< where it lives
    std::uint64_t address = 0;            ///< its address
    std::uint64_t bytes = 0;              ///< its size
    std::uint64_t at = 0;          ///< when it was made
    std::uint64_t released_at = 0; ///< when it was released (0: still held)
    bool pool = false;             ///< from a memory pool (cudaMallocAsync, graph memory nodes)
    bool graded = false;           ///< made by the graded code (its call, or a graph it launched)
    std::string name;              ///< a static variable's name, when CUPTI gives one
    std::uint32_t correlation = 0;  ///< the call that made it
};

/** @brief A runtime or driver call the observer watches (launches, graphs, streams, allocations, state). */
struct ObservedCall {
    std::string name;               ///< e.g. "cudaGraphLaunch", "cuLaunchKernel" (version suffix dropped)
    bool driver = false;            ///< a driver-API call
    std::uint64_t at = 0;           ///< when it was entered
    std::uint64_t thread = 0;       ///< the calling thread (pthread id)
    bool graded = false;            ///< made by the graded code
    std::uint32_t correlation = 0;  ///< CUPTI's id of the call (its work carries it)
    cudaStream_t stream = nullptr;  ///< its stream argument, where it has one
    bool has_stream = false;        ///< it has a stream argument
    std::uint32_t graph_exec = 0;   ///< CUPTI id of the executable graph it names (launch, update, set-params)
    int result = 0;                 ///< its return code (cudaError_t / CUresult)
};

/** @brief A module (cubin) the driver loaded. */
struct ObservedModule {
    std::uint32_t id = 0;             ///< CUPTI's module id
    std::uint64_t at = 0;             ///< when it was loaded
    std::size_t cubin_bytes = 0;      ///< the size of its cubin
    std::vector<std::string> functions;                          ///< its kernels (mangled)
    std::vector<std::pair<std::string, std::uint64_t>> globals;  ///< its `__device__` variables, bytes
    std::uint64_t global_bytes = 0;                              ///< .nv.global* sections together
    bool own = false;                                            ///< holds the graded code's own symbols
    std::map<std::string, KernelCode> code;                      ///< what each kernel's machine code holds
};

/** @brief What ran between a Window's opening and its closing. */
struct Observation {
    std::uint64_t begin = 0;                      ///< the window's start, CUPTI ns
    std::uint64_t end = 0;                        ///< its end
    std::vector<ObservedKernel> kernels;          ///< in start order
    std::vector<ObservedCopy> copies;             ///< copies and memsets, in start order
    std::vector<ObservedAllocation> allocations;  ///< made inside the window (released or not)
    std::vector<ObservedCall> calls;              ///< watched calls made inside the window
    std::vector<ObservedModule> modules;          ///< loaded inside the window
    std::size_t threads_at_begin = 0;             ///< threads of the process when it opened (0: unknown)
    std::size_t threads_at_end = 0;               ///< and when it closed
    std::uint64_t unobserved_ns = 0;              ///< time inside it in quiet mode, when no work was recorded

    /** @brief The kernels the graded code launched. */
    [[nodiscard]] std::vector<ObservedKernel> graded_kernels() const;
    /** @brief The copies and memsets the graded code issued. */
    [[nodiscard]] std::vector<ObservedCopy> graded_copies() const;
    /** @brief The CUPTI stream ids of the graded code's kernels, copies and memsets. */
    [[nodiscard]] std::set<std::uint32_t> streams_of_graded() const;
    /** @brief The watched calls named @p name (without version suffix), graded or not. */
    [[nodiscard]] std::vector<ObservedCall> calls_named(const std::string& name) const;
    /** @brief The graded code's kernels that are not its own (a library's, the lab's given code), by
     *  demangled name, once each. */
    [[nodiscard]] std::vector<std::string> foreign_kernels() const;
    /** @brief Start of the first and end of the last graded kernel or copy (0, 0 when none). */
    [[nodiscard]] std::pair<std::uint64_t, std::uint64_t> graded_span() const;
    /** @brief Bytes the graded code allocated inside the window and still held at its end, and the most it held
     *  at once inside it (allocations made before the window not counted), by kind. */
    struct Held {
        std::uint64_t at_end = 0;                          ///< still held when the window closed
        std::uint64_t peak = 0;                            ///< the most held at once
        std::map<std::string, std::uint64_t> peak_by_kind; ///< the most of each kind
    };
    /** @brief See Held. */
    [[nodiscard]] Held graded_memory() const;
    /** @brief A compact summary for a check's details: counts, kernel names, streams. */
    [[nodiscard]] nlohmann::json summary() const;
    /** @brief The graded code's kernels and copies on a time axis, for a check's details (the report page draws
     *  them): `{"span_us", "items": [{"lane", "name", "stream", "start_us", "end_us"}], "calls": [{"name", "at_us"}],
     *  "left_out"}`. Times are µs from the first graded item; lanes are "H2D", "D2H", "D2D", "memset" (copy
     *  engines) and "kernels"; `calls` are the graded launch submissions on the host (runtime and driver launches,
     *  graph launches). At most @p max_items items and as many calls, the earliest; `left_out` counts the rest. */
    [[nodiscard]] nlohmann::json timeline(std::size_t max_items = 400) const;
};

/** @brief Memory the graded code holds now, from the ledger (every allocation since the observer started). */
struct MemoryHeld {
    std::uint64_t total = 0;                      ///< every kind together, static module data included
    std::map<std::string, std::uint64_t> by_kind; ///< "device", "pinned_host", "managed", "device_static", ...
};

/** @brief The process's one CUPTI subscriber. */
class Observer {
public:
    /** @brief The process's observer. */
    static Observer& instance();

    /**
     * @brief Subscribes to CUPTI and starts recording (once; later calls return the first outcome). Call it
     * before the graded code is loaded or first called, from the thread that will call it (the runner's
     * main thread): calls from other threads count as the graded code's.
     * @return "" when it records, else why not ("another tool holds CUPTI (Nsight Compute or compute-sanitizer)")
     */
    std::string start();
    /** @brief Whether it records. */
    [[nodiscard]] bool running() const noexcept;
    /** @brief Why it does not ("" when it does, "not started" before start()). */
    [[nodiscard]] std::string why_not() const;

    /** @brief The graded code's own symbols (mangled, from the grader's scan of its objects): its kernels and
     *  `__device__` variables are told from the kit's, the lab's given code's and the libraries'. */
    void set_own_symbols(const std::set<std::string>& symbols);
    /** @brief Whether a mangled kernel or variable name is the graded code's own. */
    [[nodiscard]] bool is_own(const std::string& mangled) const;

    /** @brief Now, on the observer's clock (ns). */
    [[nodiscard]] std::uint64_t now() const;
    /** @brief CUPTI's id of @p stream (0 when not running). */
    [[nodiscard]] std::uint32_t stream_id(cudaStream_t stream) const;
    /** @brief Every record from @p since on (waits for the device first). */
    [[nodiscard]] Observation collect(std::uint64_t since);
    /** @brief Drops records that started before @p t (kept: the memory ledger, the modules). */
    void forget_before(std::uint64_t t);
    /** @brief Memory the graded code holds now: live allocations it made, and its modules' static data. */
    [[nodiscard]] MemoryHeld memory_held();
    /** @brief The modules loaded so far. */
    [[nodiscard]] std::vector<ObservedModule> modules();
    /** @brief What the machine code of the kernel named @p mangled holds, from the cubin the driver loaded (the
     *  graded code's own module first where several hold the name); nothing when no loaded module holds it. */
    [[nodiscard]] std::optional<KernelCode> kernel_code(const std::string& mangled);

    /**
     * @brief Called at the entry of each copy, memset or kernel launch the graded code enqueues, before it is
     * enqueued, with its stream: the grader's chaos (a delay on that very stream) goes there. The hook may
     * enqueue work of its own: name its kernels in @p hook_kernels (mangled), so that they are told from the
     * graded code's (CUPTI gives them the graded call's correlation). Empty: none.
     */
    void set_enqueue_hook(std::function<void(cudaStream_t stream, const char* call)> hook,
                          const std::set<std::string>& hook_kernels = {});
    /** @brief Kernels the grader launches in a lean window (its baselines'): work no call record names is told
     *  by its name there. @param mangled their names */
    void add_grader_kernels(const std::set<std::string>& mangled);
    /**
     * @brief Lean mode, for timed loops: the launch, copy and memset calls are not watched one by one (what they
     * cost would be timed); kernels are still recorded, a graph's node by node, and told
     * apart by name (the graded code's own, the kit's, add_grader_kernels(), else the graded code's). Off by default.
     */
    void set_lean(bool lean);
    /** @brief Whether lean mode is on. */
    [[nodiscard]] bool lean() const noexcept;
    /**
     * @brief Quiet mode, for host-timed loops whose every launch must cost what it costs unobserved (lab 08's host
     * submit time): CUPTI is let go of entirely (every activity kind off, the subscriber removed, cuptiFinalize),
     * so that nothing of the observer runs in the loop and launches cost what they cost with CUPTI never loaded
     * (docs/performance-log.md quotes the H200), and attached again when it ends, its correlation ids kept apart
     * from the earlier ones. No CUPTI call is made in quiet time (now() returns its start, collect() what came
     * before it). Nothing is recorded in quiet time: no kernel, copy, memset, graph launch, call,
     * allocation or module load. Memory made there is seen two ways, both counted as the graded code's: what the
     * device's free memory says is held at its end (one allocation record at address 0), and an allocation
     * released after it (its release record names its size); host memory made and kept there is not seen. A
     * window that spans quiet time says how much (Observation::unobserved_ns): the work inside it is graded by
     * what it leaves (its results on fresh inputs, the baseline's time around it), and observed in untimed calls
     * before or after. Should CUPTI refuse to attach again, the observer stops (running() false, why_not() says
     * so) and every later observer-based check is SKIPPED. Off by default.
     */
    void set_quiet(bool quiet);
    /** @brief Whether quiet mode is on. */
    [[nodiscard]] bool quiet() const noexcept;

    /// @cond INTERNAL
    struct State;
    State& state();
    /// @endcond

private:
    Observer() = default;
};

/** @brief Marks the calling thread as running the graded code for the object's scope (nestable): the calls
 *  it makes and the work they enqueue are the graded code's. */
class GradedCall {
public:
    GradedCall() noexcept;
    ~GradedCall();
    GradedCall(const GradedCall&) = delete;
    GradedCall& operator=(const GradedCall&) = delete;
    /** @brief Whether the calling thread is inside a GradedCall. */
    [[nodiscard]] static bool active() noexcept;
};

/** @brief Runs @p f as the graded code (inside a GradedCall) and returns what it returns. */
template <typename F>
decltype(auto) as_graded(F&& f) {
    GradedCall call;
    return f();
}

/**
 * @brief One of the observer's modes on for a scope (Observer::set_lean, Observer::set_quiet); what it was before
 * is restored at the end. Turning it on or off waits for the device first when the mode changes.
 * @tparam Get the mode's getter @tparam Set its setter
 */
template <bool (Observer::*Get)() const noexcept, void (Observer::*Set)(bool)>
class ModeScope {
public:
    /** @brief Turns the mode on. */
    ModeScope() : was_((Observer::instance().*Get)()) { (Observer::instance().*Set)(true); }
    /** @brief Restores the mode it found. */
    ~ModeScope() { (Observer::instance().*Set)(was_); }
    ModeScope(const ModeScope&) = delete;
    ModeScope& operator=(const ModeScope&) = delete;

private:
    bool was_;
};

/** @brief Lean mode for a scope, for timed loops whose every launch call would otherwise carry the observer's
 *  per-call cost into the time. */
using LeanScope = ModeScope<&Observer::lean, &Observer::set_lean>;
/** @brief Quiet mode for a scope, for host-timed loops (lab 08's). */
using QuietScope = ModeScope<&Observer::quiet, &Observer::set_quiet>;

/** @brief "What ran between here and here": opened on construction (after the device went idle), closed by
 *  close(), which waits for the device and returns what was recorded. */
class Window {
public:
    Window();
    /** @brief Waits for the device and returns what started inside the window. Call once. */
    [[nodiscard]] Observation close();

private:
    std::uint64_t begin_ = 0;
    std::size_t threads_ = 0;
};

/**
 * @brief Runs @p f as the graded code (as_graded()) in a window of the observer and returns what the observer saw of
 * it. @p f is host code: what it enqueues and does not wait for is seen as far as it ran when the window closed
 * (wait inside @p f, or synchronize the device in it, to see all of it).
 */
template <typename F>
[[nodiscard]] Observation observe_call(F&& f) {
    Window window;
    as_graded(std::forward<F>(f));
    return window.close();
}

/** @brief The reason a check that grades an observation cannot run here ("" when the observer runs). */
[[nodiscard]] std::string observation_skip();

/** @brief Threads of this process now (0 when it cannot be read). */
[[nodiscard]] std::size_t process_threads();

/** @brief The demangled name of a kernel without its arguments, for messages. */
[[nodiscard]] std::string kernel_display_name(const std::string& mangled);

}  // namespace gpulab::grader
