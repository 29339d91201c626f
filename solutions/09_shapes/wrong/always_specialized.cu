// Known-bad (wrong/expect.json): the solution with a policy that always answers specialised: every distinct M pays P,
// the one-off shapes too.
#define choose_strategy solution_choose_strategy
#include "../shapes.cu"
#undef choose_strategy

int choose_strategy(const std::array<StrategyCost, 3>&, double) { return 2; }
