#!/usr/bin/env python3
"""Measured bytes against the tiling model, for v1's three tiles (Nsight Compute).

    labs/03_tiling/ncu_traffic.py build/labs/03_tiling/lab03_bench [--variant V] [--kernel REGEX] [--ncu PATH]

With --variant v1 (the default), for each tile (32x32, 64x64, 128x128, k = 32) it takes the model's traffic from the benchmark's own
counters (models::tile_traffic), then profiles one launch of the v1 kernel with Nsight Compute (caches
flushed before the launch, clocks left alone) and reads:
  - L2 -> SM reads: the bytes the SMs fetched from L2 (lts__t_sectors_srcunit_tex_op_read, 32 B a sector):
    the interface the model counts, where every tile reads its own inputs;
  - DRAM reads and writes (dram__bytes_read, dram__bytes_write): what got past the 50-60 MB L2, which
    serves most of the re-reads the model counts.
With --variant v2, v3 or fused it profiles that variant's kernel on the same shape and prints the same
measured columns, without a model row (the tile is yours): run it before and after a change, such as
v3's grid order, and compare; `grader calc tile-traffic --tile-m BM --tile-n BN` gives the model for
your tile.
Needs permission to read the GPU's performance counters (ERR_NVGPUCTRPERM otherwise: run as root, or set
the driver option NVreg_RestrictProfilingToAdminUsers=0). --kernel selects the kernel by name (a regular
expression; default: the variant's kernel, gemm_v1, gemm_v2 or gemm_v3).
"""
import argparse
import csv
import io
import json
import shutil
import subprocess
import sys

TILES = (32, 64, 128)
KERNELS = {"v1": "gemm_v1", "v2": "gemm_v2", "v3": "gemm_v3", "fused": "gemm_v3"}
METRICS = {
    "l2_to_sm_read_sectors": "lts__t_sectors_srcunit_tex_op_read.sum",
    "dram_read_bytes": "dram__bytes_read.sum",
    "dram_write_bytes": "dram__bytes_write.sum",
    "time_ns": "gpu__time_duration.sum",
}
MIB = 1024.0 * 1024.0
UNIT = {"byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9, "KB": 1e3, "MB": 1e6, "GB": 1e9, "sector": 1,
        "nsecond": 1, "usecond": 1e3, "msecond": 1e6, "ns": 1, "us": 1e3, "ms": 1e6, "": 1}


def model_traffic(bench):
    out = subprocess.run([bench, "--benchmark_filter=v1_tile", "--benchmark_min_time=0.001",
                          "--benchmark_format=json"], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit("ncu_traffic: the benchmark failed:\n" + out.stderr[-2000:])
    result = {}
    for b in json.loads(out.stdout)["benchmarks"]:
        if b.get("error_occurred") or "traffic_MiB" not in b:
            continue
        result[int(b["tile"])] = b["traffic_MiB"]
    return result


def run_ncu(ncu, bench, benchmark, kernel, metrics):
    cmd = [ncu, "--csv", "--page", "raw", "--clock-control", "none", "--cache-control", "all",
           "--kernel-name", "regex:" + kernel, "--launch-count", "1", "--metrics", ",".join(metrics),
           bench, f"--benchmark_filter=^{benchmark}(/|$)", "--benchmark_min_time=0.001"]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if "No kernels were profiled" in out.stdout + out.stderr:
        sys.exit(f"ncu_traffic: no kernel matching '{kernel}' ran in benchmark {benchmark} "
                 "(--kernel takes a regular expression for the kernel's name)")
    start = out.stdout.find('"ID"')
    return (out.stdout[start:] if out.returncode == 0 and start >= 0 else None), (out.stderr or out.stdout)


def profile(ncu, bench, benchmark, kernel):
    text, log = run_ncu(ncu, bench, benchmark, kernel, METRICS.values())
    if text is None:  # an older GPU or Nsight Compute may lack the L2 metric: DRAM and time only
        text, log = run_ncu(ncu, bench, benchmark, kernel,
                            [METRICS[k] for k in ("dram_read_bytes", "dram_write_bytes", "time_ns")])
    if text is None:
        sys.exit("ncu_traffic: Nsight Compute could not read the counters:\n" + log[-2000:])
    rows = list(csv.reader(io.StringIO(text)))
    if len(rows) < 3:
        sys.exit(f"ncu_traffic: Nsight Compute returned no values for '{kernel}' in benchmark {benchmark}:\n" + text)
    header, units, values = rows[0], rows[1], rows[2]
    got = {}
    for key, metric in METRICS.items():
        if metric not in header:
            got[key] = None
            continue
        i = header.index(metric)
        got[key] = float(values[i].replace(",", "")) * UNIT.get(units[i], 1)
    return got


def mib(v, scale=1.0):
    return "–" if v is None else f"{v * scale / MIB:.0f}"


def measured_columns(m):
    us = "–" if m["time_ns"] is None else f"{m['time_ns'] / 1e3:.0f}"
    return f"{mib(m['l2_to_sm_read_sectors'], 32)} | {mib(m['dram_read_bytes'])} | {mib(m['dram_write_bytes'])} | {us}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("bench", help="path to lab03_bench (or lab03_bench_solution)")
    ap.add_argument("--variant", default="v1", choices=sorted(KERNELS), help="v1: the tile sweep against the model")
    ap.add_argument("--kernel", help="regular expression for the kernel's name (default: the variant's kernel)")
    ap.add_argument("--ncu", default=shutil.which("ncu") or "ncu", help="Nsight Compute command line")
    args = ap.parse_args()
    kernel = args.kernel or KERNELS[args.variant]
    if args.variant != "v1":
        print("| variant | L2→SM reads MiB | DRAM reads MiB | DRAM writes MiB | kernel µs |")
        print("|---|---|---|---|---|")
        m = profile(args.ncu, args.bench, f"run/{args.variant}", kernel)
        print(f"| {args.variant} | {measured_columns(m)} |")
        return
    model = model_traffic(args.bench)
    print("| tile | model traffic MiB | L2→SM reads MiB | DRAM reads MiB | DRAM writes MiB | kernel µs |")
    print("|---|---|---|---|---|---|")
    for tile in TILES:
        m = profile(args.ncu, args.bench, f"v1_tile<{tile}>", kernel)
        print(f"| {tile}×{tile} | {model.get(tile, float('nan')):.0f} | {measured_columns(m)} |")
    print("\nThe model counts A and W once per output tile (reads) plus C once (writes); compare it with the")
    print("L2→SM reads plus the C write (24 MiB). DRAM sees far less: the L2 serves the re-reads.")


if __name__ == "__main__":
    main()
