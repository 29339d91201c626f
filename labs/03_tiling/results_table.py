#!/usr/bin/env python3
"""Usage: results_table.py BENCH.json README.md — redraws lab 03's results tables in its handout, between
the results markers, from `lab03_bench_solution --benchmark_format=json > BENCH.json`. Nothing is typed."""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "common", "scripts"))
import handout_table  # noqa: E402

VARIANTS = [  # benchmark name, what the table calls it
    ("naive", "naive (one thread per output)"),
    ("v1", "v1 shared-memory tiles"),
    ("v2", "v2 register tiles"),
    ("v3", "v3 tensor cores"),
    ("fused", "v3 + SiLU fused"),
    ("v3_then_silu", "v3, then SiLU as its own kernel"),
    ("cublas", "cuBLAS"),
]


microseconds = handout_table.microseconds


def table_lines(benchmarks, ctx):
    runs, tiles = {}, {}
    shape = None
    for b in benchmarks:
        m = re.match(r"run/(\w+)/", b["name"])
        if m:
            runs[m.group(1)] = b
        m = re.match(r"v1_tile<(\d+)>", b["name"])
        if m:
            tiles[int(m.group(1))] = b
        if "M" in b:
            shape = (int(b["M"]), int(b["K"]), int(b["N"]))
    handout_table.require_runs(runs, "lab03 benchmarks")
    lines = []
    if shape:
        lines.append(f"C = A·W with M = {shape[0]}, K = {shape[1]}, N = {shape[2]} (BF16 in and out, FP32 accumulation):")
        lines.append("")
    lines += handout_table.header("variant", "µs", "TFLOP/s", "% of cuBLAS", "speed-up over naive")
    cublas = runs.get("cublas")
    naive = runs.get("naive")
    for key, label in VARIANTS:
        b = runs.get(key)
        if not b:
            continue
        us = microseconds(b)
        pct = f"{100 * microseconds(cublas) / us:.0f}%" if cublas else "–"
        speedup = f"{microseconds(naive) / us:.1f}×" if naive else "–"
        lines.append(f"| {label} | {us:.1f} | {b['TFLOP/s']:.1f} | {pct} | {speedup} |")
    if tiles:
        # The model's traffic and local storage are graded questions (answers.toml): the table shows only
        # what was measured, and the bench prints the model's figures for those who ran it.
        lines += ["", "v1 with three tiles, k = 32 (measured; the model's traffic for each is yours to work out):", "",
                  *handout_table.header("tile", "µs", "TFLOP/s", "smem B/block", "regs/thread", "blocks/SM")]
        for t in sorted(tiles):
            b = tiles[t]
            lines.append(f"| {t}×{t} | {microseconds(b):.1f} | {b['TFLOP/s']:.1f} | {b['smem_B/block']:.0f} | "
                         f"{b['regs/thread']:.0f} | {b['blocks/SM']:.0f} |")
    return lines + ["", handout_table.measured_by("lab03_bench", ctx)]


if __name__ == "__main__":
    handout_table.main(__doc__, table_lines)
