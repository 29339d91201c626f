// Known-bad (wrong/expect.json): the solution, but launch_producer runs the stage kernel — right bits, no
// producer warp: the captured launch has kThreads threads per block.
#include "pipeline.hpp"

#define launch_producer solution_launch_producer
#include "../pipeline.cu"
#undef launch_producer

void launch_producer(int stages, const Work& w, cudaStream_t stream) { launch_stages(stages, w, stream); }
