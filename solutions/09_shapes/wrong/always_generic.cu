// Known-bad (wrong/expect.json): the solution with a policy that always answers generic: the hot and warm shapes pay
// the generic kernel's time on every call.
#define choose_strategy solution_choose_strategy
#include "../shapes.cu"
#undef choose_strategy

int choose_strategy(const std::array<StrategyCost, 3>&, double) { return 0; }
