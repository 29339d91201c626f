#!/usr/bin/env python3
"""Usage: figures.py TIMELINE.json [OUT.svg] — draws a pipeline's timeline, figures/lab01_timeline.svg by default:
one panel per run in TIMELINE.json (`lab01_bench --timeline TIMELINE.json`: the pipeline at 1 chunk and at 16
chunks), one lane per stream in the order the pipeline first used them, one bar per copy or kernel from its
CUDA events. Nothing is drawn by hand: the bars are the run's own timestamps."""
import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "common" / "scripts"))
from svg_chart import figure_command_line, lanes, text, time_ticks, write_figure  # noqa: E402

here = pathlib.Path(__file__).resolve().parent
LEFT, RIGHT, TOP, LANE, GAP, WIDTH = 80, 30, 30, 22, 46, 860
COLOURS = ["#1f6feb", "#2da44e", "#d1242f", "#9a6700", "#8250df"]



def main():
    figure_command_line(__doc__, "lab01_timeline.svg", here / "figures" / "lab01_timeline.json")
    data = json.loads(pathlib.Path(sys.argv[1]).read_text())
    runs = data["runs"]
    end = max(sp["end_ms"] for r in runs for sp in r["spans"])
    scale = (WIDTH - LEFT - RIGHT) / end
    parts, y = [], TOP
    for r in runs:
        streams = 1 + max(sp["stream"] for sp in r["spans"])
        last = max(sp["end_ms"] for sp in r["spans"])
        parts.append(text(LEFT, y - 8, f"{r['chunks']} chunk{'s' if r['chunks'] > 1 else ''}: {last:.2f} ms end to end"))
        parts += lanes([f"stream {s}" for s in range(streams)], LEFT, WIDTH - RIGHT, y, LANE)
        for sp in r["spans"]:
            x0, x1 = LEFT + sp["start_ms"] * scale, LEFT + sp["end_ms"] * scale
            parts.append(f'<rect x="{x0:.1f}" y="{y + sp["stream"] * LANE + 3}" width="{max(x1 - x0, 0.8):.1f}" '
                         f'height="{LANE - 8}" fill="{COLOURS[sp["stream"] % len(COLOURS)]}" stroke="#ffffff" '
                         f'stroke-width="0.5"/>')
        y += streams * LANE + GAP
    parts += time_ticks(end, "ms", LEFT, scale, y - GAP + 6, y - GAP + 12, y - GAP + 24)
    parts.append(text(WIDTH - RIGHT, y - GAP + 40, f"measured on {data.get('gpu', 'an unnamed GPU')}: one bar per copy "
                      "or kernel, from CUDA events", 10, "end", "#57606a"))
    height = y - GAP + 48
    write_figure(parts, WIDTH, height, here / "figures" / "lab01_timeline.svg")


if __name__ == "__main__":
    main()
