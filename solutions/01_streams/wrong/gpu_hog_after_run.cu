// Known-bad (wrong/expect.json): from the second run at the timed size on, run() leaves a 12 ms spin kernel running on a stream of its own.
#define LAB01_DEFECT gpu_hog
#include "pipeline.cuh"
