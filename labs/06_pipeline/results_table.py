#!/usr/bin/env python3
"""Usage: results_table.py BENCH.json README.md — redraws lab 06's results table in its handout, between the
results markers, from `lab06_bench_solution --benchmark_format=json > BENCH.json`. Nothing is typed."""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "common", "scripts"))
import handout_table  # noqa: E402

VARIANTS = [(0, "load-only"), (1, "compute-only"), (2, "your one slot")] + \
    [(10 + s, f"{s} stage{'s' if s > 1 else ''} (cp.async)") for s in range(1, 7)] + \
    [(20 + s, f"producer warp, {s} slots") for s in range(2, 7)]


def table_lines(benchmarks, ctx):
    runs, stages = {}, {}
    for b in benchmarks:
        if re.match(r"pipeline/\d+/\d+/", b["name"]) and not b.get("error_occurred"):
            ratio = round(b["t_c_us"] / b["t_m_us"], 2)
            runs[(b["ratio"], int(b["variant"]))] = (handout_table.microseconds(b) / 1e3, b.get("model_ms"))
            stages[b["ratio"]] = (ratio, b["t_m_us"], b["t_m1_us"], b["t_c_us"], b["bound_ms"], int(b["iters"]))
    handout_table.require_runs(runs, "lab06 runs")
    ratios = sorted(stages)
    lines = handout_table.header("variant", *(f"t_c/t_m = {stages[r][0]:g}: ms (model ÷ measured)" for r in ratios))
    for v, name in VARIANTS:
        cells = []
        for r in ratios:
            ms, model = runs.get((r, v), (None, None))
            cells.append("" if ms is None else f"{ms:.3f}" + (f" ({model / ms:.2f})" if model else ""))
        if any(cells):
            lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines.append("| bound: max(load-only, compute-only) | " + " | ".join(f"{stages[r][4]:.3f}" for r in ratios) + " |")
    lines += ["", "Per tile (µs), t_m (many copies in flight) / t_m⁽¹⁾ (one) / t_c: " +
              "; ".join(f"{stages[r][1]:.3f} / {stages[r][2]:.3f} / {stages[r][3]:.3f} at {stages[r][5]} steps per value"
                        for r in ratios) + ".", ""]
    return lines + [handout_table.measured_by("lab06_bench", ctx, "one block per SM, 256 tiles of 16 KiB each")]


if __name__ == "__main__":
    handout_table.main(__doc__, table_lines)
