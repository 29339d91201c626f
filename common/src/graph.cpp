// Capturing work into a CUDA graph and naming its kernels.
#include "labs/graph.hpp"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

#include <cuda.h>  // driver types only: the entry points are looked up at run time (no libcuda link)

#include "labs/cuda_check.hpp"

namespace gpulab {
namespace {

// The driver's view of a kernel node names every kernel, including those a library launched through
// the driver API (the runtime's cudaFuncGetName knows only this program's own kernels). The entry
// points come from the runtime, so nothing links against libcuda and programs still start without a
// driver.
template <typename F>
F driver_entry(const char* symbol) {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult status{};
#if CUDART_VERSION >= 12050
    // The ABI of the headers this file was compiled with (cuFuncGetName, for one, exists since 12.3).
    if (cudaGetDriverEntryPointByVersion(symbol, &fn, CUDART_VERSION, cudaEnableDefault, &status) != cudaSuccess)
        fn = nullptr;
#else
    if (cudaGetDriverEntryPoint(symbol, &fn, cudaEnableDefault, &status) != cudaSuccess) fn = nullptr;
#endif
    if (status != cudaDriverEntryPointSuccess) fn = nullptr;
    return reinterpret_cast<F>(fn);
}

// "void ns::kernel<1, float>(float const*, int)" → "ns::kernel<1, float>": the arguments and the
// return type of a template's name say nothing a reader needs.
std::string short_name(std::string s) {
    if (!s.empty() && s.back() == ')') {
        int depth = 0;
        for (std::size_t i = s.size(); i-- > 0;) {
            if (s[i] == ')') ++depth;
            else if (s[i] == '(' && --depth == 0) {
                s.erase(i);
                break;
            }
        }
    }
    if (s.rfind("void ", 0) == 0) s.erase(0, 5);
    return s;
}


using NodeParamsFn = CUresult (*)(CUgraphNode, CUDA_KERNEL_NODE_PARAMS_v2*);
using FuncNameFn = CUresult (*)(const char**, CUfunction);
using KernelNameFn = CUresult (*)(const char**, CUkernel);

KernelNode describe_node(cudaGraphNode_t node) {
    static const auto get_params = driver_entry<NodeParamsFn>("cuGraphKernelNodeGetParams");
    static const auto func_name = driver_entry<FuncNameFn>("cuFuncGetName");
    static const auto kernel_name = driver_entry<KernelNameFn>("cuKernelGetName");
    KernelNode k;
    const char* name = nullptr;
    CUDA_KERNEL_NODE_PARAMS_v2 p{};
    if (get_params != nullptr && get_params(reinterpret_cast<CUgraphNode>(node), &p) == CUDA_SUCCESS) {
        k.grid = dim3(p.gridDimX, p.gridDimY, p.gridDimZ);
        k.block = dim3(p.blockDimX, p.blockDimY, p.blockDimZ);
        k.dynamic_smem = p.sharedMemBytes;
        if (p.func != nullptr && func_name != nullptr && func_name(&name, p.func) != CUDA_SUCCESS) name = nullptr;
        if (name == nullptr && p.kern != nullptr && kernel_name != nullptr && kernel_name(&name, p.kern) != CUDA_SUCCESS)
            name = nullptr;
    }
    if (name == nullptr) {
        // The runtime's view, which names this program's own kernels.
        cudaKernelNodeParams rp{};
        if (cudaGraphKernelNodeGetParams(node, &rp) == cudaSuccess) {
            k.grid = rp.gridDim;
            k.block = rp.blockDim;
            k.dynamic_smem = rp.sharedMemBytes;
            if (cudaFuncGetName(&name, rp.func) != cudaSuccess) name = nullptr;
        }
        (void)cudaGetLastError();
    }
    if (name != nullptr) {
        k.mangled = name;
        k.name = short_name(demangle(name));
    } else {
        k.name = "<unnamed kernel>";
    }
    return k;
}

}  // namespace

std::string kernel_name(const std::string& mangled) { return short_name(demangle(mangled)); }

std::string demangle(const std::string& mangled) {
    int status = 0;
    std::unique_ptr<char, void (*)(void*)> out(abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), std::free);
    return status == 0 && out ? std::string(out.get()) : mangled;
}

CapturedGraph::CapturedGraph(const std::function<void(cudaStream_t)>& enqueue) {
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeGlobal));
    std::string thrown;
    try {
        enqueue(stream_);
    } catch (const std::exception& e) {
        thrown = e.what();
    }
    const cudaError_t end = cudaStreamEndCapture(stream_, &graph_);
    if (!thrown.empty() || end != cudaSuccess) {
        (void)cudaGetLastError();  // capture errors are not sticky: clear them
        if (graph_ != nullptr) (void)cudaGraphDestroy(graph_);
        graph_ = nullptr;
        (void)cudaStreamDestroy(stream_);
        stream_ = nullptr;
        throw CaptureError("stream capture failed (" + (thrown.empty() ? std::string(cudaGetErrorName(end)) : thrown) +
                           "): a launcher must only enqueue work on the stream it is given — no synchronisation, "
                           "no other stream");
    }
    std::size_t n = 0;
    CUDA_CHECK(cudaGraphGetNodes(graph_, nullptr, &n));
    std::vector<cudaGraphNode_t> nodes(n);
    if (n > 0) CUDA_CHECK(cudaGraphGetNodes(graph_, nodes.data(), &n));
    nodes_ = n;
    for (cudaGraphNode_t node : nodes) {
        cudaGraphNodeType type{};
        CUDA_CHECK(cudaGraphNodeGetType(node, &type));
        if (type == cudaGraphNodeTypeKernel) kernels_.push_back(describe_node(node));
    }
}

CapturedGraph::~CapturedGraph() {
    if (exec_ != nullptr) (void)cudaGraphExecDestroy(exec_);
    if (graph_ != nullptr) (void)cudaGraphDestroy(graph_);
    if (stream_ != nullptr) (void)cudaStreamDestroy(stream_);
}

std::string CapturedGraph::describe() const {
    std::string s = std::to_string(kernels_.size()) + (kernels_.size() == 1 ? " kernel" : " kernels");
    for (std::size_t i = 0; i < kernels_.size(); ++i) s += (i == 0 ? ": " : ", ") + kernels_[i].name;
    return s;
}

void CapturedGraph::replay() {
    launch(stream_);
    CUDA_CHECK(cudaStreamSynchronize(stream_));
}

void CapturedGraph::launch(cudaStream_t stream) {
    if (exec_ == nullptr) CUDA_CHECK(cudaGraphInstantiate(&exec_, graph_, 0));
    CUDA_CHECK(cudaGraphLaunch(exec_, stream));
}

}  // namespace gpulab
