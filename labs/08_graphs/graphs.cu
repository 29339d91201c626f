// Lab 08 — THE FILE YOU EDIT. Read labs/08_graphs/README.md first.
#include "graphs.hpp"
#include "labs/launch.hpp"

// TODO(student): GraphStep. Impl is yours: the captured graph and its instance, the input buffer the graph
// reads, where it writes. Capture run_step_eager() on a stream of your own (cudaStreamBeginCapture /
// cudaStreamEndCapture), instantiate once, and launch with replay() (it counts host launches).
struct GraphStep::Impl {};

GraphStep::GraphStep(const FfnModel& model, const StepBuffers& b, bool fused) { gpulab::unused(model, b, fused); }
GraphStep::~GraphStep() = default;
__nv_bfloat16* GraphStep::input() { return nullptr; }
__nv_bfloat16* GraphStep::output() { return nullptr; }
cudaGraph_t GraphStep::graph() const { return nullptr; }
void GraphStep::step_copy_in(const __nv_bfloat16* src, cudaStream_t s) { gpulab::unused(src, s); }
void GraphStep::step_direct(cudaStream_t s) { gpulab::unused(s); }
// TODO(student) (d): the same graph, its output moved: cudaGraphExecUpdate on a fresh capture ...
void GraphStep::move_output_by_update(__nv_bfloat16* y) { gpulab::unused(y); }
// ... and by capturing and instantiating again.
void GraphStep::move_output_by_recapture(__nv_bfloat16* y) { gpulab::unused(y); }
