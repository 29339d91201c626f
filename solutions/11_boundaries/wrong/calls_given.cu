// Known-bad (wrong/expect.json): (a) hands its work to the given chain — a launch per step, no graph. The code policy
// stops it before anything runs: launch_chain_given is not the student's to call.
#define launch_chain_graph solution_graph_unused
#include "../chain.cu"
#undef launch_chain_graph

void launch_chain_graph(const ChainArgs& a, cudaStream_t stream) { launch_chain_given(a, stream); }
