// Known-bad (wrong/expect.json): the chase counts its steps from 1 and so takes one link fewer than asked;
// its times look plausible, but the walk does not end where the chain does.
#define WRONG_CHASE
#include "parts.cuh"

__global__ void chase_kernel(const std::uint32_t* words, std::uint32_t start, std::int64_t steps, std::uint32_t* end) {
    std::uint32_t i = start;
    for (std::int64_t s = 1; s < steps; ++s) i = __ldcg(words + i);
    *end = i;
}
