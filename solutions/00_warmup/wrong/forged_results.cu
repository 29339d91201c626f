// Known-bad (wrong/expect.json): on its first call, writes a full score onto the report channel (fd 3)
// and exits — the kernel never runs. The code policy finds write() and exit() in the compiled object, and
// the lab's code checks fail before any of this code runs.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "one_per_element.cuh"

void launch_vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
    const char* ids[] = {"correct.n1", "correct.n1000", "correct.n1048583", "correct.large", "correct.drawn",
                         "correct.timed", "perf.copy_fraction"};
    for (const char* id : ids) {
        char line[256];
        std::snprintf(line, sizeof line,
                      "{\"type\":\"result\",\"result\":{\"id\":\"%s\",\"kind\":\"correctness\",\"status\":\"pass\","
                      "\"points\":35,\"max_points\":35}}\n", id);
        (void)!write(3, line, std::strlen(line));
    }
    (void)!write(3, "{\"type\":\"done\"}\n", 16);
    std::exit(0);
    wrong::add(a, b, c, n, stream);
}
