/**
 * @file gpu_request.hpp
 * @brief Lab 12's request on the GPU, built from the course's own operators (lab 08's given FFN kernels): a prefill of
 * the prompt through an FFN stack on the main stream, beside it on a second stream a projection of the prompt (the
 * "kv" branch), joined by an event before the decode; then decode steps of one token through the same stack on the
 * main stream. The activation is the operator the lab replaces: SiLU then ⊙ (two kernels), or the fused kernel.
 *
 * FROZEN: do not edit. The grader records an enqueued request with its observer and hands your analysis the trace:
 * the kernels it saw (by stream and start), each named for its operator (op_of()), and the request's one wait across
 * streams (waits()).
 */
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

namespace request {

/** @brief The request's shape. */
struct GpuRequestShape {
    int prompt = 1024;   ///< prefill tokens
    int steps = 16;      ///< decode steps, one token each
    int hidden = 512;    ///< H
    int ffn = 1408;      ///< F
    int layers = 2;      ///< FFN layers per pass
    int kv_passes = 6;   ///< projections of the prompt on the side stream, one after another
};

/** @brief A wait across streams, by lane and by the order of the kernels on each lane. */
struct WaitPoint {
    int before_lane = 0;    ///< the lane of the last kernel enqueued before the event's record
    int before_kernel = 0;  ///< its order on that lane
    int after_lane = 0;     ///< the lane of the first kernel enqueued after the wait
    int after_kernel = 0;   ///< its order on that lane
};

/** @brief The request's weights and buffers (given: allocated and filled from a seed), and how it is enqueued. */
class GpuRequest {
public:
    /** @param shape the request @param seed draws the weights and the prompt */
    GpuRequest(const GpuRequestShape& shape, std::uint64_t seed);
    ~GpuRequest();
    GpuRequest(const GpuRequest&) = delete;
    GpuRequest& operator=(const GpuRequest&) = delete;

    /** @brief Enqueues the whole request: lane 0 on @p main, lane 1 on @p side (forked from main and joined back by
     *  events), with the activation fused or not; returns without waiting. @param fused the fused activation
     *  @param main lane 0 @param side lane 1 */
    void enqueue(bool fused, cudaStream_t main, cudaStream_t side);
    /** @brief The waits across lanes of every enqueue (the kernels counted per lane, from 0). @param fused which
     *  version */
    [[nodiscard]] std::vector<WaitPoint> waits(bool fused) const;
    /** @brief How many kernels each lane runs. @param fused which version @param lane 0 or 1 */
    [[nodiscard]] int kernels(bool fused, int lane) const;
    /** @brief The operator a kernel belongs to, from its name and lane: "norm", "ffn projection", "activation",
     *  "kv projection" ("" for a kernel that is none of the request's). @param kernel_name demangled @param lane its lane */
    [[nodiscard]] static std::string op_of(const std::string& kernel_name, int lane);
    /** @brief The request's shape. */
    [[nodiscard]] const GpuRequestShape& shape() const noexcept { return shape_; }

    struct State;  ///< the weights, buffers and events

private:
    GpuRequestShape shape_;
    std::unique_ptr<State> state_;
};

}  // namespace request
