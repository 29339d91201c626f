#!/usr/bin/env python3
"""Draws lab 06's figures into labs/06_pipeline/figures/ (or OUTDIR). Nothing is drawn by hand.

    figures.py --grader build/grader/grader        lab06_slots.svg: the handout's example (5 tiles, 0.8 µs to
                                                   move and 1.1 µs to compute each) through 1, 2 and 3 slots,
                                                   from `grader calc pipeline` (labs_models' simulate_pipeline)
    figures.py --bench BENCH.json                  lab06_stages.svg: measured time against the slots (1 … 6)
                                                   at three ratios t_c/t_m, each variant's points under the
                                                   model's curve (models::slots_time_us, from the same run's
                                                   t_m, t_m⁽¹⁾ and t_c) and the bound; from
                                                   `lab06_bench --benchmark_format=json > BENCH.json`
    figures.py --timeline TIMELINE.json            lab06_timeline.svg: block 0's warps through their first
                                                   tiles (copies issued, waiting, math) for one slot, two slots
                                                   and the producer warp; from `lab06_bench --timeline FILE`
    --out OUTDIR                                   where to write (default: labs/06_pipeline/figures)
"""
import json
import pathlib
import re
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "common" / "scripts"))
from bench_json import measured_runs  # noqa: E402
from svg_chart import Chart, figures_options, lanes, side_by_side, text, time_ticks, write_figure  # noqa: E402

here = pathlib.Path(__file__).resolve().parent
SLOT_COLOURS = ["#1f6feb", "#2da44e", "#d1242f"]


# ---- the model's slots (lab06_slots.svg) ----------------------------------------------------------------------

def slots_figure(grader, out):
    blocks, move_us, compute_us = 5, 0.8, 1.1
    left, right, top, lane, gap, width = 90, 30, 30, 22, 40, 860

    def timeline(slots):
        cmd = [grader, "calc", "pipeline", "--blocks", str(blocks), "--move-us", str(move_us), "--compute-us",
               str(compute_us), "--slots", str(slots), "--json"]
        return json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)

    runs = [(s, timeline(s)) for s in (1, 2, 3)]
    end = max(r["total_us"] for _, r in runs)
    scale = (width - left - right) / end
    parts, y = [], top
    for slots, r in runs:
        parts.append(text(left, y - 8, f"{slots} slot{'s' if slots > 1 else ''}: {r['total_us']:.1f} µs "
                                       f"(one tile at a time: {r['serial_us']:.1f} µs)"))
        parts += lanes(("move", "math"), left, width - right, y, lane)
        for b in range(blocks):
            colour = SLOT_COLOURS[b % slots]
            spans = [(0, r[f"block_{b}_move_start_us"], r[f"block_{b}_full_us"]),
                     (1, r[f"block_{b}_empty_us"] - compute_us, r[f"block_{b}_empty_us"])]
            for ln, t0, t1 in spans:
                x0, x1 = left + t0 * scale, left + t1 * scale
                parts.append(f'<rect x="{x0:.1f}" y="{y + ln * lane + 3}" width="{x1 - x0:.1f}" height="{lane - 8}" '
                             f'fill="{colour}" stroke="#ffffff" stroke-width="1"/>')
                parts.append(text((x0 + x1) / 2, y + ln * lane + 14, str(b), 9, "middle", "#ffffff"))
        y += 2 * lane + gap
    parts += time_ticks(end, "µs", left, scale, y - gap + 6, y - gap + 12, y - gap + 24)
    parts.append(text(width - right, y - gap + 40, "bar = one tile, numbered; colour = the slot it occupies; "
                                                   "labs_models' simulate_pipeline", 10, "end", "#57606a"))
    write_figure(parts, width, y - gap + 48, None, out / "lab06_slots.svg")


# ---- measured time against slots (lab06_stages.svg) -------------------------------------------------------------

def stages_figure(bench, out):
    data = json.loads(pathlib.Path(bench).read_text())
    runs = [b for b in measured_runs(data) if re.match(r"pipeline/\d+/\d+/", b["name"])]
    if not runs:
        sys.exit("figures.py: no pipeline runs in " + bench)
    charts = []
    for ratio in sorted({b["ratio"] for b in runs}):
        at = [b for b in runs if b["ratio"] == ratio]
        first = at[0]
        t_m, t_m1, t_c = (sum(b[k] for b in at) / len(at) for k in ("t_m_us", "t_m1_us", "t_c_us"))
        stages = sorted((int(b["slots"]), b["ms"]) for b in at if 10 < b["variant"] < 20)
        producer = sorted((int(b["slots"]), b["ms"]) for b in at if b["variant"] > 20)
        one = [b["ms"] for b in at if b["variant"] == 2]
        models = {int(b["slots"]): b["model_ms"] for b in at if b.get("model_ms") and 10 < b["variant"] < 20}
        bound = first["bound_ms"]
        ys = [ms for _, ms in stages + producer] + one + list(models.values()) + [bound]
        last = len(charts) == 2
        c = Chart(400 + (240 if last else 0), 380, f"t_c/t_m = {t_c / t_m:.2f} ({int(first['iters'])} steps per value)",
                  legend=last)
        c.right = 260 if last else 20
        c.lin_axes([1, 6], ys, "slots (S)", "ms, 256 tiles per SM")
        xs = sorted(models)
        c.dashed(xs, [models[s] for s in xs], "model: S − 1 copies in flight", 0)
        c.dashed([1, 6], [bound, bound], "bound: max(load, math)", 4, "2,3")
        if one:
            c.points([1], one, "your one slot", 3, square=True)
        c.points([s for s, _ in stages], [ms for _, ms in stages], "cp.async stages", 1)
        if producer:
            c.points([s for s, _ in producer], [ms for _, ms in producer], "producer warp + bulk copies", 2, square=True)
        charts.append(c)
    gpu = data.get("context", {}).get("gpu", "")
    svg = side_by_side(charts)
    # Drawn at 1440 px wide, shown at 1000: the handout's column (the viewBox keeps the drawing).
    width = sum(c.w for c in charts)
    height = max(c.h for c in charts)
    svg = svg.replace(f'width="{width}" height="{height}"', f'width="1000" height="{round(height * 1000 / width)}"', 1)
    path = out / "lab06_stages.svg"
    path.parent.mkdir(exist_ok=True)
    path.write_text(svg)
    print(f"wrote {path}{' (' + gpu + ')' if gpu else ''}")


# ---- per-warp timeline (lab06_timeline.svg) -------------------------------------------------------------------

def timeline_figure(timeline, out):
    data = json.loads(pathlib.Path(timeline).read_text())
    window_us = 10.0
    left, right, top, row, gap, width = 120, 30, 58, 13, 46, 900
    scale = (width - left - right) / window_us
    parts = [text(left, 16, f"Block 0 on {data['gpu']} at the balanced point ({data['runs'][0]['iters']} steps per value)", 12),
             text(left, 31, "a row per warp; a bar per tile's math (colour: its slot); grey: waiting for the tile; "
                            "▲: copies issued", 11, colour="#57606a")]
    y = top
    for run in data["runs"]:
        warps = [w for w in run["warps"] if any(m is not None for tile in w for m in tile)]
        slots = 1 if run["variant"].startswith("one") else 2
        done = [t[2] for w in warps for t in w if t[2] is not None and t[2] <= window_us]
        parts.append(text(left, y + 4, f"{run['variant']}: {len(done) / max(1, sum(1 for w in warps if w[0][2] is not None)):.0f} "
                                       f"tiles per warp in the first {window_us:g} µs", 12))
        y += 12
        for i, w in enumerate(run["warps"]):
            if not any(m is not None for tile in w for m in tile):
                continue
            is_producer = i == len(run["warps"]) - 1 and w[0][2] is None
            parts.append(text(left - 8, y + row - 3, "producer" if is_producer else f"warp {i}", 9, "end", "#57606a"))
            previous_done = 0.0
            for j, (issued, ready, done_us) in enumerate(w):
                if ready is not None and done_us is not None:
                    if ready > previous_done and previous_done < window_us:  # waiting for tile j
                        x0, x1 = left + previous_done * scale, left + min(ready, window_us) * scale
                        parts.append(f'<rect x="{x0:.1f}" y="{y + 2}" width="{max(0.5, x1 - x0):.1f}" '
                                     f'height="{row - 4}" fill="#d0d7de"/>')
                    if ready < window_us:
                        x0, x1 = left + ready * scale, left + min(done_us, window_us) * scale
                        parts.append(f'<rect x="{x0:.1f}" y="{y + 1}" width="{max(0.5, x1 - x0):.1f}" height="{row - 2}" '
                                     f'fill="{SLOT_COLOURS[j % slots]}"/>')
                    previous_done = done_us
                if issued is not None and issued < window_us:
                    x = left + issued * scale
                    parts.append(f'<path d="M{x - 3:.1f},{y + row:.1f} L{x + 3:.1f},{y + row:.1f} L{x:.1f},{y + row - 6:.1f} Z" '
                                 f'fill="#24292f"/>')
            y += row
        y += gap - 12
    parts += time_ticks(window_us, "µs", left, scale, top, y - gap + 16, y - gap + 30, stroke="#eaeef2")
    write_figure(parts, width, y - gap + 40, None, out / "lab06_timeline.svg")


def main():
    ap = figures_options(__doc__, lambda out, grader: [*(["--grader", grader] if grader else []),
                                                       "--bench", str(here / "figures" / "lab06_bench.json"),
                                                       "--timeline", str(here / "figures" / "lab06_timeline.json"),
                                                       "--out", str(out)])
    ap.add_argument("--grader")
    ap.add_argument("--bench")
    ap.add_argument("--timeline")
    ap.add_argument("--out", default=str(here / "figures"))
    a = ap.parse_args()
    if not (a.grader or a.bench or a.timeline):
        ap.error("nothing to draw: give --grader, --bench or --timeline")
    out = pathlib.Path(a.out)
    if a.grader:
        slots_figure(a.grader, out)
    if a.bench:
        stages_figure(a.bench, out)
    if a.timeline:
        timeline_figure(a.timeline, out)


if __name__ == "__main__":
    main()
