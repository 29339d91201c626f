// Known-bad (wrong/expect.json): gets past the code policy (only fprintf) by pointing stderr's FILE at the
// report channel, fd 3, and writes what looks like the rest of a perfect run there before doing the work.
// Those lines lack the channel's authentication, so the grader marks the whole part TAMPERED.
#include <cstdio>

#include "one_per_element.cuh"

void launch_vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
    static bool forged = false;
    if (!forged) {
        forged = true;
        const int saved = stderr->_fileno;
        stderr->_fileno = 3;  // glibc's FILE: the descriptor it writes to
        const char* ids[] = {"correct.n1", "correct.n1000", "correct.n1048583", "correct.large", "correct.drawn",
                             "correct.timed"};
        for (const char* id : ids)
            std::fprintf(stderr,
                         "{\"type\":\"start\",\"id\":\"%s\"}\n{\"type\":\"result\",\"result\":{\"id\":\"%s\",\"title\":\"%s\","
                         "\"kind\":\"correctness\",\"status\":\"pass\",\"points\":10,\"max_points\":10}}\n", id, id, id);
        std::fprintf(stderr, "{\"type\":\"done\"}\n");
        std::fflush(stderr);
        stderr->_fileno = saved;
    }
    wrong::add(a, b, c, n, stream);
}
