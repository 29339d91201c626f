/**
 * @file device.hpp
 * @brief Which GPU is this? Device properties, an environment fingerprint for reports, and a typed
 * "no CUDA device" outcome that tests and the grader turn into SKIPPED.
 */
#pragma once

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gpulab {

/** @brief Why no device could be used (or `available` when one can). */
enum class DeviceAvailability {
    available,     ///< a CUDA device answered
    no_device,     ///< the driver answered: zero devices (cudaErrorNoDevice)
    no_driver,     ///< no usable NVIDIA driver (cudaErrorInsufficientDriver, missing libcuda)
    driver_error,  ///< the driver is present but failed otherwise
};

/** @brief Properties of one device that the labs and their models use. */
struct DeviceInfo {
    int ordinal = 0;                    ///< CUDA device ordinal
    std::string name;                   ///< e.g. "NVIDIA H200"
    std::string uuid;                   ///< "GPU-xxxxxxxx-..." as nvidia-smi prints it
    std::string pci_bus_id;             ///< e.g. "0000:19:00.0"
    int cc_major = 0;                   ///< compute capability, major
    int cc_minor = 0;                   ///< compute capability, minor
    int sm_count = 0;                   ///< streaming multiprocessors
    int max_threads_per_sm = 0;         ///< resident thread slots per SM
    int max_threads_per_block = 0;      ///< largest block
    int max_blocks_per_sm = 0;          ///< resident block limit per SM
    int regs_per_sm = 0;                ///< 32-bit registers per SM
    int regs_per_block = 0;             ///< 32-bit registers one block may use
    int warp_size = 32;                 ///< threads per warp
    long long smem_per_sm_bytes = 0;    ///< shared memory per SM
    long long smem_per_block_optin_bytes = 0;  ///< largest dynamic+static smem one block may opt in to
    long long smem_reserved_per_block_bytes = 0;  ///< shared memory the runtime reserves per block
    long long l2_bytes = 0;             ///< L2 cache size
    long long global_mem_bytes = 0;     ///< device memory size
    int memory_bus_width_bits = 0;      ///< memory bus width
    int memory_clock_khz = 0;           ///< peak memory clock (0 if the driver does not say)
    int driver_version = 0;             ///< CUDA driver API version, e.g. 13000
    int runtime_version = 0;            ///< CUDA runtime version this program was built with
};

/** @brief Result of probing for a device: either usable `info`, or the reason there is none. */
struct DeviceProbe {
    DeviceAvailability availability = DeviceAvailability::no_device;  ///< outcome
    std::string reason;       ///< human-readable reason when not available ("no CUDA device: ...")
    DeviceInfo info;          ///< valid only when available

    /** @brief True when a device can be used. */
    [[nodiscard]] bool available() const noexcept {
        return availability == DeviceAvailability::available;
    }
};

/**
 * @brief Looks for CUDA device @p ordinal without throwing. On a machine with no GPU or driver this
 * returns quickly with `available() == false` and a reason such as "no CUDA device: CUDA driver
 * version is insufficient ..." — said as "no NVIDIA GPU or driver was found" where no driver is loaded.
 */
[[nodiscard]] DeviceProbe probe_device(int ordinal = 0) noexcept;

/** @brief Whether an NVIDIA kernel driver is loaded on this machine (/proc/driver/nvidia/version exists): without
 *  one, CUDA's "driver version is insufficient" means that there is no driver at all, not an old one. */
[[nodiscard]] inline bool nvidia_driver_loaded() noexcept {
    std::FILE* f = std::fopen("/proc/driver/nvidia/version", "r");
    if (f != nullptr) std::fclose(f);
    return f != nullptr;
}

/**
 * @brief The state of the machine when a measurement was taken: the device, its driver and runtime,
 * and (where NVML answers) the current SM and memory clocks and the temperature.
 *
 * NVML is loaded at run time (libnvidia-ml.so.1 ships with the driver), so programs start and report
 * on machines without it; the NVML fields are then empty.
 */
struct Fingerprint {
    DeviceInfo device;                    ///< static properties
    std::string driver_version_string;    ///< e.g. "580.159.04" (NVML), empty if unknown
    std::optional<int> sm_clock_mhz;      ///< current SM clock (NVML)
    std::optional<int> mem_clock_mhz;     ///< current memory clock (NVML)
    std::optional<int> max_sm_clock_mhz;  ///< maximum SM clock (NVML)
    std::optional<int> temperature_c;     ///< GPU temperature in °C (NVML)
    std::string nvml_status;              ///< "ok", or why NVML did not answer
};

/**
 * @brief Theoretical DRAM bandwidth in GB/s (reads + writes): 2 transfers per clock × bus width.
 * 0 when the memory clock is unknown. Used as the physical floor under which a timing is suspicious.
 */
[[nodiscard]] double theoretical_dram_gbps(const DeviceInfo& d) noexcept;

/** @brief Takes a fingerprint of an available device (see probe_device). */
[[nodiscard]] Fingerprint take_fingerprint(const DeviceInfo& device);

/** @brief A process with a CUDA context on the device (NVML). */
struct GpuProcess {
    unsigned pid = 0;                  ///< its process id, as NVML sees it (the host's, in a container)
    std::string name;                  ///< its command name, when /proc shows it ("" otherwise)
    unsigned long long used_bytes = 0; ///< device memory it holds (may be unknown: 0)
};

/** @brief The processes using a device, as NVML lists them. */
struct GpuProcesses {
    bool known = false;                   ///< NVML answered (without it, nothing is known)
    std::string status;                   ///< why it did not
    std::vector<GpuProcess> processes;    ///< this process among them, once it has a context
};

/** @brief Lists the processes that hold a CUDA context on @p device (NVML, loaded at run time). */
[[nodiscard]] GpuProcesses gpu_processes(const DeviceInfo& device);

/** @brief Why a device's clocks are held below their maximum now, as NVML says (its clocks-event, formerly
 *  throttle, reasons). */
struct ClockEvents {
    bool known = false;              ///< NVML answered (without it, nothing is known)
    std::string status;              ///< why it did not
    unsigned long long reasons = 0;  ///< nvmlClocksEventReason* bits of nvml.h (0x4 power cap, 0x40 HW thermal, ...)
};

/** @brief Reads @p device's clocks-event reasons (nvmlDeviceGetCurrentClocksEventReasons, or
 *  ...ThrottleReasons of an older driver; NVML loaded at run time). */
[[nodiscard]] ClockEvents clock_events(const DeviceInfo& device);

/** @brief JSON form of DeviceInfo (field names as in the struct). */
void to_json(nlohmann::json& j, const DeviceInfo& d);
/** @brief JSON form of Fingerprint; absent NVML readings are null. */
void to_json(nlohmann::json& j, const Fingerprint& f);

/** @brief "13.0" from 13000. @param version a CUDA version number as the runtime reports it */
[[nodiscard]] std::string cuda_version_string(int version);

}  // namespace gpulab
