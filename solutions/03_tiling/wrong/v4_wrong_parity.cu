// Known-bad (wrong/expect.json): the solution's v4 whose producer waits on the empty barriers with the phase's own
// parity: on its first pass it waits for a release no consumer will give (they wait for the stage it never fills).
// Every v4 launch deadlocks; the grader stops the process at its time limit and says so.
#define LAB03_V4_EMPTY_PARITY 0
#include "../tiling.cu"
