#!/usr/bin/env python3
"""Lab 09's figures. Nothing is drawn or typed by hand.

    figures.py --bench BENCH.json [--out DIR]
        lab09_costs.svg: the time of one call against M on log-log axes, generic, bucketed (a step at each
        bucket's edge: M padded up to the bucket) and specialised, with P (NVRTC, store and load of one M's
        program) and the crossover at M = 16 noted beside; lab09_serve.svg: the graded trace of three seeds served
        always generic, always bucketed, always specialised and by the policy, each plan priced from the measured
        costs as perf.policy prices it (the best plan in hindsight over the plan's price, each bar's value above
        it; the trace's calls and distinct M, and the policy's served time against its price, below each seed);
        lab09_crossover.svg: at M = 16, the total time of r calls from the measured P
        and T (lines, one per strategy) with the runs of both sides of the crossover on them;
        lab09_cache.svg: where the program of each call came from over the mixed trace's first calls (memory,
        disk, built), and what a second process on the same directory builds; from
        `lab09_bench --benchmark_format=json > BENCH.json`
"""
import json
import math
import pathlib
import re
import statistics
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "common" / "scripts"))
from bench_json import measured_runs, runs_by_name  # noqa: E402
from svg_chart import Chart, bench_figures_main, text  # noqa: E402

here = pathlib.Path(__file__).resolve().parent

STRATEGIES = {0: ("generic", 0), 1: ("bucketed", 1), 2: ("specialised", 2)}        # costs/STRATEGY: name, colour
SERVED = {0: ("always generic", 0), 1: ("always bucketed", 1), 2: ("always specialised", 2),
          -1: ("policy", 4)}                                                          # serve/SEED/STRATEGY


def value_label(v):
    return f"{v:.0f}" if v >= 100 else f"{v:.1f}"


def log_bars(chart, groups, series, y_label):
    """Bars side by side in each group on a log y axis (ticks at powers of ten, the bars from the decade below a
    third of the smallest value), each with its value above it. series: a list of (name, colour, values), one
    value per group."""
    values = [v for _, _, vs in series for v in vs]
    lo, hi = math.floor(math.log10(min(values) / 3)), math.ceil(math.log10(max(values) * 1.05))
    slot = chart.plot_w() / len(groups)
    chart.fx = lambda i: chart.left + slot * (i + 0.5)
    chart.fy = lambda v: chart.top + (1 - (math.log10(v) - lo) / (hi - lo)) * chart.plot_h()
    for e in range(lo, hi + 1):
        chart._tick_y(chart.fy(10 ** e), f"{10 ** e:g}")
    for i, g in enumerate(groups):
        chart._tick_x(chart.fx(i), g)
    chart._frame("", y_label)
    chart.group_bars(series, slot * 0.8 / len(series), chart.fy(10 ** lo), value_label)


def bench_figures(bench, out):
    runs = measured_runs(json.loads(pathlib.Path(bench).read_text()))
    costs = {(int(b["strategy"]), int(b["M"])): b for b in runs if re.match(r"costs/\d+/\d+/", b["name"])}
    crossover = next((b for b in runs if b["name"].startswith("crossover")), None)
    served = runs_by_name(runs, r"serve/(\d+)/(-?\d+)/", int, int)
    ms = sorted({m for _, m in costs})
    seeds = sorted({t for t, _ in served})
    if not ms or any((s, m) not in costs for s in STRATEGIES for m in ms) or crossover is None:
        sys.exit("figures.py: costs/ runs (all three strategies at every M) or crossover missing in " + bench)
    if not seeds or any((t, s) not in served for t in seeds for s in SERVED):
        sys.exit("figures.py: serve/ runs missing (the three fixed strategies and the policy on each seed) in " + bench)
    out.mkdir(exist_ok=True)

    # Time per call against M.
    first = costs[0, ms[0]]
    chart = Chart(960, 440, f"One call, N = K = {int(first['N'])}: time per call against the rows M")
    chart.right = 330
    chart.log_axes(ms, [b["call_ms"] for b in costs.values()], "M, the call's rows (log scale)", "ms per call (log scale)")
    for s, (name, colour) in STRATEGIES.items():
        ys = [costs[s, m]["call_ms"] for m in ms]
        if s == 1:
            # A call of M costs its bucket's time: a step at each bucket's edge, from the smallest M measured.
            at = {int(costs[1, m]["bucket"]): costs[1, m]["call_ms"] for m in ms if int(costs[1, m]["bucket"]) == m}
            edges = sorted(at)
            steps_x, steps_y, x = [], [], ms[0]
            for b in edges:
                steps_x += [x, b]
                steps_y += [at[b], at[b]]
                x = b
            chart.line(steps_x, steps_y, None, colour)
            buckets = ", ".join(str(b) for b in edges[:2]) + ", …, " + str(edges[-1]) if len(edges) > 3 else ", ".join(map(str, edges))
            chart.points(ms, ys, f"{name} (M padded to {buckets})", colour, square=True)
        else:
            chart.line(ms, ys, None, colour)
            chart.points(ms, ys, name, colour)
    preps = [costs[2, m]["prep_ms"] for m in ms]
    p16, tg, ts = crossover["p_specialized_ms"], crossover["t_generic_ms"], crossover["t_specialized_ms"]
    notes = ["Specialising one M first costs P: NVRTC,",
             "the cache's store and the load (the first",
             "call from an empty cache, less a call):",
             f"{min(preps):.0f}–{max(preps):.0f} ms over these M, median {statistics.median(preps):.0f} ms.",
             ""]
    if "crossover_calls" in crossover:
        notes += [f"At M = 16, P = {p16:.1f} ms and T = {tg * 1e3:.0f} µs",
                  f"generic against {ts * 1e3:.0f} µs specialised: it pays",
                  f"after P / (T_g − T_s) = {crossover['crossover_calls']:.0f} calls."]
        if "calls_after" in crossover:
            c = crossover
            notes += ["", "Run both ways from an empty cache:",
                      f"{int(c['calls_before'])} calls: {c['generic_before_ms']:.1f} ms generic, "
                      f"{c['specialized_before_ms']:.1f} specialised;",
                      f"{int(c['calls_after'])} calls: {c['generic_after_ms']:.1f} ms generic, "
                      f"{c['specialized_after_ms']:.1f} specialised."]
    else:
        notes += [f"At M = 16 specialising never pays: T = {tg * 1e3:.0f} µs",
                  f"generic against {ts * 1e3:.0f} µs specialised."]
    chart.notes(notes)
    (out / "lab09_costs.svg").write_text(chart.svg())

    # The graded trace of each seed, served four ways, each plan priced as perf.policy prices it.
    serve = Chart(940, 480, "The graded trace (three seeds): the best plan in hindsight over each plan's price")
    serve.right, serve.bottom = 300, 120
    groups = [f"seed {t}" for t in seeds]
    slot = serve.plot_w() / len(groups)
    serve.fx = lambda i: serve.left + slot * (i + 0.5)
    serve.fy = lambda v: serve.top + (1 - v / 1.1) * serve.plot_h()
    for v in (0, 0.2, 0.4, 0.6, 0.8, 1.0):
        serve._tick_y(serve.fy(v), f"{v:g}")
    for i, g in enumerate(groups):
        serve._tick_x(serve.fx(i), g)
    serve._frame("", "hindsight / priced (perf.policy's ratio)")
    serve.group_bars([(name, colour, [served[t, s]["hindsight_ms"] / served[t, s]["priced_ms"] for t in seeds])
                      for s, (name, colour) in SERVED.items()], slot * 0.8 / len(SERVED), serve.fy(0), lambda v: f"{v:.2f}")
    below = serve.top + serve.plot_h() + 20
    for i, t in enumerate(seeds):
        p = served[t, -1]
        lines = [f"{int(p['calls'])} calls, {int(p['distinct'])} distinct M",
                 f"policy: {int(p['calls_generic'])} / {int(p['calls_bucketed'])} / {int(p['calls_specialized'])}",
                 f"{int(p['specialized_m'])} M specialised",
                 f"served {value_label(p['served_ms'])} ms, priced {value_label(p['priced_ms'])}"]
        for k, line in enumerate(lines):
            serve.parts.append(text(serve.fx(i), below + 18 + 15 * k, line, size=11, anchor="middle"))
    serve.notes(["Each plan priced from the costs measured",
                 "before serving: P once per M specialised,",
                 "T per call. Hindsight: the least the costs",
                 "allow with every M's count known ahead.",
                 "",
                 "policy: your choose_strategy before each",
                 "call, told the calls of its M still queued;",
                 "below, its calls generic / bucketed /",
                 "specialised.",
                 "",
                 f"P: {served[seeds[0], -1]['p_decode_ms']:.0f} ms to specialise M = 8 (a",
                 f"skinny kernel), {served[seeds[0], -1]['p_tiled_ms']:.0f} ms at M = 64 (tiles)."])
    (out / "lab09_serve.svg").write_text(serve.svg())
    written = ["lab09_costs.svg", "lab09_serve.svg"]

    # At M = 16: total time against the number of calls, P + r·T from the measured costs, the runs on them.
    if "crossover_calls" in crossover and "calls_after" in crossover:
        c, tb = crossover, costs[1, 16]["call_ms"] if (1, 16) in costs else None
        r_max = c["calls_after"] * 1.1
        rs = [0, r_max]
        lines = [("generic: r · T", 0, [0, r_max * tg]), ("specialised: P + r · T", 2, [p16, p16 + r_max * ts])]
        if tb is not None:
            lines.insert(1, ("bucketed (16 rows): r · T", 1, [0, r_max * tb]))
        cross = Chart(900, 420, "M = 16: total time of r calls from an empty cache, model and runs")
        cross.right = 290
        ys = [y for _, _, v in lines for y in v] + [c[k] for k in ("generic_before_ms", "specialized_before_ms",
                                                                     "generic_after_ms", "specialized_after_ms")]
        step = 100 if r_max <= 1200 else 500 if r_max <= 6000 else 5000
        cross.lin_axes(rs, [0] + ys, "r, calls of M = 16", "ms in all", x_ticks=list(range(0, int(r_max) + 1, step)))
        for name, colour, v in lines:
            cross.line(rs, v, name, colour)
        for which, colour in (("generic", 0), ("specialized", 2)):
            cross.points([c["calls_before"], c["calls_after"]], [c[f"{which}_before_ms"], c[f"{which}_after_ms"]],
                         f"{'generic' if which == 'generic' else 'specialised'}, run", colour)
        cross.dashed([c["crossover_calls"]] * 2, [0, max(ys)], f"crossover: {c['crossover_calls']:.0f} calls", 3)
        as_predicted = c["generic_before_ms"] < c["specialized_before_ms"] and c["specialized_after_ms"] < c["generic_after_ms"]
        cross.notes(["T: one call alone, the L2 flushed first.",
                     "Run back to back, the calls find W",
                     "in the L2 and cost less each: the runs",
                     "sit below the lines."]
                    + (["Each side of the crossover wins",
                        "where it predicts."] if as_predicted else
                       ["Here the specialised run wins on both",
                        "sides: its compilation came back faster",
                        "than the P measured before it (a second",
                        "compilation of the same source in one",
                        "process; the graded runs do not see it)."]))
        (out / "lab09_crossover.svg").write_text(cross.svg())
        written.append("lab09_crossover.svg")

    # The cache over the mixed trace: where each call's program came from, first process and a second one.
    cache = sorted((b for b in runs if re.match(r"cache/\d+/", b["name"])), key=lambda b: b["calls"])
    if cache:
        xs = [math.log2(b["calls"]) for b in cache]
        share = lambda key: [100.0 * b[key] / b["calls"] for b in cache]  # noqa: E731
        ch = Chart(900, 420, f"The program cache ({int(cache[0]['memory_programs'])} in memory) over the mixed trace's first calls")
        ch.right = 290
        ticks = [round(x, 6) for x in xs]
        ch.lin_axes(xs, [0, 100], "calls (log scale)", "% of the calls", x_ticks=ticks,
                    x_labels={t: f"{int(b['calls'])}" for t, b in zip(ticks, cache)})
        for key, name, colour in (("memory_hits", "from memory", 0), ("disk_hits", "from disk", 1), ("built", "built", 2),
                                  ("warm_built", "built, a second process", 4)):
            ch.line(xs, share(key), None, colour)
            ch.points(xs, share(key), name, colour)
        ch.notes([f"{int(b['distinct'])} distinct M in {int(b['calls'])} calls" for b in cache[-1:]]
                 + ["A second cache on the same directory", "(a second process) builds nothing."])
        (out / "lab09_cache.svg").write_text(ch.svg())
        written.append("lab09_cache.svg")
    print("wrote " + ", ".join(str(out / w) for w in written))


if __name__ == "__main__":
    bench_figures_main(__doc__, here / "figures", "lab09_bench.json", bench_figures)
