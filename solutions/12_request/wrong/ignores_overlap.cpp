// Known-bad (wrong/expect.json): (b) gives Amdahl's saving for both predictions: a stage beside a longer branch saves
// nothing of the request, and one on the critical path saves only until another chain is longer (the chapter's A at
// 15 µs saves 20 µs, not 45).
#define predict solution_predict_unused
#include "../analysis.cpp"
#undef predict

namespace request {

Prediction predict(const Trace& t, const std::string& op, double factor) {
    const Prediction p = solution_predict_unused(t, op, factor);
    return {.amdahl_saving_us = p.amdahl_saving_us, .path_saving_us = p.amdahl_saving_us};
}

}  // namespace request
