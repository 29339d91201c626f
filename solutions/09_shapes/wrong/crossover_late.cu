// Known-bad (wrong/expect.json): the solution with a policy whose crossover is twice as far out as it is — it counts
// P twice — so a shape that comes between one and two crossovers is left unspecialised.
#define choose_strategy solution_choose_strategy
#include "../shapes.cu"
#undef choose_strategy

int choose_strategy(const std::array<StrategyCost, 3>& costs, double expected_calls) {
    std::array<StrategyCost, 3> twice = costs;
    for (StrategyCost& c : twice) c.prep_ms *= 2;
    return solution_choose_strategy(twice, expected_calls);
}
