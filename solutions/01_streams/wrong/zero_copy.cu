// Known-bad (wrong/expect.json): no copies: one launch_work reads input() and writes output() over the link (pinned memory is mapped).
#define LAB01_DEFECT zero_copy
#include "pipeline.cuh"
