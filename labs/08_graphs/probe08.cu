// Development harness for lab 08 (wip/lab08 only; delete before landing):
//   nvcc -O3 -std=c++20 -arch=sm_90 -Ilabs/08_graphs -Icommon/include labs/08_graphs/probe08.cu \
//        labs/08_graphs/baseline.cu solutions/08_graphs/graphs.cu common/src/cuda_check.cpp build/common/liblabs_common.a \
//        -lcublas -lnvrtc -lcuda -o probe08
// (liblabs_common.a from a build of this tree for sm_90).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

#include "graphs.hpp"
#include "labs/cuda_check.hpp"
#include "labs/random.hpp"

namespace {

std::vector<unsigned short> bits(const __nv_bfloat16* d, std::size_t n) {
    std::vector<unsigned short> h(n);
    CUDA_CHECK(cudaMemcpy(h.data(), d, n * 2, cudaMemcpyDeviceToHost));
    return h;
}

double host_us(const std::function<void()>& f, int reps) {
    f();
    CUDA_CHECK(cudaDeviceSynchronize());
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < reps; ++i) f();
    const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / reps;
    CUDA_CHECK(cudaDeviceSynchronize());
    return us;
}

double e2e_us(const std::function<void()>& f, int reps) {
    f();
    CUDA_CHECK(cudaDeviceSynchronize());
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < reps; ++i) f();
    CUDA_CHECK(cudaDeviceSynchronize());
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / reps;
}

}  // namespace

int main(int argc, char** argv) {
    const int hidden = argc > 1 ? std::atoi(argv[1]) : 1024, ffn = argc > 2 ? std::atoi(argv[2]) : 2816;
    const int layers = argc > 3 ? std::atoi(argv[3]) : 1;
    const bool sweep = argc > 4 && std::atoi(argv[4]) != 0;
    std::printf("H %d F %d layers %d\n", hidden, ffn, layers);
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    for (const int m : {1, 16, 256})
        for (const bool fused : {false, true}) {
            const FfnShape shape{m, hidden, ffn, layers};
            FfnModel model(shape, 7);
            StepBuffers b(shape);
            const std::size_t n = std::size_t(m) * shape.hidden;
            __nv_bfloat16 *in, *out;
            CUDA_CHECK(cudaMalloc(&in, n * 2));
            CUDA_CHECK(cudaMalloc(&out, n * 2));
            GraphStep step(model, b, fused);
            bool same = true;
            for (int rep = 0; rep < 3; ++rep) {
                gpulab::fill_uniform_bf16_device(in, n, 100 + rep, -1.0f, 1.0f);
                run_step_eager(model, b, in, out, false, s);
                step.step_copy_in(in, s);
                CUDA_CHECK(cudaStreamSynchronize(s));
                same = same && bits(out, n) == bits(step.output(), n);
            }
            const std::int64_t l0 = host_launches();
            for (int r = 0; r < 3; ++r) run_step_eager(model, b, in, out, fused, s);
            const std::int64_t eager = host_launches() - l0, g0 = host_launches();
            for (int r = 0; r < 3; ++r) step.step_direct(s);
            const std::int64_t graph = host_launches() - g0;
            std::size_t nodes = 0;
            CUDA_CHECK(cudaGraphGetNodes(step.graph(), nullptr, &nodes));
            const double eager_submit = host_us([&] { run_step_eager(model, b, in, out, fused, s); }, 200);
            const double graph_submit = host_us([&] { step.step_direct(s); }, 200);
            const double eager_e2e = e2e_us([&] { run_step_eager(model, b, in, out, fused, s); }, 200);
            const double graph_e2e = e2e_us([&] { step.step_direct(s); }, 200);
            std::printf("M=%d fused=%d: graph == eager bits: %s; 3 runs: eager %lld host launches, graph %lld; nodes per "
                        "graph %zu; submit %.2f vs %.2f us; end to end %.2f vs %.2f us\n",
                        m, fused, same ? "yes" : "NO", (long long)eager, (long long)graph, nodes, eager_submit, graph_submit,
                        eager_e2e, graph_e2e);
            if (m == 1 && !fused) {
                const auto t0 = std::chrono::steady_clock::now();
                step.move_output_by_update(out);
                const auto t1 = std::chrono::steady_clock::now();
                step.move_output_by_recapture(step.output());
                const auto t2 = std::chrono::steady_clock::now();
                step.step_direct(s);
                CUDA_CHECK(cudaStreamSynchronize(s));
                std::printf("  output moved: update %.1f us, recapture %.1f us\n",
                            std::chrono::duration<double, std::micro>(t1 - t0).count(),
                            std::chrono::duration<double, std::micro>(t2 - t1).count());
            }
            // Break-even: copying X bytes in before the replay, against eager at M = 1.
            if (m == 1 && !fused && sweep) {
                __nv_bfloat16 *big_src, *big_dst;
                const std::size_t max_bytes = std::size_t(256) << 20;
                CUDA_CHECK(cudaMalloc(&big_src, max_bytes));
                CUDA_CHECK(cudaMalloc(&big_dst, max_bytes));
                for (std::size_t x = std::size_t(1) << 20; x <= max_bytes; x *= 2) {
                    const double copy_then_graph = e2e_us([&] {
                        CUDA_CHECK(cudaMemcpyAsync(big_dst, big_src, x, cudaMemcpyDeviceToDevice, s));
                        step.step_direct(s);
                    }, 50);
                    std::printf("  input %6.0f MiB copied in: %.1f us per step (eager %.1f us)\n", x / 1048576.0, copy_then_graph, eager_e2e);
                }
                cudaFree(big_src), cudaFree(big_dst);
            }
            cudaFree(in), cudaFree(out);
        }
    return 0;
}
