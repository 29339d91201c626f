#!/usr/bin/env python3
"""Usage: figures.py GRADER [OUT.svg] — redraws lab 05's figure, figures/lab05_cuts.svg: for each way to cut the
SiLU → multiply → quantize chain into kernels, the bytes it moves per element (from `GRADER calc
fusion-chain` at one element) and the time the solution took on the H200 at M = 8192 rows (the handout's
results table, written by results_table.py from lab05_bench)."""
import json
import pathlib
import re
import subprocess
import sys

here = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(here.parents[1] / "common" / "scripts"))
from svg_chart import Chart, figure_command_line, figure_path, side_by_side  # noqa: E402

CUTS = [("separate", "3 kernels"), ("2,1", "2 + 1"), ("fused", "1 kernel")]


def bytes_per_element(grader, split):
    out = subprocess.run([grader, "calc", "fusion-chain", "--rows", "1", "--width", "1", "--split", split, "--json"],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)["total_bytes"]


def times_at(readme, rows):
    """The three variants' µs at M = rows, from the handout's results table."""
    m = re.search(rf"^\| {rows} \| ([\d.]+) \| ([\d.]+) \| ([\d.]+) \|", readme.read_text(), re.M)
    if m is None:
        sys.exit(f"figures: no row for M = {rows} in the results table")
    return [float(v) for v in m.groups()]


def main():
    figure_command_line(__doc__, "lab05_cuts.svg")
    labels = [label for _, label in CUTS]
    per_element = [bytes_per_element(sys.argv[1], split) for split, _ in CUTS]
    times = times_at(here / "README.md", 8192)
    left = Chart(380, 320, "bytes per element (model)", legend=False)
    left.bars(labels, per_element, "bytes read + written", colour=0)
    right = Chart(380, 320, "time at M = 8192 on the H200", legend=False)
    right.bars(labels, times, "µs", colour=1, value_format="{:.0f}")
    out = figure_path(here / "figures" / "lab05_cuts.svg")
    out.write_text(side_by_side([left, right]))
    print(f"wrote {out}: {per_element} bytes per element, {times} µs")


if __name__ == "__main__":
    main()
