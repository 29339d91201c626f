// Known-bad (wrong/expect.json): the solution, but launch_two_slots runs the given baseline — right bits, not the
// student's kernel: the captured launch names the baseline.
#include "pipeline.hpp"

#define launch_two_slots solution_launch_two_slots
#include "../pipeline.cu"
#undef launch_two_slots

void launch_two_slots(const Work& w, cudaStream_t stream) { launch_baseline(w, stream); }
