// Known-bad (wrong/expect.json): device slots (cudaMallocAsync) and a pinned staging buffer for the output (cudaMallocHost) allocated in every run().
#define LAB01_DEFECT alloc_per_run
#include "pipeline.cuh"
