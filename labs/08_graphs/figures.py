#!/usr/bin/env python3
"""Lab 08's figures. Nothing is drawn or typed by hand.

    figures.py --bench BENCH.json [--out DIR]
        lab08_steps.svg: host submit time and end-to-end time per step, eager, replayed and fused + replayed,
        at M = 1, 16 and 256; lab08_breakeven.svg: time per step at M = 1 against the size of the input,
        eager, copied in and replayed, written in place and replayed, with the measured break-even and
        the model's (saving · B / 2); from `lab08_bench --benchmark_format=json > BENCH.json`
"""
import json
import math
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "common" / "scripts"))
from bench_json import measured_runs  # noqa: E402
from svg_chart import Chart, bench_figures_main, side_by_side, text  # noqa: E402

here = pathlib.Path(__file__).resolve().parent

PATHS = {0: ("eager", 1), 1: ("graph", 0), 2: ("fused + graph", 2)}        # steps/PATH: name, colour
SWEEP = {0: ("eager", 1), 1: ("copied in, replayed", 0), 2: ("written in place, replayed", 2)}


def grouped_bars(chart, groups, series, y_label):
    """Bars side by side in each group on linear axes from zero, each with its value above it. series: a list of
    (name, colour, values), one value per group."""
    xs = list(range(len(groups)))
    chart.lin_axes(xs, [v for _, _, vs in series for v in vs], "", y_label, x_ticks=xs, x_labels=dict(enumerate(groups)))
    width = (chart.fx(1) - chart.fx(0) if len(xs) > 1 else chart.plot_w() / 2) * 0.8 / len(series)
    chart.group_bars(series, width, chart.fy(0), lambda v: f"{v:.1f}")


def crossing(sweep):
    """The size at which the copy path first costs what the eager one does, linear between the sizes around it
    (as perf.breakeven finds it); None when it never does, or already does at the smallest size."""
    for i, (mib, eager, copy, _) in enumerate(sweep):
        gap = copy - eager
        if gap < 0:
            continue
        if i == 0:
            return None
        mib0, eager0, copy0, _ = sweep[i - 1]
        before = copy0 - eager0
        return mib0 + (mib - mib0) * (-before) / (gap - before)
    return None


def bench_figures(bench, out):
    runs = measured_runs(json.loads(pathlib.Path(bench).read_text()))
    steps = {(int(b["path"]), int(b["M"])): b for b in runs if re.match(r"steps/\d+/\d+/", b["name"])}
    sweep_runs = {(int(b["path"]), int(b["mib"])): b for b in runs if re.match(r"breakeven/\d+/\d+/", b["name"])}
    model = next((b for b in runs if b["name"].startswith("breakeven_model")), None)
    ms = sorted({m for _, m in steps})
    sizes = sorted({mib for _, mib in sweep_runs})
    if not ms or any((p, m) not in steps for p in PATHS for m in ms):
        sys.exit("figures.py: steps/ runs missing (eager, graph and fused + graph at every M) in " + bench)
    if not sizes or any((p, mib) not in sweep_runs for p in SWEEP for mib in sizes) or model is None:
        sys.exit("figures.py: breakeven/ runs (all three paths at every size) or breakeven_model missing in " + bench)

    groups = [f"M = {m}" for m in ms]
    submit = Chart(480, 380, "Host submit per step", legend=False)
    grouped_bars(submit, groups, [(PATHS[p][0], PATHS[p][1], [steps[p, m]["submit_us"] for m in ms]) for p in PATHS],
                 "µs (host clock, enqueue only)")
    e2e = Chart(660, 380, f"End to end per step ({int(steps[0, ms[0]]['steps'])} back to back)")
    grouped_bars(e2e, groups, [(PATHS[p][0], PATHS[p][1], [steps[p, m]["e2e_us"] for m in ms]) for p in PATHS],
                 "µs per step")
    out.mkdir(exist_ok=True)
    (out / "lab08_steps.svg").write_text(side_by_side([submit, e2e]))

    sweep = [(mib, sweep_runs[0, mib]["e2e_us"], sweep_runs[1, mib]["e2e_us"], sweep_runs[2, mib]["e2e_us"]) for mib in sizes]
    be = Chart(860, 400, "M = 1, an input of X copied in before each replay: time per step")
    be.right = 290
    xs = [math.log2(mib) for mib in sizes]
    ys = [y for point in sweep for y in point[1:]]
    ticks = list(range(math.ceil(xs[0]), math.floor(xs[-1]) + 1))
    be.lin_axes(xs, ys, "input X (MiB, log scale)", "µs per step", x_ticks=ticks, x_labels={t: f"{2 ** t:g}" for t in ticks})
    for p, (name, colour) in SWEEP.items():
        be.line(xs, [point[1 + p] for point in sweep], None, colour)
        be.points(xs, [point[1 + p] for point in sweep], name, colour)
    top = max(ys) * 1.06
    measured = crossing(sweep)
    marks = [(measured, "measured", 3, "6,4"), (model["model_mib"], "model", 4, "2,3")]
    for k, (mib, what, colour, dash) in enumerate(marks):
        if mib is None or not sizes[0] <= mib <= sizes[-1]:
            why = "no crossing in the sweep" if mib is None else f"{mib:.1f} MiB, outside the sweep"
            be.parts.append(text(be.left + 8, be.top + 14 + 16 * k, f"break-even {what}: {why}", size=12))
            continue
        x = math.log2(mib)
        be.dashed([x, x], [0, top], f"break-even {what}: {mib:.1f} MiB", colour, dash)
        be.parts.append(text(be.fx(x) + 4, be.fy(top) + 12 + 14 * k, what, size=11))
    be.notes([f"model: saving {model['saving_us']:.1f} µs a step,",
              f"copy {model['copy_gbps']:.0f} GB/s moved (read + written)"], gap=8, size=11)
    (out / "lab08_breakeven.svg").write_text(be.svg())
    print(f"wrote {out / 'lab08_steps.svg'} and {out / 'lab08_breakeven.svg'}")


if __name__ == "__main__":
    bench_figures_main(__doc__, here / "figures", "lab08_bench.json", bench_figures)
