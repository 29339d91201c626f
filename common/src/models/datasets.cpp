// Reading datasets/devices/*.toml and datasets/models/*.toml with toml++.
#include "labs/models/datasets.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <sstream>

#include <toml++/toml.h>  // toml++ 3.3 (Debian 12) has only toml.h; later versions keep it

#ifndef LABS_DATASETS_DIR
#error "LABS_DATASETS_DIR must be defined by the build (common/models.cmake)"
#endif

namespace gpulab::models {
namespace {

namespace fs = std::filesystem;

// "RTX PRO 6000" / "rtx-pro-6000" / "rtx_pro_6000" all become "rtx_pro_6000".
std::string normalise_name(std::string_view name) {
    std::string out;
    for (const char c : name) {
        if (c == ' ' || c == '-' || c == '_') {
            if (!out.empty() && out.back() != '_') out.push_back('_');
        } else {
            out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
        }
    }
    while (!out.empty() && out.back() == '_') out.pop_back();
    return out;
}

toml::table parse_file(const fs::path& path) {
    if (!fs::exists(path)) {
        throw DatasetError("dataset file not found: " + path.string() +
                           " (datasets folder: " + datasets_dir().string() +
                           "; set LABS_DATASETS_DIR to override)");
    }
    try {
        return toml::parse_file(path.string());
    } catch (const toml::parse_error& e) {
        std::ostringstream msg;
        msg << path.string() << ":" << e.source().begin.line << ":" << e.source().begin.column
            << ": TOML parse error: " << e.description();
        throw DatasetError(msg.str());
    }
}

std::string require_string(const toml::table& t, std::string_view key, const fs::path& path) {
    const auto v = t[key].value<std::string>();
    if (!v || v->empty()) {
        throw DatasetError(path.string() + ": missing string '" + std::string(key) + "'");
    }
    return *v;
}

// Every entry of [figures] must be { value = <number>, source = "<non-empty>" }; keys must be known.
std::map<std::string, Figure> read_figures(const toml::table& t, const fs::path& path,
                                           const std::set<std::string, std::less<>>& known,
                                           std::string_view free_prefix) {
    const toml::table* figs = t["figures"].as_table();
    if (figs == nullptr) throw DatasetError(path.string() + ": missing [figures] table");
    std::map<std::string, Figure> out;
    for (const auto& [key_node, node] : *figs) {
        const std::string key(key_node.str());
        const auto where = path.string() + ":" + std::to_string(node.source().begin.line);
        const bool free_key = !free_prefix.empty() && key.rfind(free_prefix, 0) == 0;
        if (!known.contains(key) && !free_key) {
            throw DatasetError(where + ": unknown figure '" + key + "' (see datasets/README.md)");
        }
        const toml::table* f = node.as_table();
        const auto value = f ? (*f)["value"].value<double>() : std::nullopt;
        const auto source = f ? (*f)["source"].value<std::string>() : std::nullopt;
        if (!value || !source || source->empty()) {
            throw DatasetError(where + ": figure '" + key +
                               "' must be { value = <number>, source = \"<where it comes from>\" }");
        }
        out.emplace(key, Figure{*value, *source});
    }
    return out;
}

struct FigureReader {
    const std::map<std::string, Figure>& figures;
    const fs::path& path;

    double number(const std::string& key) const {
        const auto it = figures.find(key);
        if (it == figures.end()) throw DatasetError(path.string() + ": missing figure '" + key + "'");
        return it->second.value;
    }
    std::int64_t integer(const std::string& key) const {
        const double v = number(key);
        if (v != std::floor(v)) {
            throw DatasetError(path.string() + ": figure '" + key + "' must be a whole number");
        }
        return static_cast<std::int64_t>(v);
    }
};

const std::set<std::string, std::less<>> kDeviceRequired = {
    "sm_count", "warp_size", "max_threads_per_sm", "max_threads_per_block", "max_blocks_per_sm",
    "regs_per_sm", "regs_per_block_max", "max_regs_per_thread", "reg_alloc_unit", "reg_file_partitions",
    "smem_per_sm_bytes", "smem_per_block_max_bytes", "smem_reserved_per_block_bytes",
    "smem_alloc_unit_bytes", "smem_banks", "smem_bank_width_bytes", "memory_bandwidth_gbps",
    "bf16_dense_tflops"};
const std::set<std::string, std::less<>> kDeviceOptional = {"l2_cache_mb", "memory_gb",
                                                            "pcie_gbps_per_direction", "sm_clock_ghz"};
const std::set<std::string, std::less<>> kModelFigures = {
    "hidden_size", "intermediate_size", "num_layers", "num_attention_heads", "num_kv_heads", "head_dim",
    "vocab_size", "rms_norm_eps", "dtype_bytes", "running_example_tokens"};

}  // namespace

std::optional<double> DeviceSpec::figure(std::string_view key) const {
    const auto it = figures.find(std::string(key));
    if (it == figures.end()) return std::nullopt;
    return it->second.value;
}

fs::path datasets_dir() {
    if (const char* env = std::getenv("LABS_DATASETS_DIR"); env != nullptr && *env != '\0') return env;
    return LABS_DATASETS_DIR;
}

std::vector<std::string> device_keys() {
    const fs::path dir = datasets_dir() / "devices";
    std::vector<std::string> keys;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
        if (entry.path().extension() == ".toml") keys.push_back(entry.path().stem().string());
    }
    if (ec) throw DatasetError("cannot list device datasets in " + dir.string() + ": " + ec.message());
    std::sort(keys.begin(), keys.end());
    return keys;
}

DeviceSpec load_device_file(const fs::path& path) {
    const toml::table t = parse_file(path);
    std::set<std::string, std::less<>> known = kDeviceRequired;
    known.insert(kDeviceOptional.begin(), kDeviceOptional.end());

    DeviceSpec d;
    d.key = path.stem().string();
    d.name = require_string(t, "name", path);
    d.short_name = require_string(t, "short_name", path);
    const std::string cc = require_string(t, "compute_capability", path);
    (void)require_string(t, "compute_capability_source", path);
    if (std::sscanf(cc.c_str(), "%d.%d", &d.cc_major, &d.cc_minor) != 2) {
        throw DatasetError(path.string() + ": compute_capability must look like \"9.0\", got \"" + cc + "\"");
    }
    d.figures = read_figures(t, path, known, "measured_");

    const FigureReader r{d.figures, path};
    d.sm_count = static_cast<int>(r.integer("sm_count"));
    d.warp_size = static_cast<int>(r.integer("warp_size"));
    d.max_threads_per_sm = static_cast<int>(r.integer("max_threads_per_sm"));
    d.max_threads_per_block = static_cast<int>(r.integer("max_threads_per_block"));
    d.max_blocks_per_sm = static_cast<int>(r.integer("max_blocks_per_sm"));
    d.regs_per_sm = static_cast<int>(r.integer("regs_per_sm"));
    d.regs_per_block_max = static_cast<int>(r.integer("regs_per_block_max"));
    d.max_regs_per_thread = static_cast<int>(r.integer("max_regs_per_thread"));
    d.reg_alloc_unit = static_cast<int>(r.integer("reg_alloc_unit"));
    d.reg_file_partitions = static_cast<int>(r.integer("reg_file_partitions"));
    d.smem_per_sm_bytes = r.integer("smem_per_sm_bytes");
    d.smem_per_block_max_bytes = r.integer("smem_per_block_max_bytes");
    d.smem_reserved_per_block_bytes = r.integer("smem_reserved_per_block_bytes");
    d.smem_alloc_unit_bytes = r.integer("smem_alloc_unit_bytes");
    d.smem_banks = static_cast<int>(r.integer("smem_banks"));
    d.smem_bank_width_bytes = static_cast<int>(r.integer("smem_bank_width_bytes"));
    d.memory_bandwidth_gbps = r.number("memory_bandwidth_gbps");
    d.bf16_dense_tflops = r.number("bf16_dense_tflops");
    return d;
}

DeviceSpec load_device(std::string_view name) {
    const std::string wanted = normalise_name(name);
    const std::vector<std::string> keys = device_keys();
    for (const std::string& key : keys) {
        if (key == wanted) return load_device_file(datasets_dir() / "devices" / (key + ".toml"));
    }
    // Not a file stem: try the short names of the files that load (a broken file is reported when
    // it is asked for by its own name, not when another device is looked up).
    for (const std::string& key : keys) {
        try {
            DeviceSpec d = load_device_file(datasets_dir() / "devices" / (key + ".toml"));
            if (normalise_name(d.short_name) == wanted) return d;
        } catch (const DatasetError&) {
        }
    }
    std::string known;
    for (const std::string& key : keys) known += (known.empty() ? "" : ", ") + key;
    throw DatasetError("unknown device '" + std::string(name) + "' (known: " + known + ")");
}

ModelShape load_model_shape_file(const fs::path& path) {
    const toml::table t = parse_file(path);
    ModelShape m;
    m.key = path.stem().string();
    m.name = require_string(t, "name", path);
    m.figures = read_figures(t, path, kModelFigures, "");
    const FigureReader r{m.figures, path};
    m.hidden_size = r.integer("hidden_size");
    m.intermediate_size = r.integer("intermediate_size");
    m.num_layers = r.integer("num_layers");
    m.num_attention_heads = r.integer("num_attention_heads");
    m.num_kv_heads = r.integer("num_kv_heads");
    m.head_dim = r.integer("head_dim");
    m.vocab_size = r.integer("vocab_size");
    m.dtype_bytes = static_cast<int>(r.integer("dtype_bytes"));
    m.running_example_tokens = r.integer("running_example_tokens");
    return m;
}

ModelShape load_model_shape(std::string_view key) {
    return load_model_shape_file(datasets_dir() / "models" / (normalise_name(key) + ".toml"));
}

}  // namespace gpulab::models
