#!/usr/bin/env bash
# Validates labs on a GPU host, as an instructor does before a term (or an author after a change): for each lab named,
# the solution graded twice, the untouched template once, the known-bad versions as wrong/expect.json says (ctest
# labNN_wrong), and the solution's benchmark as JSON (the handout's figures are drawn from it). Everything is written
# under OUT: a log per step, each report as JSON, each bench's JSON, and a summary (summary.txt) of what passed.
#
#   grader/scripts/gpu-validate.sh OUT LAB...          e.g. grader/scripts/gpu-validate.sh out/validate 10 11 12
#
# Builds first (the default preset; BUNDLE=DIR adds an offline bundle of the header-only dependencies made by
# common/scripts/bundle-deps.sh, ARCH=90 sets the CUDA architectures). Exit 0 when every step passed.
set -uo pipefail
cd "$(dirname "$0")/../.."
[ $# -ge 2 ] || { sed -n '2,10p' "$0"; exit 2; }
out=$1; shift
mkdir -p "$out"
summary="$out/summary.txt"
: > "$summary"
note() { echo "$*" | tee -a "$summary"; }
failed=0

configure=(cmake --preset default)
[ -n "${BUNDLE:-}" ] && configure+=("-DCMAKE_PREFIX_PATH=$BUNDLE")
[ -n "${ARCH:-}" ] && configure+=("-DCMAKE_CUDA_ARCHITECTURES=$ARCH")
start=$(date +%s)
if ! "${configure[@]}" > "$out/configure.log" 2>&1; then note "configure: FAILED (configure.log)"; exit 1; fi
targets=(all)
for lab in "$@"; do
    targets+=($(ninja -C build -t targets all 2>/dev/null | grep -o "^lab${lab}_\(bench_solution\|checks_wrong_[A-Za-z0-9_]*\)" | sort -u))
done
if ! cmake --build build -j "$(nproc)" --target "${targets[@]}" > "$out/build.log" 2>&1; then
    note "build: FAILED (build.log)"; exit 1
fi
note "build: $(( $(date +%s) - start )) s"

grader=build/grader/grader
for lab in "$@"; do
    for run in 1 2; do
        start=$(date +%s.%N)
        "$grader" "$lab" --solution -v --no-color --json "$out/lab${lab}_solution_$run.json" > "$out/lab${lab}_solution_$run.log" 2>&1
        rc=$?
        secs=$(python3 -c "import time; print(f'{time.time() - $start:.1f}')")
        total=$(python3 -c "import json,sys; t=json.load(open(sys.argv[1]))['totals']; print(f\"{t['points']:g}/{t['max_points']:g}\")" \
                "$out/lab${lab}_solution_$run.json" 2>/dev/null || echo "no report")
        note "lab $lab solution, run $run: $total in $secs s (exit $rc)"
        [ "$rc" = 0 ] || failed=1
    done
    "$grader" "$lab" --no-color --json "$out/lab${lab}_template.json" > "$out/lab${lab}_template.log" 2>&1
    note "lab $lab template: $(python3 -c "import json,sys; t=json.load(open(sys.argv[1]))['totals']; print(f\"{t['points']:g}/{t['max_points']:g}\")" "$out/lab${lab}_template.json" 2>/dev/null || echo "no report")"
    if ctest --test-dir build -N -R "^lab${lab}_wrong" 2>/dev/null | grep -q "Test *#"; then
        if ctest --test-dir build -R "^lab${lab}_wrong" --output-on-failure > "$out/lab${lab}_wrong.log" 2>&1; then
            note "lab $lab known-bad versions: as expected"
        else
            note "lab $lab known-bad versions: NOT as expected (lab${lab}_wrong.log)"; failed=1
        fi
    fi
    bench=$(find build/labs -name "lab${lab}_bench_solution" -type f | head -n1)
    if [ -n "$bench" ]; then
        if "$bench" --benchmark_format=json --benchmark_out="$out/lab${lab}_bench.json" --benchmark_out_format=json \
                > "$out/lab${lab}_bench.log" 2>&1; then
            note "lab $lab bench: lab${lab}_bench.json"
        else
            note "lab $lab bench: FAILED (lab${lab}_bench.log)"; failed=1
        fi
    fi
done
exit $failed
