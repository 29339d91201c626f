// Known-bad (wrong/expect.json): the copy into a slot does not wait for the kernel that last read it: right without chaos, wrong under it.
#define LAB01_DEFECT skip_compute_wait
#include "pipeline.cuh"
