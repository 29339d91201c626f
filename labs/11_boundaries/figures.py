#!/usr/bin/env python3
"""Lab 11's figures. Nothing is drawn or typed by hand.

    figures.py --bench BENCH.json --report REPORT.json [--out DIR]
        lab11_timeline.svg: the first steps of the chapter's chain (64 GEMVs of 4096 × 4096) as the grader observed
        them — every kernel's start and end for the given chain's launches, (a)'s graph, (b)'s PDL launches and (c)'s
        one persistent kernel — from the launches checks' details of `grader --solution 11 --json REPORT.json`;
        lab11_boundaries.svg: what one more step costs, for each way of running the chain: (t(64) − t(16)) / 48,
        against its 32 MiB of weights at the copy bandwidth (in the title), from `lab11_bench --benchmark_format=json >
        BENCH.json`. The report's timelines are kept in figures/lab11_timelines.json, the bench in
        figures/lab11_bench.json (what --redraw draws from).
"""
import json
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "common" / "scripts"))
from bench_json import measured_runs  # noqa: E402
from svg_chart import Chart, figures_options, kept_from_report, lanes, no_committed_run, text, write_figure  # noqa: E402

here = pathlib.Path(__file__).resolve().parent
COLOURS = ["#1f6feb", "#2da44e"]
LANES = [("given", "given: a launch per step"), ("graph", "(a) one graph"), ("pdl", "(b) PDL"),
         ("persistent", "(c) persistent kernel")]
VARIANTS = [("given", "given, launches"), ("given_graph", "given, as a graph"), ("graph", "(a) graph"), ("pdl", "(b) PDL"),
            ("persistent", "(c) persistent")]
STEPS_SHOWN = 4


def timelines_from_report(report):
    """{variant: [[start_us, end_us], …]} from the launches checks of a grader report (lab 11's)."""
    out = {}
    for lab in report["labs"]:
        for check in lab.get("checks", []):
            d = check.get("details") or {}
            m = re.fullmatch(r"launches\.(graph|pdl|persistent)", check["id"])
            if m and "timeline_us" in d:
                out[m.group(1)] = d["timeline_us"]
                if "given_timeline_us" in d:
                    out["given"] = d["given_timeline_us"]
    missing = [k for k, _ in LANES if k not in out]
    if missing:
        sys.exit("figures.py: the report has no timeline for " + ", ".join(missing) + " (grade lab 11 with --json)")
    return out


def timeline_figure(t, out):
    # The window: the given chain's first STEPS_SHOWN steps and the gaps after them.
    given = t["given"]
    end = given[min(STEPS_SHOWN, len(given) - 1)][0]
    left, right, top, lane, width = 170, 30, 36, 34, 900
    scale = (width - left - right) / end
    parts = [text(left, 20, f"The chain's first steps as observed: kernels' starts and ends (µs from the first start)", 12)]
    parts += lanes([name for _, name in LANES], left, width - right, top, lane)
    for row, (key, _) in enumerate(LANES):
        y = top + row * lane
        for i, (s, e) in enumerate(t[key]):
            if s >= end:
                break
            x0, x1 = left + s * scale, left + min(e, end) * scale
            # Alternate rows within the lane, so that kernels that overlap (PDL) both show.
            h = (lane - 8) / 2
            yy = y + 3 + (i % 2) * h
            parts.append(f'<rect x="{x0:.1f}" y="{yy:.1f}" width="{max(x1 - x0, 1):.1f}" height="{h - 1:.1f}" '
                         f'fill="{COLOURS[i % 2]}"/>')
    y_axis = top + len(LANES) * lane
    step = 5 if end < 80 else 10 if end < 160 else 20
    for k in range(0, int(end // step) + 1):
        x = left + k * step * scale
        parts.append(f'<line x1="{x:.1f}" y1="{y_axis}" x2="{x:.1f}" y2="{y_axis + 6}" stroke="#57606a"/>')
        parts.append(text(x, y_axis + 18, f"{k * step} µs", 10, "middle", "#57606a"))
    write_figure(parts, width, y_axis + 30, None, out / "lab11_timeline.svg")


def boundary_figure(bench, out):
    runs = measured_runs(bench)
    times, copy = {}, None
    for b in runs:
        m = re.match(r"run/(\w+)/(\d+)/", b["name"])
        if m:
            us = b["real_time"] * {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}[b["time_unit"]]
            times.setdefault(m.group(1), {})[int(m.group(2))] = us
            copy = b.get("copy_GB/s", copy)
    if not copy:
        sys.exit("figures.py: the bench has no copy_GB/s counter")
    weights_us = 4096 * 4096 * 2 / (copy * 1e9) * 1e6
    labels, values = [], []
    for key, name in VARIANTS:
        if key in times and 64 in times[key] and 16 in times[key]:
            labels.append(name)
            values.append((times[key][64] - times[key][16]) / 48)
    if not values:
        sys.exit("figures.py: the bench has no runs of 16 and 64 steps")
    chart = Chart(720, 380, f"One more step: its 32 MiB of weights take {weights_us:.2f} µs at the copy's {copy:.0f} GB/s",
                  legend=False)
    chart.bars(labels, values, "µs per step: (t(64) − t(16)) / 48", value_format="{:.2f}")
    (out / "lab11_boundaries.svg").write_text(chart.svg())
    print(f"wrote {out / 'lab11_boundaries.svg'}")


def main():
    if no_committed_run(here / "figures" / "lab11_bench.json"):
        return
    ap = figures_options(__doc__, lambda out, grader: ["--bench", str(here / "figures" / "lab11_bench.json"), "--timelines",
                                                       str(here / "figures" / "lab11_timelines.json"), "--out", str(out)])
    ap.add_argument("--bench", required=True)
    ap.add_argument("--report", help="a grader report of lab 11 (its launches checks' timelines)")
    ap.add_argument("--timelines", help="the timelines kept from such a report (figures/lab11_timelines.json)")
    ap.add_argument("--out", default=str(here / "figures"))
    a = ap.parse_args()
    out = pathlib.Path(a.out)
    out.mkdir(exist_ok=True)
    timeline_figure(kept_from_report(a.report, a.timelines, out / "lab11_timelines.json", timelines_from_report), out)
    boundary_figure(json.loads(pathlib.Path(a.bench).read_text()), out)

if __name__ == "__main__":
    main()
