// FROZEN: do not edit. Lab 00 experiment: bandwidth of vector add against n, for the baseline, your
// version and a device-to-device copy moving the same bytes. Small n is dominated by launch latency,
// large n by DRAM bandwidth; in between, the L2 cache serves repeated runs.
//
//   build/labs/00_warmup/lab00_bench --benchmark_format=json   (your code)
//   build/labs/00_warmup/lab00_bench_solution                  (the solution, instructors)
#include <benchmark/benchmark.h>

#include "labs/bench.hpp"
#include "labs/buffer.hpp"
#include "labs/random.hpp"
#include "vector_add.hpp"

namespace {

using Launcher = void (*)(const float*, const float*, float*, std::size_t, cudaStream_t);

void copy_launcher(const float* a, const float*, float* c, std::size_t n, cudaStream_t s) {
    // Same bytes as vector add: 12n moved = 6n bytes copied (read + write).
    CUDA_CHECK(cudaMemcpyAsync(c, a, 6 * n, cudaMemcpyDeviceToDevice, s));
}

void run(benchmark::State& state, Launcher launch) {
    const auto n = static_cast<std::size_t>(state.range(0));
    gpulab::DeviceBuffer<float> a(2 * n), b(n), c(2 * n);  // copy variant reads/writes 1.5n floats
    gpulab::fill_uniform_device(a.data(), a.size(), 1);
    gpulab::fill_uniform_device(b.data(), b.size(), 2);
    // No L2 flush: at small n the repeated runs find their inputs in the L2, which is part of the picture.
    if (gpulab::bench::time_manual(state, [&](cudaStream_t s) { launch(a.data(), b.data(), c.data(), n, s); },
                                   /*flush_l2=*/false) < 0)
        return;
    const double bytes = 12.0 * static_cast<double>(n);
    state.SetBytesProcessed(static_cast<std::int64_t>(bytes * static_cast<double>(state.iterations())));
    state.counters["n"] = static_cast<double>(n);
    state.counters["GB/s"] = benchmark::Counter(bytes * 1e-9 * static_cast<double>(state.iterations()),
                                                benchmark::Counter::kIsRate);
}

void args(benchmark::internal::Benchmark* b) {
    for (int p = 10; p <= 28; p += 2) b->Arg(std::int64_t(1) << p);
    b->UseManualTime()->Unit(benchmark::kMicrosecond);
}

}  // namespace

BENCHMARK_CAPTURE(run, baseline, &launch_vector_add_baseline)->Apply(args);
BENCHMARK_CAPTURE(run, yours, &launch_vector_add)->Apply(args);
BENCHMARK_CAPTURE(run, d2d_copy, &copy_launcher)->Apply(args);

BENCHMARK_MAIN();
