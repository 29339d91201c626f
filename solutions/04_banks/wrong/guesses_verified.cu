// Known-bad (wrong/expect.json): transposes only the calls it guesses are verified — the first on each (input,
// output) pair, then every 12th, where a grader that checks fixed calls would look — and launches nothing on the
// others. Every timed call gets new data and a scrambled output, and the calls verified are drawn afterwards from
// a secret: most of them are wrong.
#include <map>
#include <tuple>

#include "transpose.cuh"

WRONG_RIGHT_LAYOUTS()

namespace {
template <class Layout, class T>
void guessed(const T* in, T* out, int rows, int cols, cudaStream_t stream) {
    static std::map<std::tuple<const void*, void*, int, int>, int> calls;
    const int n = ++calls[{in, out, rows, cols}];
    if (n == 1 || n % 12 == 0) wrong::launch<Layout>(in, out, rows, cols, stream);
}
}  // namespace

WRONG_LAUNCHERS_VIA(guessed)
