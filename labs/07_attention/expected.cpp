// FROZEN: do not edit. Lab 07's expected values, computed in double precision on the CPU.
#include "expected.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

std::vector<double> softmax_expected(const std::vector<float>& x, int rows, std::int64_t cols) {
    std::vector<double> y(x.size());
    for (int r = 0; r < rows; ++r) {
        const float* in = x.data() + std::size_t(r) * cols;
        double m = -std::numeric_limits<double>::infinity(), l = 0.0;
        for (std::int64_t c = 0; c < cols; ++c) m = std::max(m, double(in[c]));
        for (std::int64_t c = 0; c < cols; ++c) l += std::exp(double(in[c]) - m);
        for (std::int64_t c = 0; c < cols; ++c) y[std::size_t(r) * cols + c] = std::exp(double(in[c]) - m) / l;
    }
    return y;
}

AttentionExpected attention_expected(const std::vector<__nv_bfloat16>& q, const std::vector<__nv_bfloat16>& k,
                                     const std::vector<__nv_bfloat16>& v, int heads, int L, int d, bool causal) {
    AttentionExpected r;
    r.o.assign(std::size_t(heads) * L * d, 0.0);
    r.lse.assign(std::size_t(heads) * L, 0.0);
    const double scale = 1.0 / std::sqrt(double(d));
    std::vector<double> s(L);
    const auto at = [](const std::vector<__nv_bfloat16>& m, std::size_t i) { return double(__bfloat162float(m[i])); };
    for (int h = 0; h < heads; ++h) {
        const std::size_t base = std::size_t(h) * L * d;
        for (int i = 0; i < L; ++i) {
            const int n = causal ? i + 1 : L;
            double m = -std::numeric_limits<double>::infinity();
            for (int j = 0; j < n; ++j) {
                double dot = 0.0;
                for (int c = 0; c < d; ++c) dot += at(q, base + std::size_t(i) * d + c) * at(k, base + std::size_t(j) * d + c);
                s[j] = dot * scale;
                m = std::max(m, s[j]);
            }
            double l = 0.0;
            for (int j = 0; j < n; ++j) l += std::exp(s[j] - m);
            for (int j = 0; j < n; ++j) {
                const double p = std::exp(s[j] - m) / l;
                for (int c = 0; c < d; ++c) r.o[base + std::size_t(i) * d + c] += p * at(v, base + std::size_t(j) * d + c);
            }
            r.lse[std::size_t(h) * L + i] = m + std::log(l);
        }
    }
    return r;
}
