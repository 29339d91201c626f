// Device and model datasets: every figure present with a source, the chapter's figures, errors.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <tuple>
#include <vector>

#include "catch_compat.hpp"
#include "labs/models/datasets.hpp"

using namespace gpulab::models;

TEST_CASE("All five devices load and every figure names its source", "[models][datasets]") {
    const std::vector<std::string> keys = device_keys();
    CHECK(keys == std::vector<std::string>{"a100", "h100", "h200", "rtx_4090", "rtx_pro_6000"});
    for (const std::string& key : keys) {
        INFO(key);
        const DeviceSpec d = load_device(key);
        CHECK(d.sm_count > 0);
        CHECK(d.memory_bandwidth_gbps > 0);
        CHECK(d.smem_per_block_max_bytes <= d.smem_per_sm_bytes);
        for (const auto& [name, fig] : d.figures) {
            INFO(name);
            CHECK_FALSE(fig.source.empty());
        }
    }
}

TEST_CASE("Device names are matched loosely", "[models][datasets]") {
    CHECK(load_device("RTX PRO 6000").key == "rtx_pro_6000");
    CHECK(load_device("rtx-4090").key == "rtx_4090");
    CHECK(load_device("h100").short_name == "H100");
}

TEST_CASE("The datasets hold the chapter's hardware figures", "[models][datasets]") {
    // (device, figure, what the dataset must hold): the chapter's tables and the H200's measured copy rate.
    const DeviceSpec h100 = load_device("H100"), pro = load_device("RTX PRO 6000"), a100 = load_device("A100"),
                     h200 = load_device("H200");
    const std::vector<std::tuple<std::string, double, double>> figures{
        {"H100 SMs", h100.sm_count, 132}, {"H100 threads/SM", h100.max_threads_per_sm, 2048},
        {"H100 blocks/SM", h100.max_blocks_per_sm, 32}, {"H100 registers/SM", h100.regs_per_sm, 65536},
        {"H100 shared/SM", h100.smem_per_sm_bytes, 233472}, {"H100 reserved/block", h100.smem_reserved_per_block_bytes, 1024},
        {"H100 GB/s", h100.memory_bandwidth_gbps, 3350}, {"H100 BF16 TFLOP/s", h100.bf16_dense_tflops, 989.4},
        {"PRO 6000 major", pro.cc_major, 12}, {"PRO 6000 shared/SM", pro.smem_per_sm_bytes, 102400},
        {"PRO 6000 shared/block", pro.smem_per_block_max_bytes, 101376}, {"PRO 6000 GB/s", pro.memory_bandwidth_gbps, 1792},
        {"PRO 6000 BF16 TFLOP/s", pro.bf16_dense_tflops, 503.8}, {"PRO 6000 PCIe", pro.figure("pcie_gbps_per_direction").value_or(-1), 64},
        {"RTX 4090 GB/s", load_device("RTX 4090").memory_bandwidth_gbps, 1008}, {"A100 SMs", a100.sm_count, 108},
        {"A100 shared/SM", a100.smem_per_sm_bytes, 164 * 1024}, {"A100 GB/s", a100.memory_bandwidth_gbps, 1935},
        {"A100 L2 MB", a100.figure("l2_cache_mb").value_or(-1), 40}, {"H200 SMs", h200.sm_count, 132},
        {"H200 L2 MB", h200.figure("l2_cache_mb").value_or(-1), 60}, {"H200 copy GB/s", h200.figure("measured_d2d_copy_gbps").value_or(-1), 4280}};
    for (const auto& [what, got, want] : figures) {
        INFO(what);
        CHECK(got == want);
    }
}

TEST_CASE("The Qwen3-8B shapes are the running example's", "[models][datasets]") {
    const ModelShape q = load_model_shape();
    CHECK(q.name == "Qwen3-8B");
    CHECK(q.hidden_size == 4096);
    CHECK(q.intermediate_size == 12288);
    CHECK(q.num_layers == 36);
    CHECK(q.head_dim == 128);
    CHECK(q.dtype_bytes == 2);
    CHECK(q.running_example_tokens == 1024);
}

namespace {
// Points LABS_DATASETS_DIR at a scratch folder for the life of the object.
struct ScratchDatasets {
    std::filesystem::path dir = std::filesystem::temp_directory_path() / "labs_models_datasets_test";
    ScratchDatasets() {
        std::filesystem::remove_all(dir);
        std::filesystem::create_directories(dir / "devices");
        setenv("LABS_DATASETS_DIR", dir.c_str(), 1);
    }
    ~ScratchDatasets() {
        unsetenv("LABS_DATASETS_DIR");
        std::filesystem::remove_all(dir);
    }
    void write(const std::string& name, const std::string& text) const {
        std::ofstream(dir / "devices" / name) << text;
    }
};

// The message of the DatasetError that loading device @p name throws; the test fails when it loads.
std::string load_error(const std::string& name) {
    try {
        (void)load_device(name);
    } catch (const DatasetError& e) {
        return e.what();
    }
    FAIL("no error loading " << name);
    return "";
}
}  // namespace

TEST_CASE("A bad dataset gives an error naming the file, the line and what is wrong", "[models][datasets]") {
    const ScratchDatasets scratch;
    CHECK(datasets_dir() == scratch.dir);

    scratch.write("broken.toml", "name = \"x\"\nshort_name = \n");
    CHECK(load_error("broken").find("broken.toml:2:") != std::string::npos);

    scratch.write("nosource.toml",
                  "name = \"x\"\nshort_name = \"x\"\ncompute_capability = \"9.0\"\n"
                  "compute_capability_source = \"y\"\n[figures]\nsm_count = { value = 1 }\n");
    const std::string no_source = load_error("nosource");
    CHECK(no_source.find("nosource.toml:6") != std::string::npos);
    CHECK(no_source.find("sm_count") != std::string::npos);

    const std::string unknown = load_error("no-such-gpu");
    CHECK(unknown.find("unknown device 'no-such-gpu'") != std::string::npos);
    CHECK(unknown.find("broken") != std::string::npos);           // lists the known ones
    CHECK_THROWS_AS(load_model_shape("qwen3_8b"), DatasetError);  // no models/ folder here
}
