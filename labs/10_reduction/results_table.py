#!/usr/bin/env python3
"""Usage: results_table.py BENCH.json README.md — redraws lab 10's results table in its handout, between the results
markers, from `lab10_bench_solution --benchmark_format=json > BENCH.json`. Nothing is typed."""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "common", "scripts"))
import handout_table  # noqa: E402

VARIANTS = ["given", "rows", "split", "invariant", "atomic"]


def table_lines(benchmarks, ctx):
    runs = {}
    copy = None
    for b in benchmarks:
        m = re.match(r"run/(\w+)/(\d+)/(\d+)/", b["name"])
        if not m or m.group(1) not in VARIANTS:
            continue
        variant, rows, cols = m.group(1), int(m.group(2)), int(m.group(3))
        copy = b["copy_GB/s"]
        runs.setdefault((cols, rows), {})[variant] = (handout_table.microseconds(b), b["GB/s"])
    handout_table.require_runs(runs, "lab10 benchmarks")
    lines = handout_table.header("M", "N", "given µs", "(a) µs", "(b) µs", "(c) µs", "(d) µs", "(a) % of copy",
                                 "(b) vs given", "(c) vs given")
    for (cols, rows) in sorted(runs):
        r = runs[(cols, rows)]
        if not all(v in r for v in VARIANTS):
            continue
        t = {v: r[v][0] for v in VARIANTS}
        lines.append(f"| {rows} | {cols} | {t['given']:.1f} | {t['rows']:.1f} | {t['split']:.1f} | {t['invariant']:.1f} | "
                     f"{t['atomic']:.1f} | {100 * r['rows'][1] / copy:.0f}% | {t['given'] / t['split']:.2f}× | "
                     f"{t['given'] / t['invariant']:.2f}× |")
    return lines + ["", handout_table.measured_by("lab10_bench", ctx, f"copy bandwidth {copy:.0f} GB/s, read + write")]


if __name__ == "__main__":
    handout_table.main(__doc__, table_lines)
