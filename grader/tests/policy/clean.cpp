// Allowed: containers, algorithms, math and printing to stdout/stderr.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

double policy_sample_clean(int n) {
    std::vector<double> v(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = std::sqrt(double(i));
    std::sort(v.begin(), v.end());
    std::fprintf(stderr, "debug: %d\n", n);
    return v.empty() ? 0.0 : v.back();
}
