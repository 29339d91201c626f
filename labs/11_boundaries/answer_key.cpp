// FROZEN: do not edit. Lab 11's answer key: every value comes from the models (labs_models), none is stored. The
// chapter's own figures keep their keys (the up projection of 512 tokens in 8 blocks, coarse against a task queue; the
// decode chain of 64 GEMVs); most points are on the cases answers.toml states and `grader --student ID` draws per
// student, and on one number measured on this GPU.
#include <string>

#include "grader/lab.hpp"
#include "labs/models/launch.hpp"
#include "labs/models/units.hpp"

using namespace gpulab::grader;
namespace models = gpulab::models;

namespace {

// The chapter's example with another token count, block size and launch cost (RTX PRO 6000's rates, as the chapter).
models::PersistentKernel persistent(std::int64_t tokens, std::int64_t block_tokens, double launch_us) {
    models::PersistentKernelInput in;
    in.tokens = tokens, in.block_tokens = block_tokens, in.launch_us = launch_us;
    return models::persistent_kernel(in);
}

CalcRun persistent_run(std::int64_t tokens, std::int64_t block_tokens, std::int64_t launch_us) {
    return {.model = "persistent-kernel",
            .params = {{"tokens", std::to_string(tokens)}, {"block-tokens", std::to_string(block_tokens)},
                       {"hidden", "4096"}, {"ffn", "12288"}, {"peak-tflops", "503.8"}, {"bandwidth-gbps", "1792"},
                       {"launch-us", std::to_string(launch_us)}, {"dequeue-us", "0.15"}, {"flag-us", "0.37"}}};
}

CalcRun chain_run(std::int64_t steps, std::int64_t dim, const std::string& boundary_us) {
    return {.model = "gemv-chain",
            .params = {{"steps", std::to_string(steps)}, {"dim", std::to_string(dim)}, {"bandwidth-gbps", "1792"},
                       {"boundary-us", boundary_us}}};
}

models::GemvChain chain(std::int64_t steps, std::int64_t dim, double boundary_us) {
    return models::gemv_chain({.steps = steps, .dim = dim, .elem_bytes = 2, .bandwidth_gbps = 1792, .boundary_us = boundary_us});
}

// A case's boundary cost is stated in hundredths of a µs (cases are whole numbers).
double boundary_of(const CaseValues& v) { return double(v.at("boundary_cents")) / 100.0; }

}  // namespace

void register_answers(Lab& lab) {
    // The chapter's example: Qwen3-8B's up projection (4096 → 12288) of 512 tokens in 8 blocks of 64, then SiLU.
    const models::PersistentKernel p = models::persistent_kernel({});
    lab.number("persistent.block_gflop", "GFLOP of one block's projection", 0.5, 0.005,
               [p] { return p.projection_flop_per_block / 1e9; });
    lab.number("persistent.block_matmul_us", "µs of one block's projection at 503.8 TFLOP/s", 0.5, 0.01,
               [p] { return p.projection_us; });
    lab.number("persistent.block_activation_us", "µs of one block's activation at 1792 GB/s (2 B read and 2 B written an element)",
               0.5, 0.01, [p] { return p.activation_us; });
    lab.number("persistent.coarse_us", "µs of the coarse version: two launches, every projection, then every activation", 0.5,
               0.01, [p] { return p.coarse_us; });
    lab.number("persistent.task_overhead_us", "µs a task pays for its queue counter and its ready flag", 0.5, 0.005,
               [] { return models::PersistentKernelInput{}.dequeue_us + models::PersistentKernelInput{}.flag_us; });
    lab.number("persistent.queue_us", "µs of the persistent version with the task queue", 0.5, 0.01, [p] { return p.persistent_us; });
    lab.number("persistent.speedup", "Coarse over persistent", 0.5, 0.01, [p] { return p.speedup; });
    lab.graded_calc("persistent.*", persistent_run(512, 64, 5));
    // The decode chain: 64 GEMVs of 4096 × 4096 BF16.
    lab.number("chain.boundaries", "Boundaries in a chain of 64 GEMVs (each step waits for the one before)", 0.5, 0.0,
               [] { return double(chain(64, 4096, 1.2).boundaries); });
    lab.number("chain.weights_mib_per_gemv", "MiB of weights each GEMV reads", 0.5, 0.005,
               [] { return models::to_mib(chain(64, 4096, 1.2).weight_bytes_per_step); });
    lab.graded_calc("chain.*", chain_run(64, 4096, "1.2"));
    lab.choice("which.host_only", "Which variant removes the host's launches but keeps every boundary on the device?",
               {"graph", "pdl", "persistent"}, 0.5, [] { return std::string("graph"); });
    lab.choice("which.resident", "Which variant deadlocks when its grid is larger than what stays resident, if its blocks wait "
                                 "for each other's work in a fixed assignment?",
               {"graph", "pdl", "persistent"}, 0.5, [] { return std::string("persistent"); });

    // Case "queue": another token count, block size and launch cost.
    lab.exercise_case("queue", "the up projection (4096 → 12288, BF16) and SiLU of `tokens` tokens in blocks of `block_tokens`, "
                               "at 503.8 TFLOP/s and 1792 GB/s, each host launch costing `launch_us` µs, a task 0.15 µs "
                               "for the queue and 0.37 µs for its flag",
                      {{"tokens", 384, 128, 4096, 64}, {"block_tokens", 128, 32, 256, 32}, {"launch_us", 8, 2, 12}});
    const auto case_p = [](const CaseValues& v) { return persistent(v.at("tokens"), v.at("block_tokens"), double(v.at("launch_us"))); };
    lab.number_for_case("queue", "queue.case.coarse_us", "µs, coarse (two launches, then every projection, then every activation)",
                        2.5, 0.01, [=](const CaseValues& v) { return case_p(v).coarse_us; });
    lab.number_for_case("queue", "queue.case.persistent_us", "µs, one persistent kernel with the task queue", 2.5, 0.01,
                        [=](const CaseValues& v) { return case_p(v).persistent_us; });
    lab.number_for_case("queue", "queue.case.speedup", "Coarse over persistent", 2.5, 0.01,
                        [=](const CaseValues& v) { return case_p(v).speedup; });
    lab.number_for_case("queue", "queue.case.saving_us", "µs saved", 2.5, 0.01,
                        [=](const CaseValues& v) { return case_p(v).coarse_us - case_p(v).persistent_us; });
    lab.graded_calc_for_case("queue", "queue.case.*", [](const CaseValues& v) {
        return persistent_run(v.at("tokens"), v.at("block_tokens"), v.at("launch_us"));
    });

    // Case "chain": another chain, matrix size and boundary cost.
    lab.exercise_case("chain", "a chain of `steps` GEMVs of dim × dim BF16 weights read at 1792 GB/s, each boundary costing "
                               "boundary_cents / 100 µs",
                      {{"steps", 48, 8, 128}, {"dim", 5120, 1024, 8192, 256}, {"boundary_cents", 170, 40, 300, 10}});
    lab.number_for_case("chain", "chain.case.weights_mib", "MiB of weights each step reads", 1, 0.005,
                        [](const CaseValues& v) { return models::to_mib(chain(v.at("steps"), v.at("dim"), 0).weight_bytes_per_step); });
    lab.number_for_case("chain", "chain.case.step_us", "µs for one step's weights at 1792 GB/s", 1, 0.01,
                        [](const CaseValues& v) { return chain(v.at("steps"), v.at("dim"), 0).step_us; });
    lab.number_for_case("chain", "chain.case.boundaries_us", "µs the boundaries add to the chain", 2.5, 0.01,
                        [](const CaseValues& v) { return chain(v.at("steps"), v.at("dim"), boundary_of(v)).boundaries_us; });
    lab.number_for_case("chain", "chain.case.boundary_share", "The boundaries' share of the chain's time", 2.5, 0.01,
                        [](const CaseValues& v) { return chain(v.at("steps"), v.at("dim"), boundary_of(v)).boundary_share; });
    lab.graded_calc_for_case("chain", "chain.case.*", [](const CaseValues& v) {
        const std::int64_t cents = v.at("boundary_cents");
        return chain_run(v.at("steps"), v.at("dim"), std::to_string(cents / 100) + "." + (cents % 100 < 10 ? "0" : "") +
                                                         std::to_string(cents % 100));
    });

    // Measured: the chapter's chain by the model, on this GPU: the weights at its copy bandwidth, and the device's share
    // of a launch at every boundary.
    lab.number_measured("measured.chain_model_us",
                        "On this GPU: the model's time in µs for 64 GEMVs of 4096 × 4096 BF16, the weights at the measured "
                        "D2D copy bandwidth and each of the 63 boundaries costing the measured launch_device_us",
                        1.5, 0.05, [](const Context& ctx) {
                            const double gbps = ctx.ceiling("d2d_copy_gbps").value_or(0);
                            const double launch = ctx.ceiling("launch_device_us").value_or(0);
                            if (gbps <= 0) return 0.0;
                            return models::gemv_chain({.steps = 64, .dim = 4096, .elem_bytes = 2, .bandwidth_gbps = gbps,
                                                       .boundary_us = launch})
                                .chain_us;
                        });
}
