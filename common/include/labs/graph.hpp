/**
 * @file graph.hpp
 * @brief Capturing work into a CUDA graph to see what it launches: how many kernels, which ones (by
 * name), with what grid — the ground truth behind "this path is one kernel" — and replaying it.
 *
 * @code
 * gpulab::CapturedGraph g([&](cudaStream_t s) { launch_fused(x, y, n, s); });
 * g.kernels().size();        // kernel nodes the launcher enqueued
 * g.kernels()[0].name;       // "(anonymous namespace)::fused_kernel<true>" (demangled)
 * g.replay();                // runs the captured work once more, and waits for it
 * @endcode
 */
#pragma once

#include <cstddef>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

namespace gpulab {

/** @brief One kernel launch found in a captured graph. */
struct KernelNode {
    std::string name;          ///< demangled, without arguments ("<unnamed kernel>" when the driver cannot name it)
    std::string mangled;       ///< the symbol as the driver reports it (empty when unnamed)
    dim3 grid{};               ///< grid of the launch
    dim3 block{};              ///< block of the launch
    std::size_t dynamic_smem = 0;  ///< dynamic shared memory per block, bytes
};

/** @brief Capture failed: the work synchronised, used another stream, or threw. */
class CaptureError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/**
 * @brief Work captured from a stream into a CUDA graph (cudaStreamCaptureModeGlobal, on a private
 * non-blocking stream): its kernel nodes with their names, and a replay.
 *
 * Capture enqueues nothing on the device: the captured work runs only when replay() is called. A
 * launcher that synchronises, waits on the host, or launches on a stream other than the one it is given
 * breaks the capture, and the constructor throws a CaptureError that says so.
 */
class CapturedGraph {
public:
    /** @param enqueue enqueues the work on the given stream */
    explicit CapturedGraph(const std::function<void(cudaStream_t)>& enqueue);
    ~CapturedGraph();
    CapturedGraph(const CapturedGraph&) = delete;
    CapturedGraph& operator=(const CapturedGraph&) = delete;

    /** @brief The kernel nodes, in the graph's node order. */
    [[nodiscard]] const std::vector<KernelNode>& kernels() const noexcept { return kernels_; }
    /** @brief Nodes of every type (kernels, memsets, copies, ...). */
    [[nodiscard]] std::size_t node_count() const noexcept { return nodes_; }
    /** @brief "2 kernels: a(...), b(...)" — for messages. */
    [[nodiscard]] std::string describe() const;
    /** @brief Instantiates the graph (first call), launches it on its stream and waits for it. */
    void replay();
    /** @brief Instantiates the graph (first call) and launches it on @p stream without waiting: for timing a
     *  replay among other work (a benchmark's loop, a baseline interleaved with the graded code).
     *  @param stream where the replay is enqueued */
    void launch(cudaStream_t stream);

private:
    cudaStream_t stream_ = nullptr;
    cudaGraph_t graph_ = nullptr;
    cudaGraphExec_t exec_ = nullptr;
    std::vector<KernelNode> kernels_;
    std::size_t nodes_ = 0;
};

/** @brief A demangled C++ symbol (the input itself when it does not demangle). @param mangled symbol */
[[nodiscard]] std::string demangle(const std::string& mangled);

/** @brief A kernel's name for messages: demangled, without its arguments and return type ("ns::k<1, float>").
 *  @param mangled the kernel's symbol */
[[nodiscard]] std::string kernel_name(const std::string& mangled);

}  // namespace gpulab
