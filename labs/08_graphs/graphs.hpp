/**
 * @file graphs.hpp
 * @brief Lab 08 interface: one decode step of a small FFN stack, launched kernel by kernel (eager) and replayed
 * as a captured CUDA graph — with the step's input copied into the buffer the graph captured, or written there
 * by its producer, with the activation chain fused, and with a pointer changed by updating the graph instead of
 * capturing it again (sections 5.5.1, 5.5.2).
 *
 * FROZEN: do not edit.
 *
 * A layer: h = RMSNorm(x)·γ; g = h·W_gate; u = h·W_up; a = SiLU(g); p = a ⊙ u; x' = p·W_down (no residual, so that a
 * step's output is the next layer's input as is). Six kernels, five with SiLU and ⊙ fused (lab 05). Every given
 * launcher counts its host launch (host_launches()), and replay() counts a graph launch; replay() is the only
 * graph launch the code policy allows. The checks count what the grader observes the steps do — every host
 * submission, every graph launch and instantiation, the kernels that ran and the instance they ran in — and how
 * the output was moved (an update of the replayed instance, or a new one).
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

/** @brief The stack's shape. */
struct FfnShape {
    int m = 1;           ///< rows (tokens) per step
    int hidden = 512;    ///< H (small enough that at M = 1 a step is bound by its launches, not its kernels)
    int ffn = 1408;      ///< F (even: the projections read two columns at a time)
    int layers = 1;      ///< layers per step
};

/** @brief The stack's weights and one step's activations, on the device (given: filled from a seed). */
class FfnModel {
public:
    /** @param shape the stack @param seed draws the weights */
    FfnModel(const FfnShape& shape, std::uint64_t seed);
    ~FfnModel();
    FfnModel(const FfnModel&) = delete;
    FfnModel& operator=(const FfnModel&) = delete;
    /** @brief The stack's shape. */
    [[nodiscard]] const FfnShape& shape() const noexcept { return shape_; }
    /** @brief Layer @p l's weights: γ [H], W_gate and W_up [H, F], W_down [F, H], row-major. */
    [[nodiscard]] const __nv_bfloat16* gamma(int l) const;  ///< [H]
    [[nodiscard]] const __nv_bfloat16* w_gate(int l) const;  ///< [H, F]
    [[nodiscard]] const __nv_bfloat16* w_up(int l) const;    ///< [H, F]
    [[nodiscard]] const __nv_bfloat16* w_down(int l) const;  ///< [F, H]

private:
    FfnShape shape_;
    std::vector<__nv_bfloat16*> buffers_;
};

/** @brief Scratch for one step at the model's M (given: allocated here): a layer's intermediates and a ping-pong
 *  pair of [M, H] buffers. */
class StepBuffers {
public:
    /** @param shape the stack (its M sets the sizes) */
    explicit StepBuffers(const FfnShape& shape);
    ~StepBuffers();
    StepBuffers(const StepBuffers&) = delete;
    StepBuffers& operator=(const StepBuffers&) = delete;
    __nv_bfloat16 *h = nullptr;   ///< [M, H] normalised input
    __nv_bfloat16 *g = nullptr;   ///< [M, F] gate projection
    __nv_bfloat16 *u = nullptr;   ///< [M, F] up projection
    __nv_bfloat16 *a = nullptr;   ///< [M, F] SiLU(g)
    __nv_bfloat16 *p = nullptr;   ///< [M, F] a ⊙ u
    __nv_bfloat16 *x0 = nullptr;  ///< [M, H] layer input/output, alternating with x1
    __nv_bfloat16 *x1 = nullptr;  ///< [M, H]
};

// ---- given (baseline.cu): kernels, counted ---------------------------------------------------------------

/** @brief Host launches the given launchers and replay() made in this process (kernels and graphs). */
[[nodiscard]] std::int64_t host_launches();
/** @brief Graph launches replay() made. */
[[nodiscard]] std::int64_t graph_launches();

/** @brief h = RMSNorm(x)·γ for each of @p m rows of @p hidden values (one counted launch). */
void launch_rmsnorm(const __nv_bfloat16* x, const __nv_bfloat16* gamma, __nv_bfloat16* h, int m, int hidden, cudaStream_t s);
/** @brief out[M, N] = in[M, K] · w[K, N] (a GEMV at small M; one counted launch). */
void launch_projection(const __nv_bfloat16* in, const __nv_bfloat16* w, __nv_bfloat16* out, int m, int k, int n, cudaStream_t s);
/** @brief a = SiLU(g), @p n values (one counted launch). */
void launch_silu(const __nv_bfloat16* g, __nv_bfloat16* a, std::size_t n, cudaStream_t s);
/** @brief p = a ⊙ u, @p n values (one counted launch). */
void launch_mul(const __nv_bfloat16* a, const __nv_bfloat16* u, __nv_bfloat16* p, std::size_t n, cudaStream_t s);
/** @brief p = SiLU(g) ⊙ u in one kernel, the same bits as launch_silu then launch_mul. */
void launch_silu_mul(const __nv_bfloat16* g, const __nv_bfloat16* u, __nv_bfloat16* p, std::size_t n, cudaStream_t s);
/** @brief Launches @p exec on @p s and counts it (the only graph launch the checks accept). */
void replay(cudaGraphExec_t exec, cudaStream_t s);

/** @brief The eager step: every layer's six (five with @p fused) kernels, x from @p in, the result into @p out
 *  (in and out may be any [M, H] buffers; the layers ping-pong between b.x0 and b.x1 in between). */
void run_step_eager(const FfnModel& model, const StepBuffers& b, const __nv_bfloat16* in, __nv_bfloat16* out, bool fused,
                    cudaStream_t s);

// ---- yours (graphs.cu) -------------------------------------------------------------------------------------

/**
 * @brief A step captured once and replayed: (a) the whole stack in one graph; (b) a new input each step, copied
 * into the captured input buffer (step_copy_in) or written there by its producer (input(), then step_direct);
 * (c) with the fused chain; (d) the output moved to another buffer by updating the graph or by capturing it again.
 */
class GraphStep {
public:
    /** @param model the stack @param b scratch at the model's M @param fused capture the fused chain */
    GraphStep(const FfnModel& model, const StepBuffers& b, bool fused);
    ~GraphStep();
    GraphStep(const GraphStep&) = delete;
    GraphStep& operator=(const GraphStep&) = delete;
    /** @brief The buffer the graph reads its input from ([M, H]; a producer may write it before step_direct). */
    [[nodiscard]] __nv_bfloat16* input();
    /** @brief Where the graph writes its output now ([M, H]). */
    [[nodiscard]] __nv_bfloat16* output();
    /** @brief The captured graph (for your own inspection: the checks count the kernels that ran, not its nodes). */
    [[nodiscard]] cudaGraph_t graph() const;
    /** @brief Copies @p src ([M, H]) into input(), then replays: both on @p s. */
    void step_copy_in(const __nv_bfloat16* src, cudaStream_t s);
    /** @brief Replays on @p s, reading what the producer put into input(). */
    void step_direct(cudaStream_t s);
    /** @brief From now on the output goes to @p y: the instantiated graph is updated in place. */
    void move_output_by_update(__nv_bfloat16* y);
    /** @brief The same, by capturing and instantiating the step again. */
    void move_output_by_recapture(__nv_bfloat16* y);

    struct Impl;  ///< yours

private:
    Impl* impl_ = nullptr;
};
