#!/usr/bin/env python3
"""Lab 12's figures, from a graded run of the solution on a GPU. Nothing is drawn or typed by hand.

    figures.py --report REPORT.json [--out DIR]
        from `grader --solution 12 --json REPORT.json`: keeps the run's trace and rounds in figures/lab12_run.json
        (what --redraw draws from), then draws
        lab12_timeline.svg: the request as the observer recorded it — its kernels on the main and the side stream,
        coloured by operator, the critical path outlined, the join between the streams drawn;
        lab12_paired.svg: each round's difference (the request before the fused activation less the one after), their
        median and its bootstrap interval, the difference of the medians, and the two predictions from the trace
        (Amdahl's and the critical path's).
"""
import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "common" / "scripts"))
from svg_chart import figures_options, kept_from_report, lanes, no_committed_run, text, write_figure  # noqa: E402

here = pathlib.Path(__file__).resolve().parent
OPS = {"norm": "#8250df", "ffn projection": "#1f6feb", "activation": "#d1242f", "kv projection": "#2da44e"}


def run_from_report(report):
    """{"trace": …, "paired": …} from the trace.real and paired.measured checks of a grader report of lab 12."""
    run = {}
    for lab in report["labs"]:
        for check in lab.get("checks", []):
            d = check.get("details") or {}
            if check["id"] == "trace.real" and "trace" in d:
                run["trace"] = d["trace"]
            if check["id"] == "paired.measured" and "before_us" in d:
                run["paired"] = {k: d[k] for k in ("before_us", "after_us", "median_difference_us", "low_us", "high_us",
                                                   "difference_of_medians_us", "amdahl_saving_us", "path_saving_us")}
    if set(run) != {"trace", "paired"}:
        sys.exit("figures.py: the report has no trace.real trace or paired.measured rounds (grade lab 12 on a GPU with --json)")
    return run


def timeline_figure(trace, out):
    stages, path = trace["stages"], set(trace["path"])
    end = max(s[3] for s in stages)
    left, right, top, lane, width = 110, 30, 40, 40, 960
    scale = (width - left - right) / end
    parts = [text(left, 20, "The request as observed: kernels by stream, coloured by operator; the critical path outlined", 12)]
    parts += lanes(["main stream", "side stream"], left, width - right, top, lane)
    for i, (op, ln, s, e) in enumerate(stages):
        x0, w = left + s * scale, max((e - s) * scale, 0.8)
        y = top + ln * lane + 6
        outline = ' stroke="#000000" stroke-width="1.5"' if i in path else ""
        parts.append(f'<rect x="{x0:.1f}" y="{y}" width="{w:.1f}" height="{lane - 14}" fill="{OPS.get(op, "#57606a")}"{outline}/>')
    for before, after in trace["waits"]:
        xb, xa = left + stages[before][3] * scale, left + stages[after][2] * scale
        yb, ya = top + stages[before][1] * lane + lane / 2, top + stages[after][1] * lane + lane / 2
        parts.append(f'<line x1="{xb:.1f}" y1="{yb:.1f}" x2="{xa:.1f}" y2="{ya:.1f}" stroke="#24292f" stroke-dasharray="4,3"/>')
    y_axis = top + 2 * lane
    step = next(s for s in (10, 20, 50, 100, 200, 500, 1000, 2000) if end / s <= 12)
    for k in range(0, int(end // step) + 1):
        x = left + k * step * scale
        parts.append(f'<line x1="{x:.1f}" y1="{y_axis}" x2="{x:.1f}" y2="{y_axis + 6}" stroke="#57606a"/>')
        parts.append(text(x, y_axis + 18, f"{k * step} µs", 10, "middle", "#57606a"))
    for k, (op, colour) in enumerate(OPS.items()):
        x = left + k * 180
        parts.append(f'<rect x="{x}" y="{y_axis + 30}" width="12" height="12" fill="{colour}"/>')
        parts.append(text(x + 18, y_axis + 40, op, 11))
    write_figure(parts, width, y_axis + 56, None, out / "lab12_timeline.svg")


def paired_figure(p, out):
    diffs = [b - a for b, a in zip(p["before_us"], p["after_us"])]
    marks = [("median of the differences", p["median_difference_us"], "#1f6feb", ""),
             ("difference of the medians", p["difference_of_medians_us"], "#57606a", "6,4"),
             ("predicted: Amdahl", p["amdahl_saving_us"], "#d1242f", "2,3"),
             ("predicted: critical path", p["path_saving_us"], "#2da44e", "2,3")]
    values = diffs + [v for _, v, _, _ in marks] + [p["low_us"], p["high_us"]]
    lo, hi = min(0.0, min(values)), max(values) * 1.1
    left, right, top, bottom, width, height = 70, 250, 40, 50, 860, 380
    fx = lambda i: left + (i + 0.5) / len(diffs) * (width - left - right)  # noqa: E731
    fy = lambda v: top + (hi - v) / (hi - lo) * (height - top - bottom)  # noqa: E731
    parts = [text(left, 22, f"{len(diffs)} rounds: the request before the fused activation less the one after (µs)", 12)]
    parts.append(f'<rect x="{left}" y="{fy(p["high_us"]):.1f}" width="{width - left - right}" '
                 f'height="{fy(p["low_us"]) - fy(p["high_us"]):.1f}" fill="#ddf4ff"/>')
    parts.append(f'<line x1="{left}" y1="{fy(0):.1f}" x2="{width - right}" y2="{fy(0):.1f}" stroke="#8c959f"/>')
    for k, (name, v, colour, dash) in enumerate(marks):
        d = f' stroke-dasharray="{dash}"' if dash else ""
        parts.append(f'<line x1="{left}" y1="{fy(v):.1f}" x2="{width - right}" y2="{fy(v):.1f}" stroke="{colour}" stroke-width="2"{d}/>')
        ly = top + 10 + 22 * k
        parts.append(f'<line x1="{width - right + 14}" y1="{ly}" x2="{width - right + 40}" y2="{ly}" stroke="{colour}" stroke-width="2"{d}/>')
        parts.append(text(width - right + 46, ly + 4, f"{name}: {v:.1f}", 11))
    parts.append(text(width - right + 14, top + 10 + 22 * len(marks) + 4, f"interval (shaded): {p['low_us']:.1f} to {p['high_us']:.1f}", 11))
    for i, v in enumerate(diffs):
        parts.append(f'<circle cx="{fx(i):.1f}" cy="{fy(v):.1f}" r="4" fill="#24292f"/>')
        parts.append(text(fx(i), height - bottom + 16, str(i + 1), 9, "middle", "#57606a"))
    for v in sorted({lo, 0.0, hi / 1.1 / 2, hi / 1.1}):
        parts.append(text(left - 8, fy(v) + 4, f"{v:.0f}", 10, "end", "#57606a"))
    parts.append(text((left + width - right) / 2, height - 12, "round", 11, "middle", "#57606a"))
    write_figure(parts, width, height, None, out / "lab12_paired.svg")


def main():
    committed = here / "figures" / "lab12_run.json"
    if no_committed_run(committed):
        return
    ap = figures_options(__doc__, lambda out, grader: ["--run", str(committed), "--out", str(out)])
    ap.add_argument("--report", help="a grader report of lab 12 graded on a GPU")
    ap.add_argument("--run", help="the run kept from such a report (figures/lab12_run.json)")
    ap.add_argument("--out", default=str(here / "figures"))
    a = ap.parse_args()
    out = pathlib.Path(a.out)
    out.mkdir(exist_ok=True)
    run = kept_from_report(a.report, a.run, out / "lab12_run.json", run_from_report)
    timeline_figure(run["trace"], out)
    paired_figure(run["paired"], out)

if __name__ == "__main__":
    main()
