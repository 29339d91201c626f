#!/usr/bin/env python3
"""Lab 07's figures and tables. Nothing is drawn or typed by hand.

    figures.py --grader build/grader/grader --readme labs/07_attention/README.md
        the capacity table on this lab's H200 (227 KB per block, L = 8192, d = 128, b = 1 … 128: a, passes,
        state updates) from
        `grader calc attention-capacity` (labs_models' flash_plan), written between the handout's
        <!-- capacity:begin --> and <!-- capacity:end --> markers
    figures.py --bench BENCH.json [--out DIR]
        lab07_attention.svg: time and extra memory against L for the MATH path and yours (one head, causal),
        with the models' traffic; lab07_tflops.svg: your TFLOP/s at B 1, H 32 against L, with cuBLAS BF16's
        rate; from `lab07_bench --benchmark_format=json > BENCH.json`
"""
import json
import pathlib
import re
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "common" / "scripts"))
import handout_table  # noqa: E402
from bench_json import measured_runs  # noqa: E402
from svg_chart import Chart, figures_options, side_by_side  # noqa: E402

here = pathlib.Path(__file__).resolve().parent


def capacity_table(grader, readme):
    rows = handout_table.header("b (K/V rows)", "a (query rows)", "passes over K, V", "state updates")
    for b in (1, 2, 4, 8, 16, 32, 64, 128):
        out = subprocess.run([grader, "calc", "attention-capacity", "--device", "H200", "--seq-len", "8192", "--head-dim",
                              "128", "--kv-rows", str(b), "--json"], check=True, capture_output=True, text=True).stdout
        d = json.loads(out)
        rows.append(f"| {b} | {d['q_rows']} | {d['passes']} | {d['state_updates']:,} |")
    rows += ["", f"One H200 block's {d['budget_bytes']:,} bytes of shared memory, L = 8192, d = 128 "
                 "(`grader calc attention-capacity --device H200`). Each pass reads K and V once (4 MiB at this "
                 "shape); Q and O add 4 MiB."]
    handout_table.write_results(readme, rows, markers="capacity", script="figures.py")


def bench_figures(bench, out):
    runs = measured_runs(json.loads(pathlib.Path(bench).read_text()))
    att = [b for b in runs if re.match(r"attention/\d+/\d+/", b["name"])]
    heads = [b for b in runs if re.match(r"heads/\d+/", b["name"])]
    if not att or not heads:
        sys.exit("figures.py: no attention or heads runs in " + bench)
    series = {p: sorted((int(b["L"]), b) for b in att if int(b["path"]) == p) for p in (0, 1)}
    names = {0: "MATH path", 1: "yours"}
    time = Chart(520, 380, "One head, d 128, causal: time", legend=False)
    xs = [L for L, _ in series[1]]
    time.log_axes(xs, [b["ms"] for p in series for _, b in series[p]], "L", "ms")
    for p, colour in ((0, 1), (1, 0)):
        time.line([L for L, _ in series[p]], [b["ms"] for _, b in series[p]], None, colour)
        time.points([L for L, _ in series[p]], [b["ms"] for _, b in series[p]], names[p], colour)
    mem = Chart(760, 380, "... extra memory and the models' traffic")
    mem.right = 230
    values = [b["extra_mib"] for p in series for _, b in series[p] if b["extra_mib"] > 0] + \
             [b["model_mib"] for p in series for _, b in series[p]]
    mem.log_axes(xs, values, "L", "MiB")
    for p, colour in ((0, 1), (1, 0)):
        pts = [(L, b["extra_mib"]) for L, b in series[p] if b["extra_mib"] > 0]
        if pts:
            mem.points([L for L, _ in pts], [m for _, m in pts], f"{names[p]}: extra memory", colour)
        mem.line([L for L, _ in series[p]], [b["model_mib"] for _, b in series[p]], f"{names[p]}: traffic (model)", colour)
    out.mkdir(exist_ok=True)
    (out / "lab07_attention.svg").write_text(side_by_side([time, mem]))
    tf = Chart(760, 380, "B 1, H 32, d 128, causal: TFLOP/s (causal FLOPs halved)")
    tf.right = 210
    hs = sorted((int(b["L"]), b) for b in heads)
    cublas = hs[0][1]["cublas_tflops"]
    steps = list(range(len(hs)))  # one step per doubling of L
    tf.lin_axes(steps, [b["tflops"] for _, b in hs] + [cublas], "L", "TFLOP/s", x_ticks=steps,
                x_labels={i: str(L) for i, (L, _) in enumerate(hs)})
    tf.dashed([steps[0], steps[-1]], [cublas, cublas], f"cuBLAS BF16: {cublas:.0f}", 1)
    tf.line(steps, [b["tflops"] for _, b in hs], None, 0)
    tf.points(steps, [b["tflops"] for _, b in hs], "yours", 0)
    (out / "lab07_tflops.svg").write_text(tf.svg())
    print(f"wrote {out / 'lab07_attention.svg'} and {out / 'lab07_tflops.svg'}")


def main():
    ap = figures_options(__doc__, lambda out, grader: ["--bench", str(here / "figures" / "lab07_bench.json"),
                                                       "--out", str(out)])
    ap.add_argument("--grader")
    ap.add_argument("--readme", default=str(here / "README.md"))
    ap.add_argument("--bench")
    ap.add_argument("--out", default=str(here / "figures"))
    a = ap.parse_args()
    if not (a.grader or a.bench):
        ap.error("nothing to draw: give --grader or --bench")
    if a.grader:
        capacity_table(a.grader, a.readme)
    if a.bench:
        bench_figures(a.bench, pathlib.Path(a.out))


if __name__ == "__main__":
    main()
