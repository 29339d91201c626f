// The grader's observer: CUPTI's activity records and callbacks, kept per process, handed out per window.
#include "grader/observer.hpp"

#include <cupti.h>
#include <cuda.h>
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>


#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <regex>
#include <unordered_map>

#include "labs/graph.hpp"

namespace gpulab::grader {

const char* to_string(MemoryKind k) noexcept {
    switch (k) {
        case MemoryKind::device: return "device";
        case MemoryKind::pinned_host: return "pinned_host";
        case MemoryKind::managed: return "managed";
        case MemoryKind::device_static: return "device_static";
        case MemoryKind::array: return "array";
        case MemoryKind::other: return "other";
    }
    return "other";
}

const char* to_string(CopyKind k) noexcept {
    switch (k) {
        case CopyKind::h2d: return "h2d";
        case CopyKind::d2h: return "d2h";
        case CopyKind::d2d: return "d2d";
        case CopyKind::h2h: return "h2h";
        case CopyKind::p2p: return "p2p";
        case CopyKind::other: return "other";
    }
    return "other";
}

std::uint64_t ObservedKernel::threads() const noexcept {
    return std::uint64_t(grid[0]) * grid[1] * grid[2] * block[0] * block[1] * block[2];
}

namespace {

// What a watched call is, for the few things the observer does with its arguments.
enum class CallShape {
    none,
    launch_rt,        // cudaLaunchKernel / _ptsz / cudaLaunchCooperativeKernel: {func, grid, block, args, smem, stream}
    launch_rt_ex,     // cudaLaunchKernelExC: {config, func, args}
    launch_drv,       // cuLaunchKernel: {f, ..., hStream, ...}
    launch_drv_ex,    // cuLaunchKernelEx: {config, f, ...}
    memcpy_async,     // cudaMemcpyAsync: {dst, src, count, kind, stream}
    memcpy2d_async,   // cudaMemcpy2DAsync: {..., kind, stream}
    memset_async,     // cudaMemsetAsync: {devPtr, value, count, stream}
    memcpy_sync,      // cudaMemcpy and other synchronous copies: the legacy stream
    graph_launch,     // cudaGraphLaunch: {graphExec, stream}
    graph_exec,       // cudaGraphExec*: first argument is the executable graph
};

struct Watched {
    bool on = false;
    bool driver = false;
    std::string name;  // without the version suffix
    CallShape shape = CallShape::none;
    bool enqueues = false;  // a launch, copy or memset: the enqueue hook sees it
};

std::string strip_version(const char* raw) {
    std::string s = raw ? raw : "";
    static const std::regex suffix("(_v[0-9]+)?(_ptsz|_ptds)?(_v[0-9]+)?$");
    return std::regex_replace(s, suffix, "");
}

// The calls worth a callback: launches, copies and memsets (streams, chaos), allocations of every kind,
// graphs, streams, module loads, and what changes device-wide state. Everything else costs nothing.
bool watched_name(const std::string& n) {
    static const std::regex watch(
        "^(cudaLaunch.*|cudaMemcpy.*|cudaMemset.*|cudaMalloc.*|cudaFree.*|cudaHostAlloc|cudaHostRegister|"
        "cudaHostUnregister|cudaMemPool.*|cudaGraph.*|cudaStreamCreate.*|cudaStreamBeginCapture.*|"
        "cudaStreamEndCapture.*|cudaLibraryLoad.*|cudaDeviceSetLimit|cudaDeviceSetCacheConfig|cudaCtxResetPersistingL2Cache|"
        "cudaDeviceSetSharedMemConfig|cudaStreamSetAttribute|cudaDeviceReset|cudaSetDevice|cudaDeviceSetMemPool|"
        "cudaDeviceSynchronize|cudaStreamSynchronize|cudaEventSynchronize|cudaStreamQuery|cudaEventQuery|"
        "cudaStreamWaitEvent|cudaEventRecord.*|"
        "cuLaunch.*|cuMemcpy.*|cuMemset.*|cuMemAlloc.*|cuMemCreate|cuMemMap|cuMemHostAlloc|cuMemHostRegister.*|"
        "cuMemAllocManaged|cuGraph.*|cuModuleLoad.*|cuLibraryLoad.*|cuCtxSetLimit|cuCtxResetPersistingL2Cache|"
        "cuStreamSetAttribute|cuCtxSetCacheConfig|cuDevicePrimaryCtxReset.*|cuCtxSynchronize|cuStreamSynchronize)$");
    return std::regex_match(n, watch);
}

CallShape shape_of(const std::string& n, bool driver) {
    if (!driver) {
        if (n == "cudaLaunchKernel" || n == "cudaLaunchCooperativeKernel") return CallShape::launch_rt;
        if (n == "cudaLaunchKernelExC") return CallShape::launch_rt_ex;
        if (n == "cudaMemcpyAsync") return CallShape::memcpy_async;
        if (n == "cudaMemcpy2DAsync") return CallShape::memcpy2d_async;
        if (n == "cudaMemsetAsync") return CallShape::memset_async;
        if (n == "cudaMemcpy" || n == "cudaMemcpy2D" || n == "cudaMemset" || n == "cudaMemcpyToSymbol" ||
            n == "cudaMemcpyFromSymbol")
            return CallShape::memcpy_sync;
        if (n == "cudaGraphLaunch") return CallShape::graph_launch;
        if (n.rfind("cudaGraphExec", 0) == 0 && n != "cudaGraphExecDestroy") return CallShape::graph_exec;
        if (n == "cudaGraphUpload") return CallShape::graph_exec;
    } else {
        if (n == "cuLaunchKernel" || n == "cuLaunchCooperativeKernel") return CallShape::launch_drv;
        if (n == "cuLaunchKernelEx") return CallShape::launch_drv_ex;
        // The driver's graph calls take the executable graph first as the runtime's do (cuGraphLaunch: {hGraphExec,
        // hStream}), so that an update or a launch made through the driver names its instance too.
        if (n == "cuGraphLaunch") return CallShape::graph_launch;
        if (n.rfind("cuGraphExec", 0) == 0 && n != "cuGraphExecDestroy") return CallShape::graph_exec;
        if (n == "cuGraphUpload") return CallShape::graph_exec;
    }
    return CallShape::none;
}

// A call the observer recorded, with what resolves later. Plain data: the callback allocates nothing.
struct CallRecord {
    const Watched* watched = nullptr;    // its name and kind
    std::uint64_t at = 0;
    std::uint64_t thread = 0;
    std::uint32_t correlation = 0;
    bool graded = false;
    bool has_stream = false;
    cudaStream_t stream = nullptr;
    std::uint32_t graph_exec = 0;
    int result = 0;
    const void* func = nullptr;          // a runtime launch's host function
    cudaGraphExec_t exec = nullptr;      // the executable graph it names, when its id is resolved later
};

thread_local int t_graded_depth = 0;
thread_local bool t_in_hook = false;
thread_local int t_api_depth = 0;          // watched calls entered and not yet left on this thread
thread_local std::size_t t_outer_call = 0;  // the outermost one's index (calls_dropped counted in)

}  // namespace

struct Observer::State {
    std::mutex mu;
    bool started = false;
    bool running = false;
    std::string why_not = "not started";
    CUpti_SubscriberHandle subscriber{};
    pthread_t main_thread{};
    int task_fd = -1;

    std::vector<Watched> runtime_table, driver_table;
    std::shared_ptr<const std::function<void(cudaStream_t, const char*)>> enqueue_hook;
    std::set<std::string> hook_kernels;    // what the enqueue hook launches (it shares the graded call's correlation)
    std::set<std::string> grader_kernels;  // the baselines' kernels, for work no call record names (lean mode)
    bool lean = false;
    bool quiet = false;
    std::uint64_t quiet_since = 0;         // when quiet mode began (0: not quiet)
    std::chrono::steady_clock::time_point quiet_steady;  // the same, on the host's clock
    std::vector<std::pair<std::uint64_t, std::uint64_t>> quiet_spans;  // when nothing was recorded, [from, to)
    std::size_t quiet_free_before = 0;     // the device's free memory when quiet mode began
    std::vector<std::size_t> quiet_held;   // per quiet span, its "held after" record in allocations (npos: none)
    std::size_t allocations_resolved = 0;  // allocations whose attribution is settled (their call may be forgotten)
    std::vector<int> lean_cbids[2];        // the enqueue calls' callbacks, off in lean mode (runtime, driver)
    bool finalized = false;                // CUPTI finalized for quiet time (attached again when it ends)
    // Added to every correlation id CUPTI hands out: raised past the largest seen each time CUPTI is attached again
    // after quiet time, so that ids a new attachment hands out again cannot meet the calls recorded before.
    std::uint32_t correlation_base = 0;
    std::atomic<std::uint32_t> correlation_max{0};
    std::uint32_t correlation(std::uint32_t raw) {
        const std::uint32_t id = correlation_base + raw;
        for (std::uint32_t m = correlation_max.load(); id > m && !correlation_max.compare_exchange_weak(m, id);) {
        }
        return id;
    }

    std::set<std::string> own_identities;

    std::deque<ObservedKernel> kernels;
    std::deque<ObservedCopy> copies;
    std::deque<CallRecord> calls;
    // Correlation → index into calls (calls_dropped counted in), built when needed: a nested call shares its outer
    // call's correlation, and the first (outermost) one is kept.
    std::unordered_map<std::uint32_t, std::size_t> call_by_correlation;
    std::size_t indexed = 0;        // calls indexed so far (calls_dropped counted in)
    std::size_t calls_dropped = 0;  // calls forgotten from the front (indices shift)
    std::vector<ObservedAllocation> allocations;  // the ledger: never forgotten
    std::unordered_map<std::uint64_t, std::size_t> live_by_address;
    std::vector<ObservedModule> modules;
    std::unordered_map<const void*, std::string> image_of_func;
    std::size_t dropped_records = 0;

    void index() {
        for (std::size_t i = std::max(indexed, calls_dropped); i < calls_dropped + calls.size(); ++i)
            call_by_correlation.try_emplace(calls[i - calls_dropped].correlation, i);
        indexed = calls_dropped + calls.size();
    }
    const CallRecord* call_for(std::uint32_t correlation) const {
        const auto it = call_by_correlation.find(correlation);
        if (it == call_by_correlation.end() || it->second < calls_dropped) return nullptr;
        return &calls[it->second - calls_dropped];
    }
    bool graded_correlation(std::uint32_t correlation) const {
        const CallRecord* c = call_for(correlation);
        return c != nullptr && c->graded;
    }
    // The last quiet span begun before t (npos: none).
    std::size_t last_quiet_span_before(std::uint64_t t) const {
        std::size_t last = std::string::npos;
        for (std::size_t i = 0; i < quiet_spans.size(); ++i)
            if (quiet_spans[i].first <= t) last = i;
        return last;
    }
    bool in_quiet_span(std::uint64_t t) const {
        if (quiet && t >= quiet_since) return true;
        return std::any_of(quiet_spans.begin(), quiet_spans.end(), [&](const auto& span) { return t >= span.first && t < span.second; });
    }
    void resolve_allocations() {
        for (; allocations_resolved < allocations.size(); ++allocations_resolved) {
            ObservedAllocation& a = allocations[allocations_resolved];
            // In quiet time no call is recorded: an allocation made then is counted as the graded code's (the grader
            // allocates nothing inside a quiet loop).
            a.graded = graded_correlation(a.correlation) || (call_for(a.correlation) == nullptr && in_quiet_span(a.at));
        }
    }
    ObservedCall to_call(const CallRecord& r) const {
        return {.name = r.watched->name,
                .driver = r.watched->driver,
                .at = r.at,
                .thread = r.thread,
                .graded = r.graded,
                .correlation = r.correlation,
                .stream = r.stream,
                .has_stream = r.has_stream,
                .graph_exec = r.graph_exec,
                .result = r.result};
    }
};

Observer::State& Observer::state() {
    static State s;
    return s;
}

Observer& Observer::instance() {
    static Observer o;
    return o;
}

namespace {

std::string identity(const std::string& mangled) {
    // The demangled name plus the anonymous namespace's token (which names the source file): device and host
    // compilers mangle some names differently, and a same-named kernel of another file is someone else's.
    std::string token;
    if (const auto at = mangled.find("_GLOBAL__N__"); at != std::string::npos) {
        std::size_t digits = at;
        while (digits > 0 && std::isdigit(static_cast<unsigned char>(mangled[digits - 1]))) --digits;
        const std::size_t length = digits < at ? std::stoul(mangled.substr(digits, at - digits)) : 0;
        token = mangled.substr(at, length);
    }
    return demangle(mangled) + "|" + token;
}

// ---- activity buffers ------------------------------------------------------------------------------------

void CUPTIAPI buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
    constexpr std::size_t kBytes = std::size_t(8) << 20;
    *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(8, kBytes));
    *size = *buffer ? kBytes : 0;
    *max_records = 0;
}

CopyKind copy_kind(std::uint8_t k) {
    switch (k) {
        case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA: return CopyKind::h2d;
        case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH: return CopyKind::d2h;
        case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD: case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA:
        case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD: case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA: return CopyKind::d2d;
        case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH: return CopyKind::h2h;
        case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP: return CopyKind::p2p;
        default: return CopyKind::other;
    }
}

MemoryKind memory_kind(int k) {
    switch (k) {
        case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE: return MemoryKind::device;
        case CUPTI_ACTIVITY_MEMORY_KIND_PINNED: return MemoryKind::pinned_host;
        case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED: case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC: return MemoryKind::managed;
        case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC: return MemoryKind::device_static;
        case CUPTI_ACTIVITY_MEMORY_KIND_ARRAY: return MemoryKind::array;
        default: return MemoryKind::other;
    }
}

// What the records of work on a stream share (a kernel's, a copy's, a memset's): its stream, when it ran, the graph
// it ran in and the call that issued it.
template <class Observed, class Record>
void stream_work_like(Observer::State& s, Observed& o, const Record* r) {
    o.stream = r->streamId;
    o.start = r->start;
    o.end = r->end;
    o.graph = r->graphId;
    o.correlation = s.correlation(r->correlationId);
}

void record_kernel(Observer::State& s, const CUpti_ActivityKernel10* k) {
    ObservedKernel o;
    o.name = k->name ? k->name : "";
    stream_work_like(s, o, k);
    o.grid[0] = std::uint32_t(k->gridX), o.grid[1] = std::uint32_t(k->gridY), o.grid[2] = std::uint32_t(k->gridZ);
    o.block[0] = std::uint32_t(k->blockX), o.block[1] = std::uint32_t(k->blockY), o.block[2] = std::uint32_t(k->blockZ);
    o.static_smem = k->staticSharedMemory;
    o.dynamic_smem = k->dynamicSharedMemory;
    o.registers = k->registersPerThread;
    o.local_bytes = k->localMemoryPerThread;
    o.graph_node = k->graphNodeId;
    s.kernels.push_back(std::move(o));
}

// What a copy's and a memset's records share (both are ObservedCopy).
template <class Record>
ObservedCopy copy_like(Observer::State& s, const Record* m) {
    ObservedCopy o;
    o.bytes = m->bytes;
    stream_work_like(s, o, m);
    return o;
}

void record_copy(Observer::State& s, const CUpti_ActivityMemcpy6* m) {
    ObservedCopy o = copy_like(s, m);
    o.kind = copy_kind(m->copyKind);
    o.pageable_host = m->srcKind == CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE || m->dstKind == CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE;
    s.copies.push_back(o);
}

void record_memset(Observer::State& s, const CUpti_ActivityMemset4* m) {
    ObservedCopy o = copy_like(s, m);
    o.is_memset = true;
    s.copies.push_back(o);
}

// A release of memory the observer never saw allocated: made in quiet time (allocations are not recorded there),
// released after it. Counted as the graded code's, held from that span's start, and no longer in what the span's
// free memory said was held after it.
void record_quiet_release(Observer::State& s, const CUpti_ActivityMemory4* m, MemoryKind kind) {
    const std::size_t span = s.last_quiet_span_before(m->timestamp);
    if (span == std::string::npos) return;
    if (s.quiet_held[span] != std::string::npos) {
        ObservedAllocation& held = s.allocations[s.quiet_held[span]];
        held.bytes -= std::min<std::uint64_t>(held.bytes, m->bytes);
    }
    ObservedAllocation a;
    a.kind = kind;
    a.address = m->address;
    a.bytes = m->bytes;
    a.at = s.quiet_spans[span].first;
    a.released_at = m->timestamp;
    a.pool = m->memoryPoolConfig.memoryPoolType != CUPTI_ACTIVITY_MEMORY_POOL_TYPE_INVALID;
    a.name = "made in quiet time, seen at its release";
    s.allocations.push_back(std::move(a));
}

void record_memory(Observer::State& s, const CUpti_ActivityMemory4* m) {
    const MemoryKind kind = memory_kind(m->memoryKind);
    // A module's static data is counted from the module itself (its cubin's sections).
    if (kind == MemoryKind::device_static) return;
    if (m->memoryOperationType == CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION) {
        ObservedAllocation a;
        a.kind = kind;
        a.address = m->address;
        a.bytes = m->bytes;
        a.at = m->timestamp;
        a.pool = m->memoryPoolConfig.memoryPoolType != CUPTI_ACTIVITY_MEMORY_POOL_TYPE_INVALID;
        a.correlation = s.correlation(m->correlationId);
        if (m->name) a.name = m->name;
        s.live_by_address[a.address] = s.allocations.size();
        s.allocations.push_back(std::move(a));
    } else if (m->memoryOperationType == CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE) {
        const auto it = s.live_by_address.find(m->address);
        if (it == s.live_by_address.end()) return record_quiet_release(s, m, kind);
        s.allocations[it->second].released_at = m->timestamp;
        s.live_by_address.erase(it);
    }
}

void CUPTIAPI buffer_completed(CUcontext, std::uint32_t, std::uint8_t* buffer, std::size_t, std::size_t valid) {
    Observer::State& s = Observer::instance().state();
    {
        std::lock_guard<std::mutex> lock(s.mu);
        CUpti_Activity* record = nullptr;
        while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
            switch (record->kind) {
                case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
                case CUPTI_ACTIVITY_KIND_KERNEL:
                    record_kernel(s, reinterpret_cast<const CUpti_ActivityKernel10*>(record));
                    break;
                case CUPTI_ACTIVITY_KIND_MEMCPY: record_copy(s, reinterpret_cast<const CUpti_ActivityMemcpy6*>(record)); break;
                case CUPTI_ACTIVITY_KIND_MEMSET: record_memset(s, reinterpret_cast<const CUpti_ActivityMemset4*>(record)); break;
                case CUPTI_ACTIVITY_KIND_MEMORY2: record_memory(s, reinterpret_cast<const CUpti_ActivityMemory4*>(record)); break;
                default: break;
            }
        }
        std::size_t dropped = 0;
        if (cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped) == CUPTI_SUCCESS) s.dropped_records += dropped;
    }
    std::free(buffer);
}

// ---- modules ------------------------------------------------------------------------------------------------

ObservedModule read_cubin(std::uint32_t id, const char* image, std::size_t size) {
    ObservedModule m;
    m.id = id;
    m.cubin_bytes = size;
    if (image == nullptr || size < sizeof(Elf64_Ehdr) || std::memcmp(image, ELFMAG, SELFMAG) != 0) return m;
    const auto* eh = reinterpret_cast<const Elf64_Ehdr*>(image);
    if (eh->e_shoff == 0 || eh->e_shoff + std::size_t(eh->e_shnum) * sizeof(Elf64_Shdr) > size || eh->e_shstrndx >= eh->e_shnum)
        return m;
    const auto* sh = reinterpret_cast<const Elf64_Shdr*>(image + eh->e_shoff);
    const auto section_name = [&](const Elf64_Shdr& s) -> std::string {
        const Elf64_Shdr& names = sh[eh->e_shstrndx];
        if (names.sh_offset + s.sh_name >= size) return "";
        return std::string(image + names.sh_offset + s.sh_name);
    };
    std::vector<bool> global_section(eh->e_shnum, false);
    for (int i = 0; i < eh->e_shnum; ++i) {
        const std::string n = section_name(sh[i]);
        if (n.rfind(".nv.global", 0) == 0) {
            global_section[i] = true;
            m.global_bytes += sh[i].sh_size;
        }
    }
    for (int i = 0; i < eh->e_shnum; ++i) {
        if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_link >= eh->e_shnum) continue;
        const Elf64_Shdr& strtab = sh[sh[i].sh_link];
        const std::size_t count = sh[i].sh_entsize ? sh[i].sh_size / sh[i].sh_entsize : 0;
        for (std::size_t k = 0; k < count; ++k) {
            const std::size_t at = sh[i].sh_offset + k * sizeof(Elf64_Sym);
            if (at + sizeof(Elf64_Sym) > size) break;
            const auto* sym = reinterpret_cast<const Elf64_Sym*>(image + at);
            if (strtab.sh_offset + sym->st_name >= size) continue;
            const std::string name(image + strtab.sh_offset + sym->st_name);
            if (name.empty()) continue;
            if (ELF64_ST_TYPE(sym->st_info) == STT_FUNC) m.functions.push_back(name);
            else if (ELF64_ST_TYPE(sym->st_info) == STT_OBJECT && sym->st_shndx < eh->e_shnum && global_section[sym->st_shndx])
                m.globals.emplace_back(name, sym->st_size);
        }
    }
    return m;
}

// ---- callbacks -------------------------------------------------------------------------------------------

cudaStream_t stream_argument(CallShape shape, const void* params, bool& has) {
    has = true;
    switch (shape) {
        case CallShape::launch_rt: return static_cast<const cudaLaunchKernel_v7000_params*>(params)->stream;
        case CallShape::launch_rt_ex: {
            const auto* p = static_cast<const cudaLaunchKernelExC_v11060_params*>(params);
            return p->config ? p->config->stream : nullptr;
        }
        case CallShape::launch_drv: return reinterpret_cast<cudaStream_t>(static_cast<const cuLaunchKernel_params*>(params)->hStream);
        case CallShape::launch_drv_ex: {
            const auto* p = static_cast<const cuLaunchKernelEx_params*>(params);
            return p->config ? reinterpret_cast<cudaStream_t>(p->config->hStream) : nullptr;
        }
        case CallShape::memcpy_async: return static_cast<const cudaMemcpyAsync_v3020_params*>(params)->stream;
        case CallShape::memcpy2d_async: return static_cast<const cudaMemcpy2DAsync_v3020_params*>(params)->stream;
        case CallShape::memset_async: return static_cast<const cudaMemsetAsync_v3020_params*>(params)->stream;
        case CallShape::memcpy_sync: return nullptr;
        case CallShape::graph_launch: return static_cast<const cudaGraphLaunch_v10000_params*>(params)->stream;
        default: has = false; return nullptr;
    }
}

std::uint64_t timestamp() {
    std::uint64_t t = 0;
    (void)cuptiGetTimestamp(&t);
    return t;
}

void CUPTIAPI on_callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
    Observer::State& s = Observer::instance().state();
    if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
        if (cbid != CUPTI_CBID_RESOURCE_MODULE_LOADED) return;
        const auto* r = static_cast<const CUpti_ResourceData*>(data);
        const auto* mod = static_cast<const CUpti_ModuleResourceData*>(r->resourceDescriptor);
        ObservedModule m = read_cubin(mod->moduleId, mod->pCubin, mod->cubinSize);
        m.at = timestamp();
        std::lock_guard<std::mutex> lock(s.mu);
        const auto own = [&](const std::string& n) { return s.own_identities.count(identity(n)) > 0; };
        m.own = std::any_of(m.functions.begin(), m.functions.end(), own) ||
                std::any_of(m.globals.begin(), m.globals.end(), [&](const auto& g) { return own(g.first); });
        // What the graded code's kernels hold (the libraries' and the kit's are not read: a library's module holds
        // thousands of kernels, and no check grades them).
        if (m.own) m.code = kernel_code_of_cubin(mod->pCubin, mod->cubinSize);
        s.modules.push_back(std::move(m));
        return;
    }
    const bool driver = domain == CUPTI_CB_DOMAIN_DRIVER_API;
    const std::vector<Watched>& table = driver ? s.driver_table : s.runtime_table;
    if (cbid >= table.size() || !table[cbid].on) return;
    const Watched& w = table[cbid];
    const auto* cb = static_cast<const CUpti_CallbackData*>(data);
    if (cb->callbackSite == CUPTI_API_ENTER) {
        // A call made inside another watched one (the runtime's own, or the grader's chaos) shares its correlation.
        if (t_api_depth++ > 0) return;
        const bool graded = !t_in_hook && (t_graded_depth > 0 || !pthread_equal(pthread_self(), s.main_thread));
        CallRecord rec;
        rec.watched = &w;
        rec.at = timestamp();
        rec.thread = static_cast<std::uint64_t>(pthread_self());
        rec.graded = graded;
        rec.correlation = s.correlation(cb->correlationId);
        rec.stream = stream_argument(w.shape, cb->functionParams, rec.has_stream);
        if (w.shape == CallShape::launch_rt) rec.func = static_cast<const cudaLaunchKernel_v7000_params*>(cb->functionParams)->func;
        if (w.shape == CallShape::launch_rt_ex) rec.func = static_cast<const cudaLaunchKernelExC_v11060_params*>(cb->functionParams)->func;
        if (w.shape == CallShape::graph_launch || w.shape == CallShape::graph_exec)
            rec.exec = *static_cast<const cudaGraphExec_t*>(cb->functionParams);  // the first argument, resolved later
        std::shared_ptr<const std::function<void(cudaStream_t, const char*)>> hook;
        {
            std::lock_guard<std::mutex> lock(s.mu);
            t_outer_call = s.calls_dropped + s.calls.size();
            s.calls.push_back(rec);
            if (graded && w.enqueues) hook = s.enqueue_hook;
        }
        if (hook && *hook) {
            t_in_hook = true;
            (*hook)(rec.stream, w.name.c_str());
            t_in_hook = false;
        }
        return;
    }
    if (--t_api_depth > 0) return;
    // On the way out: the result of what changes graphs, and the instance an instantiation made.
    const bool instantiate = w.name.rfind(w.driver ? "cuGraphInstantiate" : "cudaGraphInstantiate", 0) == 0;
    if (!instantiate && w.shape != CallShape::graph_exec) return;
    std::lock_guard<std::mutex> lock(s.mu);
    if (t_outer_call < s.calls_dropped || t_outer_call >= s.calls_dropped + s.calls.size()) return;
    CallRecord& rec = s.calls[t_outer_call - s.calls_dropped];
    if (cb->functionReturnValue) rec.result = *static_cast<const int*>(cb->functionReturnValue);
    if (instantiate) {
        const cudaGraphExec_t* out = *static_cast<cudaGraphExec_t* const*>(cb->functionParams);
        if (out) rec.exec = *out;  // CUPTI names it once the call has returned
    }
}

std::string cupti_error(CUptiResult r) {
    const char* text = nullptr;
    cuptiGetResultString(r, &text);
    return text ? text : "CUPTI error " + std::to_string(int(r));
}

std::string image_of(const void* func) {
    Dl_info info{};
    if (func == nullptr || dladdr(func, &info) == 0 || info.dli_fname == nullptr) return "";
    const std::string path = info.dli_fname;
    const auto slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

std::string Observer::start() {
    State& s = state();
    std::lock_guard<std::mutex> once(s.mu);
    if (s.started) return s.why_not;
    s.started = true;
    s.main_thread = pthread_self();
    s.task_fd = open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    CUptiResult r = cuptiSubscribe(&s.subscriber, reinterpret_cast<CUpti_CallbackFunc>(on_callback), nullptr);
    if (r != CUPTI_SUCCESS) {
        s.why_not = r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED
                        ? "another tool holds CUPTI (Nsight Compute, compute-sanitizer or a profiler): the observer "
                          "cannot record here"
                        : "CUPTI could not start: " + cupti_error(r);
        return s.why_not;
    }
    const auto fill = [&](CUpti_CallbackDomain domain, std::uint32_t count, std::vector<Watched>& table, bool driver) {
        table.assign(count, Watched{});
        for (std::uint32_t cbid = 1; cbid < count; ++cbid) {
            const char* raw = nullptr;
            if (cuptiGetCallbackName(domain, cbid, &raw) != CUPTI_SUCCESS || raw == nullptr) continue;
            Watched w;
            w.name = strip_version(raw);
            if (!watched_name(w.name)) continue;
            w.on = true;
            w.driver = driver;
            w.shape = shape_of(w.name, driver);
            w.enqueues = w.shape == CallShape::launch_rt || w.shape == CallShape::launch_rt_ex ||
                         w.shape == CallShape::launch_drv || w.shape == CallShape::launch_drv_ex ||
                         w.shape == CallShape::memcpy_async || w.shape == CallShape::memcpy2d_async ||
                         w.shape == CallShape::memset_async;
            if (cuptiEnableCallback(1, s.subscriber, domain, cbid) != CUPTI_SUCCESS) continue;
            if (w.enqueues) s.lean_cbids[driver ? 1 : 0].push_back(int(cbid));
            table[cbid] = std::move(w);
        }
    };
    fill(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_SIZE, s.runtime_table, false);
    fill(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_SIZE, s.driver_table, true);
    if ((r = cuptiEnableCallback(1, s.subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_MODULE_LOADED)) != CUPTI_SUCCESS ||
        (r = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed)) != CUPTI_SUCCESS) {
        s.why_not = "CUPTI could not start: " + cupti_error(r);
        cuptiUnsubscribe(s.subscriber);
        return s.why_not;
    }
    for (const CUpti_ActivityKind kind : {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                          CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_MEMORY2}) {
        if ((r = cuptiActivityEnable(kind)) != CUPTI_SUCCESS) {
            s.why_not = "CUPTI could not record activity kind " + std::to_string(int(kind)) + ": " + cupti_error(r);
            cuptiUnsubscribe(s.subscriber);
            return s.why_not;
        }
    }
    s.running = true;
    s.why_not.clear();
    return "";
}

bool Observer::running() const noexcept { return const_cast<Observer*>(this)->state().running; }

std::string Observer::why_not() const {
    State& s = const_cast<Observer*>(this)->state();
    std::lock_guard<std::mutex> lock(s.mu);
    return s.why_not;
}

void Observer::set_own_symbols(const std::set<std::string>& symbols) {
    State& s = state();
    std::lock_guard<std::mutex> lock(s.mu);
    for (const std::string& m : symbols) s.own_identities.insert(identity(m));
    for (ObservedModule& mod : s.modules) {
        const auto own = [&](const std::string& n) { return s.own_identities.count(identity(n)) > 0; };
        mod.own = std::any_of(mod.functions.begin(), mod.functions.end(), own) ||
                  std::any_of(mod.globals.begin(), mod.globals.end(), [&](const auto& g) { return own(g.first); });
    }
}

bool Observer::is_own(const std::string& mangled) const {
    State& s = const_cast<Observer*>(this)->state();
    std::lock_guard<std::mutex> lock(s.mu);
    return s.own_identities.count(identity(mangled)) > 0;
}

std::uint64_t Observer::now() const {
    State& s = const_cast<Observer*>(this)->state();
    if (!s.running) return 0;
    // In quiet time CUPTI is finalized and any call of it would attach it again: the span's start stands for now
    // (nothing is recorded inside it).
    return s.quiet ? s.quiet_since : timestamp();
}

std::uint32_t Observer::stream_id(cudaStream_t stream) const {
    if (!running() || quiet()) return 0;  // (in quiet time CUPTI is finalized)
    std::uint32_t id = 0;
    if (cuptiGetStreamIdEx(nullptr, reinterpret_cast<CUstream>(stream), 0, &id) != CUPTI_SUCCESS) return 0;
    return id;
}

namespace {

void sync_device_quietly() {
    if (cudaDeviceSynchronize() != cudaSuccess) (void)cudaGetLastError();
}

}  // namespace

void Observer::set_enqueue_hook(std::function<void(cudaStream_t, const char*)> hook,
                                const std::set<std::string>& hook_kernels) {
    State& s = state();
    std::lock_guard<std::mutex> lock(s.mu);
    s.enqueue_hook = hook ? std::make_shared<const std::function<void(cudaStream_t, const char*)>>(std::move(hook)) : nullptr;
    if (s.enqueue_hook) s.hook_kernels.insert(hook_kernels.begin(), hook_kernels.end());
}

void Observer::add_grader_kernels(const std::set<std::string>& mangled) {
    State& s = state();
    std::lock_guard<std::mutex> lock(s.mu);
    s.grader_kernels.insert(mangled.begin(), mangled.end());
}

namespace {

void enable_callbacks(Observer::State& s, const std::vector<int> (&cbids)[2], bool on) {
    for (int d = 0; d < 2; ++d)
        for (const int cbid : cbids[d])
            (void)cuptiEnableCallback(on ? 1 : 0, s.subscriber, d == 0 ? CUPTI_CB_DOMAIN_RUNTIME_API : CUPTI_CB_DOMAIN_DRIVER_API,
                                      CUpti_CallbackId(cbid));
}

}  // namespace

void Observer::set_lean(bool lean) {
    State& s = state();
    if (!s.running || s.lean == lean) return;
    sync_device_quietly();  // nothing in flight while what is traced changes
    s.lean = lean;
    if (s.quiet) return;  // quiet mode holds everything off; leaving it restores what lean mode says
    enable_callbacks(s, s.lean_cbids, !lean);
    // A graph's nodes stay traced one by one, as in full mode: CUPTI's whole-graph records (GRAPH_TRACE) crashed
    // inside cuGraphLaunch on the H200 (CUDA 13.0) when enabled at run time, and per-node records keep every
    // kernel's name for the provenance checks.
}

bool Observer::lean() const noexcept { return const_cast<Observer*>(this)->state().lean; }

namespace {

constexpr CUpti_ActivityKind kRecordedKinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                                 CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_MEMORY2};

// The device's free memory now (0 when it cannot be read).
std::size_t free_device_memory() {
    std::size_t free_now = 0, total = 0;
    if (cudaMemGetInfo(&free_now, &total) != cudaSuccess) (void)cudaGetLastError();
    return free_now;
}

// Into quiet time. CUPTI let go of entirely: every activity kind off, the subscriber removed and CUPTI finalized
// (detached from the process: the device synchronized and the buffers flushed first, as cuptiFinalize asks of a call
// outside a callback), so that nothing of the observer runs inside the timed loop. Unsubscribing alone did not make
// launches cost what they cost with CUPTI never loaded: on the H200 (2026-12-03, grader_observer_overhead) an empty
// launch's submit took 6.25 µs unsubscribed, 4.48 µs before CUPTI started; a 20-node graph launch 9.7 and 1.8 µs
// (docs/performance-log.md has what finalizing measured). What quiet time leaves held is seen from the device's free
// memory across it, read while CUPTI is finalized at both ends (finalizing frees CUPTI's own buffers: tens of MiB on
// the H200), and what it made and released later at that release. Module loads in quiet time are not seen (the lab's
// kernels are loaded by its untimed calls first).
void enter_quiet(Observer::State& s) {
    (void)cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);  // the ledger complete up to here
    {
        std::lock_guard<std::mutex> lock(s.mu);
        s.quiet = true;
        s.quiet_since = timestamp();
        s.quiet_steady = std::chrono::steady_clock::now();
    }
    for (const CUpti_ActivityKind kind : kRecordedKinds) (void)cuptiActivityDisable(kind);
    (void)cuptiUnsubscribe(s.subscriber);
    (void)cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    s.finalized = cuptiFinalize() == CUPTI_SUCCESS;
    const std::size_t free_now = free_device_memory();
    std::lock_guard<std::mutex> lock(s.mu);
    s.quiet_free_before = free_now;
}

// CUPTI attached again after quiet time: callbacks, the subscriber, the recorded kinds and the watched calls (less
// the enqueue calls in lean mode).
CUptiResult attach_again(Observer::State& s) {
    CUptiResult r = CUPTI_SUCCESS;
    if (s.finalized) {
        // A new attachment may hand out correlation ids again from the start: past every id seen so far.
        s.correlation_base = s.correlation_max.load() + 1;
        r = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
    }
    if (r == CUPTI_SUCCESS) r = cuptiSubscribe(&s.subscriber, reinterpret_cast<CUpti_CallbackFunc>(on_callback), nullptr);
    if (r == CUPTI_SUCCESS) r = cuptiEnableCallback(1, s.subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_MODULE_LOADED);
    for (const CUpti_ActivityKind kind : kRecordedKinds)
        if (r == CUPTI_SUCCESS) r = cuptiActivityEnable(kind);
    s.finalized = false;
    if (r != CUPTI_SUCCESS) return r;
    for (int d = 0; d < 2; ++d) {
        const std::vector<Watched>& table = d == 0 ? s.runtime_table : s.driver_table;
        for (std::size_t cbid = 0; cbid < table.size(); ++cbid)
            if (table[cbid].on && !(s.lean && table[cbid].enqueues))
                (void)cuptiEnableCallback(1, s.subscriber, d == 0 ? CUPTI_CB_DOMAIN_RUNTIME_API : CUPTI_CB_DOMAIN_DRIVER_API,
                                          CUpti_CallbackId(cbid));
    }
    return r;
}

// Out of quiet time: CUPTI attached again, the span recorded, and what it left held (the device's free memory across
// it) counted as the graded code's.
void leave_quiet(Observer::State& s) {
    const std::size_t free_now = free_device_memory();
    if (const CUptiResult r = attach_again(s); r != CUPTI_SUCCESS) {
        // Nothing can be observed from here on: every later observer-based check is SKIPPED with this reason.
        std::lock_guard<std::mutex> lock(s.mu);
        s.running = false;
        s.why_not = "CUPTI could not be attached again after quiet time: " + cupti_error(r);
        return;
    }
    std::lock_guard<std::mutex> lock(s.mu);
    s.quiet = false;
    const std::uint64_t end = timestamp();
    s.quiet_spans.emplace_back(s.quiet_since, end);
    s.quiet_held.push_back(std::string::npos);
    if (s.quiet_free_before > free_now) {
        // Held at the end of quiet time, by whom no record says: the graded code's (the grader allocates nothing
        // inside a quiet loop).
        ObservedAllocation a;
        a.kind = MemoryKind::device;
        a.bytes = s.quiet_free_before - free_now;
        a.at = end - 1;  // inside the span: attributed as quiet time's
        a.graded = true;
        a.name = "held after quiet time (the device's free memory across it)";
        s.quiet_held.back() = s.allocations.size();
        s.allocations.push_back(std::move(a));
    }
    s.quiet_since = 0;
}

}  // namespace

void Observer::set_quiet(bool quiet) {
    State& s = state();
    if (!s.running || s.quiet == quiet) return;
    sync_device_quietly();  // nothing in flight while what is traced changes
    if (quiet) enter_quiet(s);
    else leave_quiet(s);
}

bool Observer::quiet() const noexcept { return const_cast<Observer*>(this)->state().quiet; }


Observation Observer::collect(std::uint64_t since) {
    Observation o;
    o.begin = since;
    State& s = state();
    if (!s.running) return o;
    if (s.quiet) {
        // CUPTI is finalized in quiet time (any call of it would attach it again): what was recorded before it began.
        o.end = s.quiet_since;
    } else {
        sync_device_quietly();
        (void)cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
        o.end = timestamp();
    }
    std::lock_guard<std::mutex> lock(s.mu);
    s.index();
    s.resolve_allocations();
    for (const ObservedKernel& k : s.kernels) {
        if (k.start < since) continue;
        ObservedKernel c = k;
        const CallRecord* call = s.call_for(k.correlation);
        c.own = !k.name.empty() && s.own_identities.count(identity(k.name)) > 0;
        if (call != nullptr) {
            // The grader's chaos shares the graded call it was injected into; it is still the grader's.
            c.graded = call->graded && (c.own || !s.hook_kernels.count(k.name));
        } else if (!k.name.empty()) {
            // No call names it (lean mode: the launch calls were not watched): told by its name. The graded code's own,
            // the grader's baselines and the kit's kernels are known; any other kernel is the graded code's.
            c.graded = c.own || !(s.grader_kernels.count(k.name) || s.hook_kernels.count(k.name) ||
                                  kernel_name(k.name).rfind("gpulab::", 0) == 0);
        }
        if (call != nullptr && call->func != nullptr) {
            auto it = s.image_of_func.find(call->func);
            if (it == s.image_of_func.end()) it = s.image_of_func.emplace(call->func, image_of(call->func)).first;
            c.launched_from = it->second;
        } else if (call != nullptr) {
            c.launched_from = call->watched->driver ? "(the driver API)" : "(" + call->watched->name + ")";
        }
        o.kernels.push_back(std::move(c));
    }
    for (const ObservedCopy& k : s.copies) {
        if (k.start < since) continue;
        ObservedCopy c = k;
        c.graded = s.graded_correlation(k.correlation);
        o.copies.push_back(c);
    }
    for (const ObservedAllocation& a : s.allocations)
        if (a.at >= since) o.allocations.push_back(a);
    for (CallRecord& c : s.calls) {
        if (c.at < since) continue;
        if (c.graph_exec == 0 && c.exec != nullptr && !s.quiet) {
            std::uint32_t id = 0;
            if (cuptiGetGraphExecId(reinterpret_cast<CUgraphExec>(c.exec), &id) == CUPTI_SUCCESS) c.graph_exec = id;
            c.exec = nullptr;
        }
        o.calls.push_back(s.to_call(c));
    }
    for (const ObservedModule& m : s.modules)
        if (m.at >= since) o.modules.push_back(m);
    for (const auto& [from, to] : s.quiet_spans)
        if (to > since) o.unobserved_ns += to - std::max(from, since);
    if (s.quiet)  // CUPTI's clock cannot be read in quiet time (it is finalized): the host's says how long it has lasted
        o.unobserved_ns += std::uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - s.quiet_steady).count());
    const auto by_start = [](const auto& a, const auto& b) { return a.start < b.start; };
    std::sort(o.kernels.begin(), o.kernels.end(), by_start);
    std::sort(o.copies.begin(), o.copies.end(), by_start);
    return o;
}

void Observer::forget_before(std::uint64_t t) {
    State& s = state();
    if (s.running && !s.quiet) (void)cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    std::lock_guard<std::mutex> lock(s.mu);
    std::erase_if(s.kernels, [&](const ObservedKernel& k) { return k.start < t; });
    std::erase_if(s.copies, [&](const ObservedCopy& k) { return k.start < t; });
    // The allocations' attribution is settled before the calls that tell it are forgotten.
    s.index();
    s.resolve_allocations();
    // Calls are kept in order: drop the front, so that the correlation indices stay valid for the rest.
    while (!s.calls.empty() && s.calls.front().at < t) {
        const auto it = s.call_by_correlation.find(s.calls.front().correlation);
        if (it != s.call_by_correlation.end() && it->second == s.calls_dropped) s.call_by_correlation.erase(it);
        s.calls.pop_front();
        ++s.calls_dropped;
    }
}

MemoryHeld Observer::memory_held() {
    MemoryHeld h;
    State& s = state();
    if (!s.running) return h;
    (void)cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    std::lock_guard<std::mutex> lock(s.mu);
    s.index();
    s.resolve_allocations();
    for (const auto& [address, index] : s.live_by_address) {
        const ObservedAllocation& a = s.allocations[index];
        if (!a.graded) continue;
        h.by_kind[to_string(a.kind)] += a.bytes;
        h.total += a.bytes;
    }
    for (const ObservedModule& m : s.modules) {
        if (!m.own) continue;
        h.by_kind["device_static"] += m.global_bytes;
        h.total += m.global_bytes;
    }
    return h;
}

std::vector<ObservedModule> Observer::modules() {
    State& s = state();
    std::lock_guard<std::mutex> lock(s.mu);
    return s.modules;
}

std::optional<KernelCode> Observer::kernel_code(const std::string& mangled) {
    State& s = state();
    std::lock_guard<std::mutex> lock(s.mu);
    std::optional<KernelCode> found;
    for (const ObservedModule& m : s.modules) {
        const auto it = m.code.find(mangled);
        if (it == m.code.end()) continue;
        if (m.own) return it->second;
        if (!found) found = it->second;
    }
    return found;
}

GradedCall::GradedCall() noexcept { ++t_graded_depth; }
GradedCall::~GradedCall() { --t_graded_depth; }
bool GradedCall::active() noexcept { return t_graded_depth > 0; }

Window::Window() {
    Observer& o = Observer::instance();
    if (!o.running()) return;
    sync_device_quietly();
    begin_ = o.now();
    threads_ = process_threads();
}

Observation Window::close() {
    Observation o = Observer::instance().collect(begin_);
    o.threads_at_begin = threads_;
    o.threads_at_end = process_threads();
    return o;
}

std::string observation_skip() {
    const Observer& o = Observer::instance();
    return o.running() ? "" : "the grader's observer (CUPTI) is not recording here: " + o.why_not();
}

std::size_t process_threads() {
    const int fd = Observer::instance().state().task_fd;
    if (fd < 0) return 0;
    static std::mutex mu;
    std::lock_guard<std::mutex> lock(mu);
    if (lseek(fd, 0, SEEK_SET) < 0) return 0;
    std::size_t count = 0;
    alignas(8) char buf[4096];
    for (;;) {
        const long n = syscall(SYS_getdents64, fd, buf, sizeof buf);
        if (n <= 0) break;
        for (long at = 0; at < n;) {
            const auto* name = buf + at + 19;  // struct linux_dirent64: ino 8, off 8, reclen 2, type 1, name
            unsigned short reclen = 0;
            std::memcpy(&reclen, buf + at + 16, sizeof reclen);
            if (name[0] != '.') ++count;
            at += reclen;
        }
    }
    return count;
}

std::string kernel_display_name(const std::string& mangled) { return kernel_name(mangled); }

// ---- Observation ------------------------------------------------------------------------------------------

std::vector<ObservedKernel> Observation::graded_kernels() const {
    std::vector<ObservedKernel> out;
    for (const ObservedKernel& k : kernels)
        if (k.graded) out.push_back(k);
    return out;
}

std::vector<ObservedCopy> Observation::graded_copies() const {
    std::vector<ObservedCopy> out;
    for (const ObservedCopy& c : copies)
        if (c.graded) out.push_back(c);
    return out;
}

std::set<std::uint32_t> Observation::streams_of_graded() const {
    std::set<std::uint32_t> out;
    for (const ObservedKernel& k : kernels)
        if (k.graded) out.insert(k.stream);
    for (const ObservedCopy& c : copies)
        if (c.graded) out.insert(c.stream);
    return out;
}

std::vector<ObservedCall> Observation::calls_named(const std::string& name) const {
    std::vector<ObservedCall> out;
    for (const ObservedCall& c : calls)
        if (c.name == name) out.push_back(c);
    return out;
}

std::vector<std::string> Observation::foreign_kernels() const {
    std::vector<std::string> out;
    for (const ObservedKernel& k : kernels) {
        if (!k.graded || k.own) continue;
        const std::string n = kernel_display_name(k.name);
        if (std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
    }
    return out;
}

std::pair<std::uint64_t, std::uint64_t> Observation::graded_span() const {
    std::uint64_t first = 0, last = 0;
    const auto take = [&](std::uint64_t s, std::uint64_t e) {
        if (first == 0 || s < first) first = s;
        last = std::max(last, e);
    };
    for (const ObservedKernel& k : kernels)
        if (k.graded) take(k.start, k.end);
    for (const ObservedCopy& c : copies)
        if (c.graded) take(c.start, c.end);
    return {first, last};
}

Observation::Held Observation::graded_memory() const {
    Held h;
    struct Step {
        std::uint64_t at;
        std::int64_t delta;
        MemoryKind kind;
    };
    std::vector<Step> steps;
    for (const ObservedAllocation& a : allocations) {
        if (!a.graded) continue;
        steps.push_back({a.at, std::int64_t(a.bytes), a.kind});
        if (a.released_at != 0) steps.push_back({a.released_at, -std::int64_t(a.bytes), a.kind});
        else h.at_end += a.bytes;
    }
    // Modules the graded code loaded inside the window hold their static data from then on.
    for (const ObservedModule& m : modules)
        if (m.own && m.global_bytes > 0) steps.push_back({m.at, std::int64_t(m.global_bytes), MemoryKind::device_static});
    for (const ObservedModule& m : modules)
        if (m.own) h.at_end += m.global_bytes;
    std::sort(steps.begin(), steps.end(), [](const Step& a, const Step& b) {
        return a.at != b.at ? a.at < b.at : a.delta < b.delta;  // a release before an allocation at the same time
    });
    std::int64_t now = 0;
    std::map<std::string, std::int64_t> by_kind;
    for (const Step& s : steps) {
        now += s.delta;
        by_kind[to_string(s.kind)] += s.delta;
        h.peak = std::max<std::uint64_t>(h.peak, std::uint64_t(std::max<std::int64_t>(0, now)));
        auto& peak = h.peak_by_kind[to_string(s.kind)];
        peak = std::max<std::uint64_t>(peak, std::uint64_t(std::max<std::int64_t>(0, by_kind[to_string(s.kind)])));
    }
    return h;
}

nlohmann::json Observation::summary() const {
    nlohmann::json names = nlohmann::json::object();
    std::size_t graded = 0;
    for (const ObservedKernel& k : kernels) {
        if (!k.graded) continue;
        ++graded;
        names[kernel_display_name(k.name)] = names.value(kernel_display_name(k.name), 0) + 1;
    }
    std::size_t graded_copies = 0;
    for (const ObservedCopy& c : copies) graded_copies += c.graded ? 1 : 0;
    const Held held = graded_memory();
    nlohmann::json out = {{"kernels", graded},
                          {"kernel_names", names},
                          {"copies_and_memsets", graded_copies},
                          {"streams", streams_of_graded()},
                          {"allocated_bytes_peak", held.peak},
                          {"threads", {threads_at_begin, threads_at_end}}};
    if (unobserved_ns > 0) out["unobserved_ms"] = double(unobserved_ns) * 1e-6;
    return out;
}

nlohmann::json Observation::timeline(std::size_t max_items) const {
    struct Item {
        std::string lane, name;
        std::uint32_t stream;
        std::uint64_t start, end;
    };
    std::vector<Item> items;
    for (const ObservedKernel& k : kernels)
        if (k.graded) items.push_back({"kernels", kernel_display_name(k.name), k.stream, k.start, k.end});
    for (const ObservedCopy& c : copies)
        if (c.graded) {
            const std::string lane = c.is_memset ? "memset" : c.kind == CopyKind::h2d ? "H2D" : c.kind == CopyKind::d2h ? "D2H"
                                     : c.kind == CopyKind::d2d ? "D2D" : to_string(c.kind);
            items.push_back({lane, std::to_string(c.bytes) + " bytes", c.stream, c.start, c.end});
        }
    std::sort(items.begin(), items.end(), [](const Item& a, const Item& b) { return a.start < b.start; });
    std::vector<const ObservedCall*> launches;
    for (const ObservedCall& c : calls)
        if (c.graded && (c.name.find("Launch") != std::string::npos || c.name.find("launch") != std::string::npos))
            launches.push_back(&c);
    std::uint64_t t0 = items.empty() ? 0 : items.front().start;
    for (const ObservedCall* c : launches) t0 = t0 == 0 ? c->at : std::min(t0, c->at);
    const auto us = [t0](std::uint64_t t) { return t >= t0 ? double(t - t0) * 1e-3 : 0.0; };
    nlohmann::json out = {{"items", nlohmann::json::array()}, {"calls", nlohmann::json::array()}};
    double span = 0;
    for (std::size_t i = 0; i < items.size() && i < max_items; ++i) {
        const Item& it = items[i];
        out["items"].push_back({{"lane", it.lane}, {"name", it.name}, {"stream", it.stream}, {"start_us", us(it.start)},
                                {"end_us", us(std::max(it.end, it.start))}});
        span = std::max(span, us(it.end));
    }
    for (std::size_t i = 0; i < launches.size() && i < max_items; ++i) {
        out["calls"].push_back({{"name", launches[i]->name}, {"at_us", us(launches[i]->at)}});
        span = std::max(span, us(launches[i]->at));
    }
    out["span_us"] = span;
    out["left_out"] = (items.size() > max_items ? items.size() - max_items : 0) +
                      (launches.size() > max_items ? launches.size() - max_items : 0);
    return out;
}

}  // namespace gpulab::grader
