// Known-bad (wrong/expect.json): the solution's v4 with an empty barrier that protects nothing — each consumer
// releases a stage as soon as it has landed, before its wgmma have read it, so the producer's next TMA copy into that
// stage can overwrite operands still being multiplied. Right on small runs, wrong where the pipeline runs ahead.
#define LAB03_V4_RELEASE_AFTER_USE 0
#include "../tiling.cu"
