// FROZEN: do not edit. Lab 07's answer key: every value comes from the models (labs_models), none is
// stored. The chapter's worked cases keep their keys (0.5 points each); most points are on the case
// "flash", which answers.toml states and `grader --student ID` draws per student.
#include <charconv>
#include <cmath>
#include <string>
#include <vector>

#include "grader/lab.hpp"
#include "labs/models/attention.hpp"
#include "labs/models/units.hpp"

using namespace gpulab::grader;
namespace models = gpulab::models;

namespace {

// Section 5.3.3's fast storage: the 99 KB of shared memory one block of an RTX PRO 6000 may use.
constexpr std::int64_t kBudgetBytes = 101'376;

// Example 5-6 (scores 0, ln 2; values 1, 3), and Experiment 5-3's third element (score ln 4, value 5): one
// element per block, so each update is one block.
models::SoftmaxState after(std::size_t elements) {
    const std::vector<double> scores{0.0, std::log(2.0), std::log(4.0)}, values{1.0, 3.0, 5.0};
    const auto updates = models::online_softmax(std::span(scores).first(elements), std::span(values).first(elements), 1);
    return updates.back().after;
}

// One head of section 5.3.3: L = 8192, d = 128, BF16 Q, K, V, O; FP32 S and P.
models::FlashPlan plan(std::int64_t kv_rows, int prefetch_slots = 0) {
    return models::flash_plan(models::AttentionShape{8192, 128}, kv_rows, kBudgetBytes, prefetch_slots);
}

}  // namespace

void register_answers(Lab& lab) {
    lab.number("example_5_6.result", "Example 5-6: u / ℓ after both blocks", 0.5, 0.005, [] { return after(2).result(); });
    lab.number("experiment_5_3.m_after_three", "Experiment 5-3: m after the third element", 0.5, 0.005,
               [] { return after(3).m; });
    lab.number("experiment_5_3.l_after_three", "... ℓ after it", 0.5, 0.005, [] { return after(3).l; });
    lab.number("experiment_5_3.u_after_three", "... u after it", 0.5, 0.005, [] { return after(3).u; });
    lab.number("experiment_5_3.result", "... the result u / ℓ", 0.5, 0.005, [] { return after(3).result(); });
    for (const int b : {1, 64, 128}) {
        const std::string s = std::to_string(b);
        lab.number("capacity.a_b" + s, "99 KB per block, L = 8192, d = 128, b = " + s + ": the most query rows a", 0.5, 0.0,
                   [b] { return double(plan(b).q_rows); });
        lab.number("capacity.passes_b" + s, "... the passes over K and V", 0.5, 0.0, [b] { return double(plan(b).passes); });
        lab.number("capacity.traffic_mib_b" + s, "... the traffic (MiB)", 0.5, 0.01,
                   [b] { return models::to_mib(plan(b).traffic_bytes); });
    }
    lab.number("experiment_5_3.a_with_prefetch_b64", "Experiment 5-3: b = 64 with a b × d BF16 prefetch slot: a", 0.5, 0.0,
               [] { return double(plan(64, 1).q_rows); });
    lab.number("experiment_5_3.passes_with_prefetch_b64", "... the passes", 0.5, 0.0,
               [] { return double(plan(64, 1).passes); });
    lab.number("experiment_5_3.traffic_mib_with_prefetch_b64", "... the traffic (MiB)", 0.5, 0.01,
               [] { return models::to_mib(plan(64, 1).traffic_bytes); });
    lab.number("materialized.s_and_p_traffic_gib", "Writing and reading back S and P at L = 8192 (GiB)", 0.5, 0.01,
               [] { return models::to_gib(models::materialised_attention({8192, 128}).intermediate_bytes); });

    // The case: another head and another blocking under the same 99 KB.
    lab.exercise_case("flash", "one head of `seq_len` tokens, head dimension `head_dim`, K/V blocks of `kv_rows` rows, "
                               "99 KB (101,376 bytes) of shared memory per block",
                      {{"seq_len", 4096, 1024, 32768, 1024}, {"head_dim", 64, 64, 128, 64}, {"kv_rows", 32, 16, 128, 16}});
    const auto flash = [](const CaseValues& v) {
        return models::flash_plan(models::AttentionShape{std::int64_t(v.at("seq_len")), std::int64_t(v.at("head_dim"))},
                                  std::int64_t(v.at("kv_rows")), kBudgetBytes);
    };
    lab.number_for_case("flash", "case.q_rows", "The most query rows a per block", 2.75, 0.0,
                        [=](const CaseValues& v) { return double(flash(v).q_rows); });
    lab.number_for_case("flash", "case.passes", "Passes over K and V", 2.75, 0.0,
                        [=](const CaseValues& v) { return double(flash(v).passes); });
    lab.number_for_case("flash", "case.traffic_mib", "Traffic: K and V once per pass, Q read and O written once (MiB)",
                        2.75, 0.01, [=](const CaseValues& v) { return models::to_mib(flash(v).traffic_bytes); });
    lab.number_for_case("flash", "case.materialized_over_flash",
                        "How many times more traffic the materialised path moves (S and P written and read back, plus "
                        "Q, K, V and O once)",
                        2.75, 0.01, [=](const CaseValues& v) {
                            const models::MaterialisedAttention m = models::materialised_attention(
                                {std::int64_t(v.at("seq_len")), std::int64_t(v.at("head_dim"))});
                            return m.total_bytes / flash(v).traffic_bytes;
                        });

    // The calculator runs that work these questions, each naming the parameters its questions depend on: wherever
    // `grader calc` has them at these values it shows the method, not the numbers. online-softmax compares its scores
    // and values as typed: the key's, each written as the shortest text that reads back as it (so Example 5-6's are
    // the model's defaults); the state after the whole row does not depend on the block size.
    const auto exact = [](double x) {
        char buf[32];
        return std::string(buf, std::to_chars(buf, buf + sizeof buf, x).ptr);
    };
    const auto softmax_run = [=](std::size_t elements) {
        const std::vector<double> scores{0.0, std::log(2.0), std::log(4.0)}, values{1.0, 3.0, 5.0};
        std::string s, u;
        for (std::size_t i = 0; i < elements; ++i) {
            s += (i ? "," : "") + exact(scores[i]);
            u += (i ? "," : "") + exact(values[i]);
        }
        return CalcRun{.model = "online-softmax", .params = {{"scores", s}, {"values", u}}};
    };
    lab.graded_calc("example_5_6.result", softmax_run(2));
    lab.graded_calc("experiment_5_3.m_after_three, experiment_5_3.l_after_three, experiment_5_3.u_after_three, "
                    "experiment_5_3.result",
                    softmax_run(3));
    const auto capacity_run = [](std::int64_t seq_len, std::int64_t head_dim, std::int64_t kv_rows, int prefetch_slots) {
        return CalcRun{.model = "attention-capacity",
                       .params = {{"seq-len", std::to_string(seq_len)}, {"head-dim", std::to_string(head_dim)},
                                  {"kv-rows", std::to_string(kv_rows)}, {"budget-bytes", std::to_string(kBudgetBytes)},
                                  {"prefetch-slots", std::to_string(prefetch_slots)}}};
    };
    for (const int b : {1, 64, 128}) {
        const std::string s = std::to_string(b);
        lab.graded_calc("capacity.a_b" + s + ", capacity.passes_b" + s + ", capacity.traffic_mib_b" + s +
                            (b == 64 ? ", materialized.s_and_p_traffic_gib (4 · score_matrix_bytes)" : ""),
                        capacity_run(8192, 128, b, 0));
    }
    lab.graded_calc("experiment_5_3.a_with_prefetch_b64, experiment_5_3.passes_with_prefetch_b64, "
                    "experiment_5_3.traffic_mib_with_prefetch_b64",
                    capacity_run(8192, 128, 64, 1));
    lab.graded_calc_for_case("flash", "case.*", [=](const CaseValues& v) {
        return capacity_run(v.at("seq_len"), v.at("head_dim"), v.at("kv_rows"), 0);
    });
}
