#!/usr/bin/env python3
"""Lab 10's figures. Nothing is drawn or typed by hand.

    figures.py --bench BENCH.json [--out DIR]
        lab10_ulps.svg: a row's FP32 sum of squares against the segments it is cut into — the mean and the largest
        distance from the exact sum over 64 rows of 4096 BF16 values, in FP32 ULPs of the sum (the `ulps/S` runs,
        computed on the host with the course's models); lab10_times.svg, when the JSON holds the GPU runs: time
        against the rows M at N = 65536, the given one-block-per-row kernel and (b), (c), (d); from
        `lab10_bench --benchmark_format=json > BENCH.json`
"""
import json
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "common" / "scripts"))
from bench_json import measured_runs  # noqa: E402
from svg_chart import Chart, bench_figures_main  # noqa: E402

here = pathlib.Path(__file__).resolve().parent

VARIANTS = {"given": ("given, one block per row", 1), "split": ("(b) split", 0), "invariant": ("(c) batch-invariant", 2),
            "atomic": ("(d) atomic", 3)}
TIMES_COLS = 65536


def bench_figures(bench, out):
    runs = measured_runs(json.loads(pathlib.Path(bench).read_text()))
    ulps = sorted((int(b["segments"]), b["ulp_mean"], b["ulp_max"]) for b in runs if re.match(r"ulps/\d+", b["name"]))
    if not ulps:
        sys.exit("figures.py: no ulps/ runs in " + bench)
    out.mkdir(exist_ok=True)
    chart = Chart(640, 380, "A row's sum of squares (4096 BF16 values, FP32), cut into S segments")
    xs = [s for s, _, _ in ulps]
    chart.log_axes(xs, [v for _, mean, most in ulps for v in (mean, most)], "segments S (each left to right, then the partial sums)",
                   "distance from the exact sum (ULPs)")
    chart.line(xs, [most for _, _, most in ulps], None, 1)
    chart.points(xs, [most for _, _, most in ulps], "largest of 64 rows", 1)
    chart.line(xs, [mean for _, mean, _ in ulps], None, 0)
    chart.points(xs, [mean for _, mean, _ in ulps], "mean of 64 rows", 0, square=True)
    (out / "lab10_ulps.svg").write_text(chart.svg())
    written = [out / "lab10_ulps.svg"]

    times = {}
    for b in runs:
        m = re.match(r"run/(\w+)/(\d+)/(\d+)/", b["name"])
        if m and m.group(1) in VARIANTS and int(m.group(3)) == TIMES_COLS:
            us = b["real_time"] * {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}[b["time_unit"]]
            times.setdefault(m.group(1), {})[int(m.group(2))] = us
    if times:
        ms = sorted({m for t in times.values() for m in t})
        chart = Chart(640, 380, f"Rows of N = {TIMES_COLS}: time against the rows M")
        chart.log_axes(ms, [us for t in times.values() for us in t.values()], "rows M", "µs (L2 flushed)")
        for key, (name, colour) in VARIANTS.items():
            if key in times:
                xs = sorted(times[key])
                chart.line(xs, [times[key][m] for m in xs], None, colour)
                chart.points(xs, [times[key][m] for m in xs], name, colour)
        (out / "lab10_times.svg").write_text(chart.svg())
        written.append(out / "lab10_times.svg")
    print("wrote " + " and ".join(str(p) for p in written))


if __name__ == "__main__":
    bench_figures_main(__doc__, here / "figures", "lab10_bench.json", bench_figures)
