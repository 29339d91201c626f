// Known-bad (wrong/expect.json): three_clocks() drains the stream first, host-times a synchronised call, reports it as device and end to end, and submit = 0.001 ms.
#define LAB01_DEFECT clocks_drained
#include "pipeline.cuh"
