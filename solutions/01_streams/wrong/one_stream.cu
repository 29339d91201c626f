// Known-bad (wrong/expect.json): every copy and kernel on one stream: always right, never overlapped.
#define LAB01_DEFECT one_stream
#include "pipeline.cuh"
