#!/bin/sh
# The handouts' figures are what their scripts draw: from the models (GRADER's build) or from the measurements
# committed beside them. Every lab with a figures.py is found by its folder; `figures.py --redraw DIR --grader
# GRADER` draws each of its figures from its committed inputs into DIR, and every SVG committed in the lab's
# figures/ must come out byte for byte. Usage: figures_current.sh PYTHON SOURCE_DIR GRADER WORK_DIR
py=$1 src=$2 grader=$3 work=$4
status=0
labs=0
for script in "$src"/labs/[0-9][0-9]_*/figures.py; do
    [ -f "$script" ] || continue
    lab=$(basename "$(dirname "$script")")
    labs=$((labs + 1))
    rm -rf "$work/$lab"
    mkdir -p "$work/$lab"
    if ! "$py" "$script" --redraw "$work/$lab" --grader "$grader" >/dev/null; then
        echo "labs/$lab/figures.py --redraw failed"
        status=1
        continue
    fi
    for committed in "$src/labs/$lab/figures/"*.svg; do
        [ -f "$committed" ] || continue
        name=$(basename "$committed")
        if [ ! -f "$work/$lab/$name" ]; then
            echo "labs/$lab/figures/$name is committed but labs/$lab/figures.py --redraw does not draw it"
            status=1
        elif ! cmp -s "$work/$lab/$name" "$committed"; then
            echo "labs/$lab/figures/$name is not what labs/$lab/figures.py draws: run it"
            status=1
        fi
    done
done
[ "$labs" -gt 0 ] || { echo "no lab has a figures.py"; exit 1; }
[ "$status" = 0 ] && echo "ok: the figures of $labs labs are what their scripts draw"
exit $status
