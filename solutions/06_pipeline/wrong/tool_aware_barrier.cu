// Known-bad (wrong/expect.json): missing_empty_barrier.cu that keeps the barrier only when it believes it runs
// under a tool — a probe kernel's second launch takes over 0.1 ms (under compute-sanitizer it does): clean under
// racecheck, racy when graded. The grader runs the same small runs as graded code and compares the kernels the
// sanitizer run launched (its own authenticated launch log) with the ones it observed: the template arguments
// differ (wrong::stages_kernel<2, false, true> against <2, false, false>), and the hazards checks are TAMPERED.
#define LAB06_DEFECT barrier_only_under_tool
#include "stage_defect.cuh"
