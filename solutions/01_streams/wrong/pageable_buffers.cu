// Known-bad (wrong/expect.json): input() and output() are ordinary pageable memory.
#define LAB01_DEFECT pageable
#include "pipeline.cuh"
