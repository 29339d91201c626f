#!/usr/bin/env python3
"""Redraws the results table of labs/05_fusion/README.md from lab05_bench's JSON output.

    build/labs/05_fusion/lab05_bench_solution --benchmark_format=json > bench.json
    labs/05_fusion/results_table.py bench.json labs/05_fusion/README.md

The table goes between the <!-- results:begin --> and <!-- results:end --> markers; nothing is typed.
"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "common", "scripts"))
import handout_table  # noqa: E402


def main(bench_path, readme_path):
    data = json.load(open(bench_path))
    ctx = data.get("context", {})
    rows = {}
    copy = None
    for b in data["benchmarks"]:
        if b.get("run_type") == "aggregate":
            continue
        m = re.match(r"run/(\w+)/(\d+)/", b["name"])
        if not m:
            continue
        variant, m_rows = m.group(1), int(m.group(2))
        us = b["real_time"] if b["time_unit"] == "us" else b["real_time"] * {"ns": 1e-3, "ms": 1e3}[b["time_unit"]]
        gbps = b["GB/s"]  # the counter is already in GB/s
        copy = b["copy_GB/s"]
        rows.setdefault(m_rows, {})[variant] = (us, gbps)
    if not rows:
        sys.exit("results_table: no lab05 benchmarks in " + bench_path)
    lines = [
        "| M | 3 kernels µs | SiLU⊙U + quant µs | fully fused µs | fused GB/s | fused % of copy | speed-up (3 → 1) |",
        "|---|---|---|---|---|---|---|",
    ]
    for m_rows in sorted(rows):
        r = rows[m_rows]
        sep, two, one = r.get("separate"), r.get("fused_silu_mul"), r.get("all_fused")
        if not (sep and two and one):
            continue
        lines.append(f"| {m_rows} | {sep[0]:.1f} | {two[0]:.1f} | {one[0]:.1f} | {one[1]:.0f} | "
                     f"{100 * one[1] / copy:.0f}% | {sep[0] / one[0]:.2f}× |")
    lines += ["", handout_table.measured_by("lab05_bench", ctx, f"copy bandwidth {copy:.0f} GB/s, read + write")]
    handout_table.write_results(readme_path, lines)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
