// Known-bad (wrong/expect.json), GPU: the bucketed kernel reads X's padding rows, except when the process looks
// like it runs under a tool: then it masks them, so memcheck, given buffers of exactly M rows, finds nothing. The
// same kernel runs with the same grid either way (only an argument differs), so the launches under the tool are
// the graded run's. The grader runs the same call, with no tool, on X and Y that each end where an unmapped page
// begins: the read past M faults there.
constexpr bool kSolutionUnderTool = false;
#include "tool_aware.cuh"
