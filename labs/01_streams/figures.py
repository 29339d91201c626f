#!/usr/bin/env python3
"""Usage: figures.py TIMELINE.json [OUT.svg] — draws a pipeline's timeline, figures/lab01_timeline.svg by default:
one panel per run in TIMELINE.json (`lab01_bench --timeline TIMELINE.json`: the pipeline at 1 chunk and at 16
chunks), one lane per stream in the order the pipeline first used them, one bar per copy or kernel from its
CUDA events. Nothing is drawn by hand: the bars are the run's own timestamps."""
import html
import json
import pathlib
import sys

here = pathlib.Path(__file__).resolve().parent
LEFT, RIGHT, TOP, LANE, GAP, WIDTH = 80, 30, 30, 22, 46, 860
COLOURS = ["#1f6feb", "#2da44e", "#d1242f", "#9a6700", "#8250df"]


def text(x, y, s, size=11, anchor="start", colour="#24292f"):
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-family="sans-serif" font-size="{size}" fill="{colour}" '
            f'text-anchor="{anchor}">{html.escape(s)}</text>')


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    data = json.loads(pathlib.Path(sys.argv[1]).read_text())
    runs = data["runs"]
    end = max(sp["end_ms"] for r in runs for sp in r["spans"])
    scale = (WIDTH - LEFT - RIGHT) / end
    parts, y = [], TOP
    for r in runs:
        lanes = 1 + max(sp["stream"] for sp in r["spans"])
        last = max(sp["end_ms"] for sp in r["spans"])
        parts.append(text(LEFT, y - 8, f"{r['chunks']} chunk{'s' if r['chunks'] > 1 else ''}: {last:.2f} ms end to end"))
        for lane in range(lanes):
            ly = y + lane * LANE
            parts.append(text(LEFT - 8, ly + 15, f"stream {lane}", 10, "end", "#57606a"))
            parts.append(f'<line x1="{LEFT}" y1="{ly + LANE - 2}" x2="{WIDTH - RIGHT}" y2="{ly + LANE - 2}" '
                         f'stroke="#d0d7de" stroke-width="1"/>')
        for sp in r["spans"]:
            x0, x1 = LEFT + sp["start_ms"] * scale, LEFT + sp["end_ms"] * scale
            parts.append(f'<rect x="{x0:.1f}" y="{y + sp["stream"] * LANE + 3}" width="{max(x1 - x0, 0.8):.1f}" '
                         f'height="{LANE - 8}" fill="{COLOURS[sp["stream"] % len(COLOURS)]}" stroke="#ffffff" '
                         f'stroke-width="0.5"/>')
        y += lanes * LANE + GAP
    for ms in range(0, int(end) + 1):
        x = LEFT + ms * scale
        parts.append(f'<line x1="{x:.1f}" y1="{y - GAP + 6}" x2="{x:.1f}" y2="{y - GAP + 12}" stroke="#57606a"/>')
        parts.append(text(x, y - GAP + 24, f"{ms} ms", 10, "middle", "#57606a"))
    parts.append(text(WIDTH - RIGHT, y - GAP + 40, f"measured on {data.get('gpu', 'an unnamed GPU')}: one bar per copy "
                      "or kernel, from CUDA events", 10, "end", "#57606a"))
    height = y - GAP + 48
    svg = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}">'
           f'<rect width="100%" height="100%" fill="#ffffff"/>' + "".join(parts) + "</svg>\n")
    out = pathlib.Path(sys.argv[2]) if len(sys.argv) == 3 else here / "figures" / "lab01_timeline.svg"
    out.parent.mkdir(exist_ok=True)
    out.write_text(svg)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
