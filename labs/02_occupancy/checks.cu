// FROZEN: do not edit. Lab 02's graded checks (work in progress: the host prediction; the GPU checks follow).
#include <string>
#include <vector>

#include "grader/gpu_checks.hpp"
#include "labs/models/datasets.hpp"
#include "labs/models/occupancy.hpp"
#include "labs/text.hpp"
#include "occupancy.hpp"

using namespace gpulab;
using namespace gpulab::grader;

namespace {

DeviceLimits limits_of(const models::SmLimits& sm) {
    DeviceLimits d;
    d.warp_size = sm.warp_size;
    d.max_threads_per_sm = sm.max_threads_per_sm;
    d.max_blocks_per_sm = sm.max_blocks_per_sm;
    d.regs_per_sm = sm.regs_per_sm;
    d.reg_alloc_unit = sm.reg_alloc_unit;
    d.reg_file_partitions = sm.reg_file_partitions;
    d.smem_per_sm_bytes = sm.smem_per_sm_bytes;
    d.smem_reserved_per_block_bytes = sm.smem_reserved_per_block_bytes;
    d.smem_alloc_unit_bytes = sm.smem_alloc_unit_bytes;
    return d;
}

std::string limiter_word(models::Resource r) {
    switch (r) {
        case models::Resource::threads: return "threads";
        case models::Resource::regs: return "registers";
        case models::Resource::smem: return "shared_memory";
        case models::Resource::blocks: return "block_limit";
    }
    return "";
}

// "" when the student's prediction is the model's, else what differs.
std::string compare(const KernelResources& k, const models::SmLimits& sm) {
    const models::Occupancy o = models::occupancy(sm, {k.threads, k.regs_per_thread, k.smem_bytes});
    const Residency r = predict_residency(k, limits_of(sm));
    std::string diff;
    const auto field = [&](const char* name, long long mine, long long model) {
        if (mine != model) diff += strprintf("%s%s %lld (model %lld)", diff.empty() ? "" : ", ", name, mine, model);
    };
    field("by_threads", r.by_threads, o.blocks_by_threads);
    field("by_regs", r.by_regs, o.blocks_by_regs);
    field("by_smem", r.by_smem, o.blocks_by_smem);
    field("by_limit", r.by_limit, o.blocks_by_limit);
    field("resident", r.resident, o.resident_blocks);
    if (std::abs(r.occupancy - o.occupancy) > 1e-9) diff += strprintf("%soccupancy %.4f (model %.4f)", diff.empty() ? "" : ", ", r.occupancy, o.occupancy);
    if (r.limiter != limiter_word(o.limiters.front()))
        diff += (diff.empty() ? "" : ", ") + std::string("limiter \"") + r.limiter + "\" (model \"" + limiter_word(o.limiters.front()) + "\")";
    return diff;
}

std::string describe(const KernelResources& k) {
    return strprintf("%d threads, %d registers, %lld B shared memory", k.threads, k.regs_per_thread,
                     static_cast<long long>(k.smem_bytes));
}

CorrectnessResult check_chapter() {
    const models::SmLimits h100 = models::sm_limits(models::load_device("H100"));
    const std::vector<std::pair<std::string, KernelResources>> cases{
        {"section 5.1.5 (128x128 tile)", {256, 128, 2 * 128 * 64 * 2 + 4 * 128 * 128}},
        {"Exercise 5-1 (64x64 tile)", {256, 128, 2 * 64 * 64 * 2 + 4 * 64 * 64}},
        {"Exercise 5-1 at 64 registers", {256, 64, 2 * 64 * 64 * 2 + 4 * 64 * 64}}};
    CorrectnessResult r;
    for (const auto& [name, k] : cases) {
        const std::string diff = compare(k, h100);
        if (!diff.empty()) {
            r.message = name + " on an H100 (" + describe(k) + "): " + diff;
            r.hint = "work the case by hand first: each allowance is a floor of what the SM has over what a block takes";
            return r;
        }
    }
    r.passed = true;
    r.message = "the chapter's three cases on an H100 agree with the model, field by field";
    return r;
}

constexpr int kPerDevice = 250;

CorrectnessResult check_generated(Context& ctx) {
    CorrectnessResult r;
    int compared = 0;
    for (const std::string& key : models::device_keys()) {
        const models::SmLimits sm = models::sm_limits(models::load_device(key));
        const std::uint64_t seed = ctx.seed_for("lab02 configurations " + key);
        int made = 0;
        for (std::uint64_t i = 0; made < kPerDevice && i < 100 * kPerDevice; ++i) {
            KernelResources k;
            k.threads = static_cast<int>(draw(derive_seed(seed, "threads " + std::to_string(i)), 1, 1024));
            k.regs_per_thread = static_cast<int>(draw(derive_seed(seed, "regs " + std::to_string(i)), 16, 255));
            k.smem_bytes = draw(derive_seed(seed, "smem " + std::to_string(i)), 0, sm.smem_per_block_max_bytes);
            // Only configurations that can be launched: the prediction of one that cannot is not the lesson.
            if (models::occupancy(sm, {k.threads, k.regs_per_thread, k.smem_bytes}).resident_blocks == 0) continue;
            ++made;
            ++compared;
            const std::string diff = compare(k, sm);
            if (!diff.empty()) {
                r.message = strprintf("%s (%s), configuration %d of %d: ", key.c_str(), describe(k).c_str(), made, kPerDevice) + diff;
                r.hint = "compare your formula for the differing field with the handout's; the register rule rounds per "
                         "warp and counts per partition";
                r.details["compared_before_the_difference"] = compared - 1;
                return r;
            }
        }
    }
    r.passed = true;
    r.details["compared"] = compared;
    r.message = strprintf("%d configurations drawn from this run's seed, %d per device file (%zu devices), all agree with "
                          "the model",
                          compared, kPerDevice, models::device_keys().size());
    return r;
}

}  // namespace

void register_checks(Lab& lab) {
    lab.host_check("predict.chapter", "(a) the chapter's cases, on the host", 4, [](Context&) { return check_chapter(); });
    lab.host_check("predict.generated", "(a) 250 configurations per device file, on the host", 6, check_generated);
}
