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
# Lab 06 draws three figures from its options, into a folder.
mkdir -p "$work/06" && if ! "$py" "$src/labs/06_pipeline/figures.py" --grader "$grader" \
        --bench "$src/labs/06_pipeline/figures/lab06_bench.json" \
        --timeline "$src/labs/06_pipeline/figures/lab06_timeline.json" --out "$work/06" >/dev/null; then
    echo "labs/06_pipeline/figures.py failed"
    status=1
else
    for f in lab06_slots lab06_stages lab06_timeline; do
        cmp -s "$work/06/$f.svg" "$src/labs/06_pipeline/figures/$f.svg" ||
            { echo "labs/06_pipeline/figures/$f.svg is not what labs/06_pipeline/figures.py draws: run it"; status=1; }
    done
fi
# Lab 07 draws two figures from its bench, into a folder.
mkdir -p "$work/07" && if ! "$py" "$src/labs/07_attention/figures.py" \
        --bench "$src/labs/07_attention/figures/lab07_bench.json" --out "$work/07" >/dev/null; then
    echo "labs/07_attention/figures.py failed"
    status=1
else
    for f in lab07_attention lab07_tflops; do
        cmp -s "$work/07/$f.svg" "$src/labs/07_attention/figures/$f.svg" ||
            { echo "labs/07_attention/figures/$f.svg is not what labs/07_attention/figures.py draws: run it"; status=1; }
    done
fi
# Lab 08 draws two figures from its bench, into a folder.
mkdir -p "$work/08" && if ! "$py" "$src/labs/08_graphs/figures.py" \
        --bench "$src/labs/08_graphs/figures/lab08_bench.json" --out "$work/08" >/dev/null; then
    echo "labs/08_graphs/figures.py failed"
    status=1
else
    for f in lab08_steps lab08_breakeven; do
        cmp -s "$work/08/$f.svg" "$src/labs/08_graphs/figures/$f.svg" ||
            { echo "labs/08_graphs/figures/$f.svg is not what labs/08_graphs/figures.py draws: run it"; status=1; }
    done
fi
exit $status
