// Known-bad (wrong/expect.json): (c) reports the difference of the two medians as the paired statistic (and bootstraps
// it by resampling the two lists apart): under a drift between rounds it moves by more than the saving it measures.
#define paired solution_paired_unused
#include "../analysis.cpp"
#undef paired

namespace request {

Paired paired(const std::vector<double>& before, const std::vector<double>& after, std::uint64_t seed) {
    Paired p = solution_paired_unused(before, after, seed);
    p.median_difference_us = p.difference_of_medians_us;
    return p;
}

}  // namespace request
