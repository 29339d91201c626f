// Known-bad (wrong/expect.json): the device clock is the host clock around a synchronised call.
#define LAB01_DEFECT host_device_clock
#include "pipeline.cuh"
