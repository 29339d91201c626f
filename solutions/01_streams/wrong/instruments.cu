// Known-bad (wrong/expect.json): the lab's instruments called from streams.cu — a device clock "from the model"
// (gpulab::models) and a watchdog that releases the hang it watches (HangDemo::unblock). The code policy stops it.
#include "labs/models/pipeline.hpp"
#include "streams.hpp"

HangDemo* lab01_watched = nullptr;  // "the program being watched", wherever it can be found

#define LAB01_DEFECT none
#define LAB01_DEVICE_MS(ms) \
    (gpulab::models::stream_serial_time_us(1, gpulab::models::StreamStages{(ms) * 250.0, (ms) * 500.0, (ms) * 250.0}) / 1e3)
#define LAB01_ON_HANG()                                \
    do {                                               \
        if (lab01_watched != nullptr) lab01_watched->unblock(); \
    } while (false)
#include "pipeline.cuh"
