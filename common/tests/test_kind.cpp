// Whether a test executable is a `gpu` test: test_main.cpp (compiled once) asks; this file is compiled once per kind.
extern const bool kLabsGpuTest;
const bool kLabsGpuTest = LABS_GPU_TEST != 0;
