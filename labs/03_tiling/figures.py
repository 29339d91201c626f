#!/usr/bin/env python3
"""Usage: figures.py GRADER [OUT.svg] — redraws lab 03's figure, figures/lab03_traffic.svg: the model's traffic of
independent square tiles against the tile side (from `GRADER calc tile-traffic`, at tiles no exercise asks
about: the calculator shows the graded ones as "graded"), with what Nsight Compute measured for v1 on the
H200 (the handout's ncu table: L2→SM reads, and DRAM reads plus writes)."""
import json
import pathlib
import re
import subprocess
import sys

here = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(here.parents[1] / "common" / "scripts"))
from svg_chart import Chart, figure_command_line, figure_path  # noqa: E402


def model(grader, side):
    out = subprocess.run([grader, "calc", "tile-traffic", "--tile-m", str(side), "--tile-n", str(side), "--json"],
                         check=True, capture_output=True, text=True).stdout
    v = json.loads(out)["traffic_mib"]
    return v if isinstance(v, (int, float)) else None  # graded: not drawn


def measured(readme):
    """(side, L2→SM MiB, DRAM MiB) rows of the handout's ncu table."""
    rows = []
    for m in re.finditer(r"^\| (\d+)×\d+ \| (\d+) \| (\d+) \| (\d+) \|$", readme.read_text(), re.M):
        side, l2, dram_r, dram_w = map(int, m.groups())
        rows.append((side, l2, dram_r + dram_w))
    return rows


def main():
    figure_command_line(__doc__, "lab03_traffic.svg")
    sides = [16, 24, 40, 48, 80, 96, 160, 192, 256]
    curve = [(s, t) for s in sides if (t := model(sys.argv[1], s)) is not None]
    rows = measured(here / "README.md")
    ys = [t for _, t in curve] + [r[1] for r in rows] + [r[2] for r in rows]
    chart = Chart(760, 380, "C = A·W (1024 × 4096 × 12288, BF16): traffic of independent square tiles")
    chart.log_axes([s for s, _ in curve], ys, "tile side (m = n), k = 32", "MiB")
    chart.line([s for s, _ in curve], [t for _, t in curve], "model V")
    chart.points([r[0] for r in rows], [r[1] for r in rows], "L2→SM (v1)", colour=2)
    chart.points([r[0] for r in rows], [r[2] for r in rows], "DRAM (v1)", colour=1)
    out = figure_path(here / "figures" / "lab03_traffic.svg")
    out.write_text(chart.svg())
    print(f"wrote {out} ({len(curve)} model points, {len(rows)} measured tiles)")


if __name__ == "__main__":
    main()
