// Known-bad (wrong/expect.json): (c) raises a step's flag without a fence after writing the task's rows. On most runs
// another SM still sees the rows in time — the race is rare — but nothing orders the rows before the flag, and the
// kernel's machine code holds no GPU-scope fence (code.persistent; the timed calls are read the same way).
#define LAB11_FENCE_BEFORE_FLAG 0
#include "../chain.cu"
