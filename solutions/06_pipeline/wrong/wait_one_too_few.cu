// Known-bad (wrong/expect.json): the solution's stage kernels waiting for one copy group too few, so tile j is
// read while its copy may still be in flight — with one stage, always.
#define LAB06_DEFECT wait_one_too_few
#include "stage_defect.cuh"
