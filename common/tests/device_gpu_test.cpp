// Device query and fingerprint on a real device.
#include "catch_compat.hpp"
#include "labs/device.hpp"

TEST_CASE("The device answers with sane properties and a fingerprint", "[device][gpu]") {
    const gpulab::DeviceProbe p = gpulab::probe_device();
    REQUIRE(p.available());
    const gpulab::DeviceInfo& d = p.info;
    CHECK_FALSE(d.name.empty());
    CHECK(d.uuid.rfind("GPU-", 0) == 0);
    CHECK(d.sm_count > 0);
    CHECK(d.l2_bytes > 0);
    CHECK(d.regs_per_sm >= 65536);
    CHECK(d.max_threads_per_sm >= 1024);
    const gpulab::Fingerprint f = gpulab::take_fingerprint(d);
    const nlohmann::json j = f;
    CHECK(j["device"]["name"] == d.name);
    CHECK(j.contains("nvml_status"));
    INFO("NVML: " << f.nvml_status);
}
