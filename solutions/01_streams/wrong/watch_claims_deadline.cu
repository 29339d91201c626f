// Known-bad (wrong/expect.json): the watchdog polls for 5 ms, then reports the hang as if it had waited the whole deadline.
#define LAB01_DEFECT watch_claims_deadline
#include "pipeline.cuh"
