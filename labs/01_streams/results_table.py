#!/usr/bin/env python3
"""Usage: results_table.py BENCH.json README.md — redraws lab 01's results table in its handout, between the
results markers, from `lab01_bench_solution --benchmark_format=json > BENCH.json`. Nothing is typed."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "common", "scripts"))
import handout_table  # noqa: E402
from bench_json import runs_by_name  # noqa: E402

SCALES = {1: "½×", 2: "1×", 4: "2×"}


def table_lines(benchmarks, ctx):
    rows = runs_by_name(benchmarks, r"run/(\d+)/(\d+)/", int, int)
    handout_table.require_runs(rows, "lab01 runs")
    lines = handout_table.header("chunks", "work", "end to end µs", "model µs (2 slots)", "stages in series µs",
                                 "measured ÷ model", "overlap")
    for (chunks, scale) in sorted(rows):
        b = rows[(chunks, scale)]
        us = handout_table.microseconds(b)
        serial, model = b["stages_serial_us"], b["model_us"]
        # The share of what overlapping could save that it did save: 0 = nothing overlapped, 1 = the model.
        overlap = (serial - us) / (serial - model) if serial > model else 0.0
        lines.append(f"| {chunks} | {SCALES.get(scale, scale)} | {us:.0f} | {model:.0f} | {serial:.0f} | "
                     f"{us / model:.2f} | {overlap:.2f} |")
    return lines + ["", handout_table.measured_by("lab01_bench", ctx, "64 MiB of BF16, pinned to pinned; work 1× = a "
                                                                      "chunk's kernel about as long as its copy in",
                                                  l2_flushed=False)]


if __name__ == "__main__":
    handout_table.main(__doc__, table_lines)
