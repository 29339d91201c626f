#!/usr/bin/env python3
"""Usage: figures.py GRADER [OUT.svg] — redraws lab 04's figure, figures/lab04_layouts.svg: the first eight
rows of shared-memory words (32 banks across) under each layout of the solution, evaluated by the
layouts' own offset() functions (`lab04_bench_solution --layouts`, next to GRADER's build, no GPU needed).
The elements of tile column 0 — what one warp reads at once on the transpose's store side — are red;
words that hold no element (padding) are grey."""
import json
import pathlib
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "common" / "scripts"))
from svg_chart import figure_command_line, text, write_figure  # noqa: E402

here = pathlib.Path(__file__).resolve().parent
CELL, LEFT, TOP, WORD_ROWS, BANKS = 14, 70, 34, 8, 32
PANELS = [("plain", "plain FP32: rows 32 words apart"), ("padded", "padded FP32: rows 33 words apart"),
          ("swizzled", "swizzled FP32: (r, c) at column c XOR r"), ("plain_bf16", "plain BF16: two elements per word"),
          ("swizzled_bf16", "swizzled BF16: (r, c) at element column c XOR r")]
COLUMN, ROWS, PAD = "#d1242f", ["#dbe9fb", "#b6d3f7"], "#8c959f"



def panel(name, title, layout, tile, y0):
    ebytes, offsets = layout["element_bytes"], layout["offsets"]
    per_word = 4 // ebytes
    # Which (row, col) lives in each element slot of the first WORD_ROWS · 32 words.
    slots = {off: (i // tile, i % tile) for i, off in enumerate(offsets)}
    parts = [text(LEFT, y0 - 6, title)]  # rounds and bytes are the paper exercises' to count
    for w in range(WORD_ROWS * BANKS):
        x, y = LEFT + (w % BANKS) * CELL, y0 + (w // BANKS) * CELL
        for part in range(per_word):
            cell = slots.get(w * per_word + part)
            colour = PAD if cell is None else COLUMN if cell[1] == 0 else ROWS[cell[0] % 2]
            width = CELL / per_word
            parts.append(f'<rect x="{x + part * width:.1f}" y="{y}" width="{width:.1f}" height="{CELL}" '
                         f'fill="{colour}" stroke="#ffffff" stroke-width="0.6"/>')
            if cell is not None and cell[1] == 0:
                parts.append(text(x + part * width + width / 2, y + CELL - 3.5, str(cell[0]), 8, "middle", "#ffffff"))
    for row in range(WORD_ROWS):
        parts.append(text(LEFT - 6, y0 + row * CELL + CELL - 3.5, f"w {row * BANKS}", 9, "end", "#57606a"))
    return parts


def main():
    figure_command_line(__doc__, "lab04_layouts.svg")
    bench = pathlib.Path(sys.argv[1]).resolve().parents[1] / "labs" / "04_banks" / "lab04_bench_solution"
    if not bench.exists():
        sys.exit(f"figures: {bench} is not built (it needs Google Benchmark and LABS_BUILD_SOLUTIONS)")
    data = json.loads(subprocess.run([str(bench), "--layouts"], check=True, capture_output=True, text=True).stdout)
    height_each = WORD_ROWS * CELL + 30
    width, height = LEFT + BANKS * CELL + 20, TOP + len(PANELS) * height_each + 10
    parts = [text(LEFT, 14, "32 banks across; each cell is one 4-byte word; red: tile column 0, labelled by row", 11)]
    for b in range(0, BANKS, 4):
        parts.append(text(LEFT + b * CELL + CELL / 2, TOP - 8, str(b), 9, "middle", "#57606a"))
    for i, (name, title) in enumerate(PANELS):
        parts += panel(name, title, data["layouts"][name], data["tile"], TOP + 14 + i * height_each)
    write_figure(parts, width, height, here / "figures" / "lab04_layouts.svg")


if __name__ == "__main__":
    main()
