// Known-bad (wrong/expect.json), GPU: like tool_aware_loads.cu, but under a tool it runs the solution's own
// bucket kernel: the kernels memcheck's run launched (its authenticated launch log) are not the ones the grader
// observed in the graded run of the same call, and the check is TAMPERED before either run's errors are read.
constexpr bool kSolutionUnderTool = true;
#include "tool_aware.cuh"
