#!/usr/bin/env python3
"""Usage: results_table.py BENCH.json README.md — redraws lab 04's results tables in its handout, between
the results markers, from `lab04_bench_solution --benchmark_format=json > BENCH.json`. Nothing is typed."""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "common", "scripts"))
import handout_table  # noqa: E402

VARIANTS = ["naive_16", "naive_32", "plain_16", "plain_32", "padded", "swizzled", "swizzled_bf16"]
PROBES = [("plain", "plain FP32"), ("padded", "padded FP32"), ("swizzled", "swizzled FP32"),
          ("plain_bf16", "plain BF16"), ("swizzled_bf16", "swizzled BF16")]


def table_lines(benchmarks, ctx):
    rows, probes, copy = {}, {}, None
    for b in benchmarks:
        m = re.match(r"(?:fp32|bf16x)/(\w+)/(\d+)/", b["name"])
        if m:
            rows.setdefault(int(m.group(2)), {})[m.group(1)] = (handout_table.microseconds(b), b["GB/s"])
            copy = b["copy_GB/s"]
            continue
        m = re.match(r"probe/(\w+)", b["name"])
        if m:
            probes[m.group(1)] = b
    handout_table.require_runs(rows and probes, "lab04 transposes or probes")
    lines = handout_table.header("side", "naive 16² µs", "naive 32² µs", "plain 16 µs", "plain 32 µs", "padded µs",
                                 "swizzled µs", "BF16 swizzled µs", "padded % of copy", "swizzled % of copy",
                                 "plain 32 % of copy")
    for side in sorted(rows):
        r = rows[side]
        if not all(v in r for v in VARIANTS):
            continue
        times = " | ".join(f"{r[v][0]:.1f}" for v in VARIANTS)
        pct = " | ".join(f"{100 * r[v][1] / copy:.0f}%" for v in ("padded", "swizzled", "plain_32"))
        lines.append(f"| {side} | {times} | {pct} |")
    lines += ["", handout_table.measured_by("lab04_bench", ctx, f"copy bandwidth {copy:.0f} GB/s, read + write"), "",
              *handout_table.header("layout", "row write", "column read", "row read", "column read ÷ row read")]
    for key, label in PROBES:
        if key in probes:
            p = probes[key]
            lines.append(f"| {label} | {p['row_write_cycles']:.1f} | {p['column_read_cycles']:.1f} | "
                         f"{p['row_read_cycles']:.1f} | {p['column_read_cycles'] / p['row_read_cycles']:.1f}× |")
    return lines + ["", "Cycles per warp access, one warp, clock64() around 256 × 32 accesses (`lab04_bench`, probe/*)."]


if __name__ == "__main__":
    handout_table.main(__doc__, table_lines)
