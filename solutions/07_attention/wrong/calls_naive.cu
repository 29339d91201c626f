// Known-bad (wrong/expect.json): the launchers hand the work to what the lab gives — the three-pass softmax
// and the MATH path. Right results; the code policy finds the calls in the compiled object before anything runs.
#include "attention.hpp"

void launch_softmax(const float* x, float* y, int rows, std::int64_t cols, Arena& ws, cudaStream_t stream) {
    launch_softmax_three_pass(x, y, rows, cols, ws, stream);
}

void launch_attention(const AttentionArgs& a, Arena& ws, cudaStream_t stream) { launch_attention_naive(a, ws, stream); }

void launch_attention_hopper(const AttentionArgs& a, Arena& ws, cudaStream_t stream) { launch_attention_naive(a, ws, stream); }
