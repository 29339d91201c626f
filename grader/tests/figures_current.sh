#!/bin/sh
# The handouts' figures are what their scripts draw: from the models (GRADER's build) or from the measurements
# committed beside them. Usage: figures_current.sh PYTHON SOURCE_DIR GRADER WORK_DIR
py=$1 src=$2 grader=$3 work=$4
status=0
# check LAB FIGURE INPUT: labs/LAB/figures.py INPUT must draw labs/LAB/figures/FIGURE.svg, byte for byte.
check() {
    if ! "$py" "$src/labs/$1/figures.py" "$3" "$work/$2.svg" >/dev/null; then
        echo "labs/$1/figures.py failed"
        status=1
    elif ! cmp -s "$work/$2.svg" "$src/labs/$1/figures/$2.svg"; then
        echo "labs/$1/figures/$2.svg is not what labs/$1/figures.py draws: run it"
        status=1
    fi
}
check 01_streams lab01_timeline "$src/labs/01_streams/figures/lab01_timeline.json"
check 02_occupancy lab02_curve "$src/labs/02_occupancy/figures/lab02_bench.json"
check 03_tiling lab03_traffic "$grader"
check 04_banks lab04_layouts "$grader"
check 05_fusion lab05_cuts "$grader"
# check_folder LAB "FIGURES" ARGS...: labs/LAB/figures.py ARGS --out DIR must draw each of FIGURES (space
# separated) as labs/LAB/figures/FIGURE.svg, byte for byte.
check_folder() {
    lab=$1 figures=$2
    shift 2
    mkdir -p "$work/$lab"
    if ! "$py" "$src/labs/$lab/figures.py" "$@" --out "$work/$lab" >/dev/null; then
        echo "labs/$lab/figures.py failed"
        status=1
        return
    fi
    for f in $figures; do
        cmp -s "$work/$lab/$f.svg" "$src/labs/$lab/figures/$f.svg" ||
            { echo "labs/$lab/figures/$f.svg is not what labs/$lab/figures.py draws: run it"; status=1; }
    done
}
check_folder 06_pipeline "lab06_slots lab06_stages lab06_timeline" --grader "$grader" \
    --bench "$src/labs/06_pipeline/figures/lab06_bench.json" --timeline "$src/labs/06_pipeline/figures/lab06_timeline.json"
check_folder 07_attention "lab07_attention lab07_tflops" --bench "$src/labs/07_attention/figures/lab07_bench.json"
check_folder 08_graphs "lab08_steps lab08_breakeven" --bench "$src/labs/08_graphs/figures/lab08_bench.json"
check_folder 09_shapes "lab09_costs lab09_crossover lab09_serve lab09_cache" --bench "$src/labs/09_shapes/figures/lab09_bench.json"
exit $status
