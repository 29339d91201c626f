// Device properties, fingerprint (NVML loaded at run time) and the no-device outcome.
#include "labs/device.hpp"

#include <dlfcn.h>

#include <array>
#include <cstdio>
#include <vector>

#include <cuda_runtime_api.h>

#include "labs/cuda_check.hpp"

namespace gpulab {
namespace {

std::string uuid_string(const cudaUUID_t& u) {
    // nvidia-smi format: GPU-8-4-4-4-12 hex digits.
    std::array<char, 64> buf{};
    const auto* b = reinterpret_cast<const unsigned char*>(u.bytes);
    std::snprintf(buf.data(), buf.size(),
                  "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
                  b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
                  b[14], b[15]);
    return buf.data();
}

// The few NVML entry points the fingerprint needs, declared here so that nothing links against
// libnvidia-ml (which exists only where a driver is installed). Signatures follow nvml.h.
using nvmlReturn_t = int;
using nvmlDevice_t = struct nvmlDevice_st*;
constexpr int kNvmlSuccess = 0;
constexpr unsigned kNvmlClockSm = 1;
constexpr unsigned kNvmlClockMem = 2;
constexpr unsigned kNvmlTemperatureGpu = 0;

struct Nvml {
    void* handle = nullptr;
    nvmlReturn_t (*init)() = nullptr;
    nvmlReturn_t (*shutdown)() = nullptr;
    nvmlReturn_t (*by_uuid)(const char*, nvmlDevice_t*) = nullptr;
    nvmlReturn_t (*by_pci)(const char*, nvmlDevice_t*) = nullptr;
    nvmlReturn_t (*clock)(nvmlDevice_t, unsigned, unsigned*) = nullptr;
    nvmlReturn_t (*max_clock)(nvmlDevice_t, unsigned, unsigned*) = nullptr;
    nvmlReturn_t (*temperature)(nvmlDevice_t, unsigned, unsigned*) = nullptr;
    nvmlReturn_t (*driver)(char*, unsigned) = nullptr;

    template <typename F>
    bool load(F& f, const char* name) {
        f = reinterpret_cast<F>(dlsym(handle, name));
        return f != nullptr;
    }
    Nvml() = default;
    Nvml(const Nvml&) = delete;
    Nvml& operator=(const Nvml&) = delete;
    ~Nvml() {
        if (initialised) shutdown();
        if (handle != nullptr) dlclose(handle);
    }
    // Loads the library and initialises it; "" when NVML answers, else why not.
    std::string open() {
        handle = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
        if (handle == nullptr) return "NVML not available (libnvidia-ml.so.1 not found)";
        if (!(load(init, "nvmlInit_v2") && load(shutdown, "nvmlShutdown") && load(by_uuid, "nvmlDeviceGetHandleByUUID") &&
              load(by_pci, "nvmlDeviceGetHandleByPciBusId_v2")))
            return "NVML lacks an expected entry point";
        if (init() != kNvmlSuccess) return "nvmlInit failed";
        initialised = true;
        return "";
    }
    // The device's handle, or null.
    nvmlDevice_t device(const DeviceInfo& d) const {
        nvmlDevice_t h = nullptr;
        if (by_uuid(d.uuid.c_str(), &h) == kNvmlSuccess || by_pci(d.pci_bus_id.c_str(), &h) == kNvmlSuccess) return h;
        return nullptr;
    }
    bool initialised = false;
};

// nvmlProcessInfo_t of nvml.h (the _v2 and _v3 queries fill this layout).
struct NvmlProcessInfo {
    unsigned pid;
    unsigned long long used_gpu_memory;
    unsigned gpu_instance_id;
    unsigned compute_instance_id;
};
constexpr int kNvmlErrorInsufficientSize = 7;

// What a query of one device needs: NVML open, the query under its name or, with older drivers, its older one,
// and the device's handle. "" when all three are there, else why not (@p what names the query in that message).
template <typename F>
std::string open_query(Nvml& nvml, const DeviceInfo& device, F& query, const char* name, const char* older,
                       const char* what, nvmlDevice_t& handle) {
    if (std::string why = nvml.open(); !why.empty()) return why;
    if (!nvml.load(query, name) && !nvml.load(query, older)) return std::string("NVML lacks ") + what;
    handle = nvml.device(device);
    return handle == nullptr ? "NVML does not know this device" : "";
}

}  // namespace

std::string cuda_version_string(int version) {
    return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

DeviceProbe probe_device(int ordinal) noexcept {
    DeviceProbe p;
    try {
        int count = 0;
        const cudaError_t e = cudaGetDeviceCount(&count);
        if (e != cudaSuccess || count == 0) {
            (void)cudaGetLastError();
            p.availability = e == cudaErrorInsufficientDriver ? DeviceAvailability::no_driver
                             : (e == cudaSuccess || e == cudaErrorNoDevice)
                                 ? DeviceAvailability::no_device
                                 : DeviceAvailability::driver_error;
            p.reason = "no CUDA device: ";
            if (e == cudaErrorInsufficientDriver && !nvidia_driver_loaded())
                p.reason += "no NVIDIA GPU or driver was found on this machine (CUDA: " + std::string(cudaGetErrorName(e)) + ")";
            else if (e == cudaErrorInsufficientDriver)
                p.reason += "the NVIDIA driver is older than this CUDA runtime needs: update the driver (" +
                            std::string(cudaGetErrorName(e)) + ")";
            else
                p.reason += e == cudaSuccess ? std::string("the driver reports 0 devices")
                                             : std::string(cudaGetErrorString(e)) + " (" + cudaGetErrorName(e) + ")";
            return p;
        }
        if (ordinal < 0 || ordinal >= count) {
            p.availability = DeviceAvailability::no_device;
            p.reason = "no CUDA device with ordinal " + std::to_string(ordinal) + " (" +
                       std::to_string(count) + " present)";
            return p;
        }
        cudaDeviceProp prop{};
        CUDA_CHECK(cudaGetDeviceProperties(&prop, ordinal));
        DeviceInfo& d = p.info;
        d.ordinal = ordinal;
        d.name = prop.name;
        d.uuid = uuid_string(prop.uuid);
        std::array<char, 32> bus{};
        if (cudaDeviceGetPCIBusId(bus.data(), static_cast<int>(bus.size()), ordinal) == cudaSuccess)
            d.pci_bus_id = bus.data();
        d.cc_major = prop.major;
        d.cc_minor = prop.minor;
        d.sm_count = prop.multiProcessorCount;
        d.max_threads_per_sm = prop.maxThreadsPerMultiProcessor;
        d.max_threads_per_block = prop.maxThreadsPerBlock;
        d.max_blocks_per_sm = prop.maxBlocksPerMultiProcessor;
        d.regs_per_sm = prop.regsPerMultiprocessor;
        d.regs_per_block = prop.regsPerBlock;
        d.warp_size = prop.warpSize;
        d.smem_per_sm_bytes = static_cast<long long>(prop.sharedMemPerMultiprocessor);
        d.smem_per_block_optin_bytes = static_cast<long long>(prop.sharedMemPerBlockOptin);
        d.smem_reserved_per_block_bytes = static_cast<long long>(prop.reservedSharedMemPerBlock);
        d.l2_bytes = prop.l2CacheSize;
        d.global_mem_bytes = static_cast<long long>(prop.totalGlobalMem);
        d.memory_bus_width_bits = prop.memoryBusWidth;
        if (cudaDeviceGetAttribute(&d.memory_clock_khz, cudaDevAttrMemoryClockRate, ordinal) != cudaSuccess) {
            d.memory_clock_khz = 0;
            (void)cudaGetLastError();
        }
        CUDA_CHECK(cudaDriverGetVersion(&d.driver_version));
        CUDA_CHECK(cudaRuntimeGetVersion(&d.runtime_version));
        p.availability = DeviceAvailability::available;
    } catch (const std::exception& ex) {
        p.availability = DeviceAvailability::driver_error;
        p.reason = std::string("no usable CUDA device: ") + ex.what();
    }
    return p;
}

double theoretical_dram_gbps(const DeviceInfo& d) noexcept {
    return 2.0 * d.memory_clock_khz * 1e3 * (d.memory_bus_width_bits / 8.0) / 1e9;
}

Fingerprint take_fingerprint(const DeviceInfo& device) {
    Fingerprint f;
    f.device = device;
    Nvml nvml;
    f.nvml_status = nvml.open();
    if (!f.nvml_status.empty()) return f;
    if (!(nvml.load(nvml.clock, "nvmlDeviceGetClockInfo") && nvml.load(nvml.max_clock, "nvmlDeviceGetMaxClockInfo") &&
          nvml.load(nvml.temperature, "nvmlDeviceGetTemperature") && nvml.load(nvml.driver, "nvmlSystemGetDriverVersion"))) {
        f.nvml_status = "NVML lacks an expected entry point";
        return f;
    }
    std::array<char, 96> drv{};
    if (nvml.driver(drv.data(), static_cast<unsigned>(drv.size())) == kNvmlSuccess)
        f.driver_version_string = drv.data();
    nvmlDevice_t h = nvml.device(device);
    if (h == nullptr) {
        f.nvml_status = "NVML does not know this device";
    } else {
        unsigned v = 0;
        if (nvml.clock(h, kNvmlClockSm, &v) == kNvmlSuccess) f.sm_clock_mhz = static_cast<int>(v);
        if (nvml.clock(h, kNvmlClockMem, &v) == kNvmlSuccess) f.mem_clock_mhz = static_cast<int>(v);
        if (nvml.max_clock(h, kNvmlClockSm, &v) == kNvmlSuccess)
            f.max_sm_clock_mhz = static_cast<int>(v);
        if (nvml.temperature(h, kNvmlTemperatureGpu, &v) == kNvmlSuccess)
            f.temperature_c = static_cast<int>(v);
        f.nvml_status = "ok";
    }
    return f;
}

GpuProcesses gpu_processes(const DeviceInfo& device) {
    GpuProcesses out;
    Nvml nvml;
    using Query = nvmlReturn_t (*)(nvmlDevice_t, unsigned*, NvmlProcessInfo*);
    Query query = nullptr;
    nvmlDevice_t h = nullptr;
    out.status = open_query(nvml, device, query, "nvmlDeviceGetComputeRunningProcesses_v3",
                            "nvmlDeviceGetComputeRunningProcesses_v2", "nvmlDeviceGetComputeRunningProcesses", h);
    if (!out.status.empty()) return out;
    std::vector<NvmlProcessInfo> infos(64);
    auto count = static_cast<unsigned>(infos.size());
    nvmlReturn_t e = query(h, &count, infos.data());
    if (e == kNvmlErrorInsufficientSize) {
        infos.resize(count + 16);
        count = static_cast<unsigned>(infos.size());
        e = query(h, &count, infos.data());
    }
    if (e != kNvmlSuccess) {
        out.status = "nvmlDeviceGetComputeRunningProcesses failed (NVML error " + std::to_string(e) + ")";
        return out;
    }
    for (unsigned i = 0; i < count; ++i) {
        GpuProcess p;
        p.pid = infos[i].pid;
        p.used_bytes = infos[i].used_gpu_memory;
        if (std::FILE* comm = std::fopen(("/proc/" + std::to_string(p.pid) + "/comm").c_str(), "r")) {
            std::array<char, 64> name{};
            if (std::fgets(name.data(), static_cast<int>(name.size()), comm) != nullptr) {
                p.name = name.data();
                while (!p.name.empty() && (p.name.back() == '\n' || p.name.back() == '\r')) p.name.pop_back();
            }
            std::fclose(comm);
        }
        out.processes.push_back(std::move(p));
    }
    out.known = true;
    return out;
}

ClockEvents clock_events(const DeviceInfo& device) {
    ClockEvents out;
    Nvml nvml;
    using Query = nvmlReturn_t (*)(nvmlDevice_t, unsigned long long*);
    Query query = nullptr;
    nvmlDevice_t h = nullptr;
    // The same query, renamed in driver 535 (the old name stays, deprecated).
    out.status = open_query(nvml, device, query, "nvmlDeviceGetCurrentClocksEventReasons",
                            "nvmlDeviceGetCurrentClocksThrottleReasons", "nvmlDeviceGetCurrentClocksEventReasons", h);
    if (!out.status.empty()) return out;
    unsigned long long reasons = 0;
    if (const nvmlReturn_t e = query(h, &reasons); e != kNvmlSuccess) {
        out.status = "nvmlDeviceGetCurrentClocksEventReasons failed (NVML error " + std::to_string(e) + ")";
        return out;
    }
    out.reasons = reasons;
    out.known = true;
    return out;
}

void to_json(nlohmann::json& j, const DeviceInfo& d) {
    j = nlohmann::json{{"ordinal", d.ordinal},
                       {"name", d.name},
                       {"uuid", d.uuid},
                       {"pci_bus_id", d.pci_bus_id},
                       {"compute_capability", std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor)},
                       {"sm_count", d.sm_count},
                       {"max_threads_per_sm", d.max_threads_per_sm},
                       {"max_threads_per_block", d.max_threads_per_block},
                       {"max_blocks_per_sm", d.max_blocks_per_sm},
                       {"regs_per_sm", d.regs_per_sm},
                       {"regs_per_block", d.regs_per_block},
                       {"warp_size", d.warp_size},
                       {"smem_per_sm_bytes", d.smem_per_sm_bytes},
                       {"smem_per_block_optin_bytes", d.smem_per_block_optin_bytes},
                       {"smem_reserved_per_block_bytes", d.smem_reserved_per_block_bytes},
                       {"l2_bytes", d.l2_bytes},
                       {"global_mem_bytes", d.global_mem_bytes},
                       {"memory_bus_width_bits", d.memory_bus_width_bits},
                       {"memory_clock_khz", d.memory_clock_khz},
                       {"theoretical_dram_gbps", theoretical_dram_gbps(d)},
                       {"cuda_driver", cuda_version_string(d.driver_version)},
                       {"cuda_runtime", cuda_version_string(d.runtime_version)}};
}

void to_json(nlohmann::json& j, const Fingerprint& f) {
    auto opt = [](const std::optional<int>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); };
    j = nlohmann::json{{"device", f.device},
                       {"driver_version", f.driver_version_string},
                       {"sm_clock_mhz", opt(f.sm_clock_mhz)},
                       {"mem_clock_mhz", opt(f.mem_clock_mhz)},
                       {"max_sm_clock_mhz", opt(f.max_sm_clock_mhz)},
                       {"temperature_c", opt(f.temperature_c)},
                       {"nvml_status", f.nvml_status}};
}

}  // namespace gpulab
