// Known-bad (wrong/expect.json): the solution with a policy whose crossover is half as far out as it is — it counts
// half of P — so a shape that comes between half a crossover and one is specialised.
#define choose_strategy solution_choose_strategy
#include "../shapes.cu"
#undef choose_strategy

int choose_strategy(const std::array<StrategyCost, 3>& costs, double expected_calls) {
    std::array<StrategyCost, 3> half = costs;
    for (StrategyCost& c : half) c.prep_ms /= 2;
    return solution_choose_strategy(half, expected_calls);
}
