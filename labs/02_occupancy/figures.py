#!/usr/bin/env python3
"""Usage: figures.py BENCH.json [OUT.svg] — draws lab 02's latency-hiding curve, figures/lab02_curve.svg by
default, from `lab02_bench --benchmark_format=json > BENCH.json`: the streaming copy's bandwidth (read +
write) against the warps resident per SM, one line per number of 16-byte loads each thread keeps in flight,
and beside each the prediction of Little's law from the same run's measured DRAM latency and SM count:
bandwidth = min(copy, 2 · warps · loads · 32 · 16 B · SMs / latency) — every load in flight is one warp
request of 32 lanes × 16 bytes, and a copy writes what it reads. Nothing is drawn by hand."""
import json
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "common" / "scripts"))
from bench_json import measured_runs  # noqa: E402
from svg_chart import figure_command_line, text, write_figure  # noqa: E402

here = pathlib.Path(__file__).resolve().parent
W, H, LEFT, RIGHT, TOP, BOTTOM = 760, 420, 70, 150, 30, 50
COLOURS = {0: "#8c959f", 1: "#d1242f", 2: "#9a6700", 4: "#2da44e", 8: "#1f6feb"}
NAMES = {0: "baseline (1 load)", 1: "1 load", 2: "2 loads", 4: "4 loads", 8: "8 loads"}



def main():
    figure_command_line(__doc__, "lab02_curve.svg", here / "figures" / "lab02_bench.json")
    runs = measured_runs(json.loads(pathlib.Path(sys.argv[1]).read_text()))
    curves, copy, latency, sms = {}, 0.0, None, None
    for b in runs:
        if re.match(r"streaming/\d+/\d+/", b["name"]):
            curves.setdefault(int(b["loads"]), []).append((b["warps_per_sm"], b["GB/s"]))
            copy = max(copy, b["copy_GB/s"])
        elif re.match(r"latency/1/0/", b["name"]):  # the library's chase over 1 GiB
            latency, sms = b["ns"], b["sms"]
    if not curves or latency is None:
        sys.exit("figures.py: no streaming or DRAM latency runs in " + sys.argv[1])
    xmax, ymax = 64, copy * 1.1
    px = lambda w: LEFT + (W - LEFT - RIGHT) * w / xmax
    py = lambda g: H - BOTTOM - (H - TOP - BOTTOM) * g / ymax
    parts = [f'<line x1="{px(0)}" y1="{py(copy):.1f}" x2="{px(xmax)}" y2="{py(copy):.1f}" stroke="#24292f" '
             f'stroke-dasharray="2,3"/>', text(px(xmax) - 4, py(copy) - 6, f"D2D copy: {copy:.0f} GB/s", 10, "end")]
    for g in range(0, int(ymax), 1000):
        parts.append(f'<line x1="{LEFT}" y1="{py(g):.1f}" x2="{px(xmax)}" y2="{py(g):.1f}" stroke="#eaeef2"/>')
        parts.append(text(LEFT - 6, py(g) + 4, f"{g}", 10, "end", "#57606a"))
    for w in range(0, xmax + 1, 8):
        parts.append(text(px(w), H - BOTTOM + 16, f"{w}", 10, "middle", "#57606a"))
    parts.append(text((LEFT + px(xmax)) / 2, H - 12, "resident warps per SM (of 64)", 11, "middle"))
    parts.append(text(16, (TOP + H - BOTTOM) / 2, "GB/s, read + write", 11, "middle")
                 .replace("<text ", f'<text transform="rotate(-90 16 {(TOP + H - BOTTOM) / 2})" ', 1))
    legend_y = TOP + 10
    for loads in sorted(curves, key=lambda l: (l == 0, l)):
        pts = sorted(curves[loads])
        colour = COLOURS.get(loads, "#24292f")
        dash = ' stroke-dasharray="5,3"' if loads == 0 else ""
        parts.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2"{dash} points="' +
                     " ".join(f"{px(w):.1f},{py(g):.1f}" for w, g in pts) + '"/>')
        for w, g in pts:
            parts.append(f'<circle cx="{px(w):.1f}" cy="{py(g):.1f}" r="2.5" fill="{colour}"/>')
        if loads > 0:  # Little's law for this many loads in flight
            model = [(w, min(copy, 2 * w * loads * 32 * 16 * sms / latency)) for w in range(1, xmax + 1)]
            parts.append(f'<polyline fill="none" stroke="{colour}" stroke-width="1.5" stroke-opacity="0.8" '
                         f'stroke-dasharray="2,3" points="' + " ".join(f"{px(w):.1f},{py(g):.1f}" for w, g in model) + '"/>')
        parts.append(f'<line x1="{W - RIGHT + 18}" y1="{legend_y}" x2="{W - RIGHT + 38}" y2="{legend_y}" '
                     f'stroke="{colour}" stroke-width="2"{dash}/>')
        parts.append(text(W - RIGHT + 42, legend_y + 4, NAMES.get(loads, f"{loads} loads"), 10))
        legend_y += 16
    parts.append(text(W - RIGHT + 18, legend_y + 10, "dotted, same colour:", 10, colour="#57606a"))
    parts.append(text(W - RIGHT + 18, legend_y + 24, "Little's law with the", 10, colour="#57606a"))
    parts.append(text(W - RIGHT + 18, legend_y + 38, f"idle latency, {latency:.0f} ns", 10, colour="#57606a"))
    parts.append(text(W - RIGHT + 18, legend_y + 52, f"({sms:.0f} SMs)", 10, colour="#57606a"))
    parts.append(f'<line x1="{LEFT}" y1="{H - BOTTOM}" x2="{px(xmax)}" y2="{H - BOTTOM}" stroke="#24292f"/>')
    parts.append(f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{H - BOTTOM}" stroke="#24292f"/>')
    write_figure(parts, W, H, here / "figures" / "lab02_curve.svg")


if __name__ == "__main__":
    main()
