#!/usr/bin/env python3
"""Usage: results_table.py BENCH.json README.md — redraws lab 05's results table in its handout, between
the results markers, from `lab05_bench_solution --benchmark_format=json > BENCH.json`. Nothing is typed."""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "common", "scripts"))
import handout_table  # noqa: E402


def table_lines(benchmarks, ctx):
    rows = {}
    copy = None
    for b in benchmarks:
        m = re.match(r"run/(\w+)/(\d+)/", b["name"])
        if not m:
            continue
        variant, m_rows = m.group(1), int(m.group(2))
        us = handout_table.microseconds(b)
        gbps = b["GB/s"]  # the counter is already in GB/s
        copy = b["copy_GB/s"]
        rows.setdefault(m_rows, {})[variant] = (us, gbps)
    handout_table.require_runs(rows, "lab05 benchmarks")
    lines = handout_table.header("M", "3 kernels µs", "SiLU⊙U + quant µs", "fully fused µs", "fused GB/s",
                                 "fused % of copy", "speed-up (3 → 1)")
    for m_rows in sorted(rows):
        r = rows[m_rows]
        sep, two, one = r.get("separate"), r.get("fused_silu_mul"), r.get("all_fused")
        if not (sep and two and one):
            continue
        lines.append(f"| {m_rows} | {sep[0]:.1f} | {two[0]:.1f} | {one[0]:.1f} | {one[1]:.0f} | "
                     f"{100 * one[1] / copy:.0f}% | {sep[0] / one[0]:.2f}× |")
    return lines + ["", handout_table.measured_by("lab05_bench", ctx, f"copy bandwidth {copy:.0f} GB/s, read + write")]


if __name__ == "__main__":
    handout_table.main(__doc__, table_lines)
