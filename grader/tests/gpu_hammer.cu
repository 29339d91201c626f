// A second process that keeps the GPU's memory busy, for the test that the grader notices a shared GPU
// (busy_gpu_test.sh): D2D copies of 512 MiB back to back for SECONDS seconds. READY_FILE is created once
// the first copies have run (the process then holds its context). Exits 77 without a GPU.
//   gpu_hammer SECONDS READY_FILE
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include <cuda_runtime_api.h>

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: gpu_hammer SECONDS READY_FILE\n");
        return 2;
    }
    const double seconds = std::atof(argv[1]);
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) return 77;
    constexpr std::size_t kBytes = std::size_t(512) << 20;
    void *src = nullptr, *dst = nullptr;
    if (cudaMalloc(&src, kBytes) != cudaSuccess || cudaMalloc(&dst, kBytes) != cudaSuccess) return 1;
    const auto start = std::chrono::steady_clock::now();
    bool ready = false;
    long copies = 0;
    while (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < seconds) {
        for (int i = 0; i < 16; ++i)
            if (cudaMemcpyAsync(dst, src, kBytes, cudaMemcpyDeviceToDevice) != cudaSuccess) return 1;
        if (cudaDeviceSynchronize() != cudaSuccess) return 1;
        copies += 16;
        if (!ready) {
            std::ofstream(argv[2]) << "ready\n";
            ready = true;
        }
    }
    std::printf("gpu_hammer: %ld copies of 512 MiB in %.0f s\n", copies, seconds);
    return 0;
}
