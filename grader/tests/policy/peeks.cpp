// Denied: what lets graded code look around it — the environment, the dynamic loader's tables, a sleep, a
// write through a descriptor by another name, and the grader's observer (CUPTI).
#include <link.h>
#include <stdio.h>

#include <chrono>
#include <cstdlib>
#include <thread>

extern "C" int cuptiActivityDisable(int kind);
extern char** environ;

static int count_objects(dl_phdr_info*, size_t, void* n) { return ++*static_cast<int*>(n), 0; }

int policy_sample_peeks() {
    int n = 0;
    dl_iterate_phdr(count_objects, &n);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    dprintf(3, "forged\n");
    return n + (std::getenv("CUDA_INJECTION64_PATH") != nullptr) + (environ != nullptr) + cuptiActivityDisable(10);
}
