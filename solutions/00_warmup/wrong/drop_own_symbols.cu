// Known-bad (wrong/expect.json): a plain static constructor (the C library hands it argc and argv) deletes
// the file the grader once passed with --own-symbols — the list of the symbols this object defines — before
// the runner read it; without the list, no kernel could be told apart from the code's own, and provenance
// would be off for the whole run. (The runner now gets the list on its key pipe, before the graded code is
// loaded.) The code policy denies remove() with the other calls that reach files: it stops this version
// before it runs.
#include <cstdio>
#include <cstring>

#include "one_per_element.cuh"

namespace {

__attribute__((constructor)) void drop_symbol_list(int argc, char** argv, char**) {
    for (int i = 1; i + 1 < argc; ++i)
        if (std::strcmp(argv[i], "--own-symbols") == 0) (void)std::remove(argv[i + 1]);
}

}  // namespace

void launch_vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
    wrong::add(a, b, c, n, stream);
}
