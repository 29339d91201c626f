// Known-bad (wrong/expect.json): the solution with a policy that always answers bucketed: the hot shapes are never
// specialised, and the one-off shapes pay their bucket's padding.
#define choose_strategy solution_choose_strategy
#include "../shapes.cu"
#undef choose_strategy

int choose_strategy(const std::array<StrategyCost, 3>&, double) { return 1; }
