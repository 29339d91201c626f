#!/usr/bin/env sh
# printed_keys_test.sh SOURCE_DIR WORK PYTHON GRADER
# No lab's handout or answers.toml prints the answer to one of its graded questions, nor does `grader calc`
# for the graded parameters (the chapter's cases below, and every run the labs declare: `grader calc --graded`),
# nor any other file a student receives the answer to a question the chapter does not work
# (grader/scripts/check_printed_keys.py); and the check can fail: a copy of lab 00 with the answer to its
# stated case planted in the handout, and one with it in an answers.toml comment, must be caught; so must,
# in a copy of the student bundle that passes clean, an answer planted in one file of each other kind — a C++
# test, a header, a CUDA source, a Markdown doc, a Python script, a CMake file, a figure's SVG and a bench's
# JSON output. (The answers are read from the solutions here: this file must not print one either.)
set -u
src=$1 work=$2 python=$3 grader=$4
check="$src/grader/scripts/check_printed_keys.py"
mkdir -p "$work"
i=0
outputs=""
while read -r lab args; do  # the chapter's cases and the stated cases of labs 03, 04 and 05, each with its lab
  i=$((i + 1))
  eval "\"$grader\" calc $args" > "$work/calc$i.txt" || { echo "FAIL: grader calc $args"; exit 1; }
  outputs="$outputs $lab:$work/calc$i.txt"
done <<'CALLS'
03 tile-traffic --tile-m 32 --tile-n 32
03 tile-traffic --tile-m 64 --tile-n 64
03 tile-traffic --tile-m 128 --tile-n 128
03 tile-traffic --tile-m 64 --tile-n 128 --device "RTX PRO 6000"
03 tile-traffic --m 3072 --n 12288 --k 4096 --tile-m 192 --tile-n 64 --tile-k 16
03 tile-traffic --m 3072 --n 12288 --k 4096 --tile-m 192 --tile-n 64 --tile-k 16 --device "RTX PRO 6000"
05 fusion-chain
05 fusion-chain --split fused
05 fusion-chain --split 2,1
05 fusion-chain --quant-bytes 0
05 fusion-chain --quant-bytes 0 --split fused
05 fusion-chain --rows 2560 --width 13312
05 fusion-chain --rows 2560 --width 13312 --split fused
05 fusion-chain --rows 2560 --width 13312 --split 2,1
05 quant-gemm
04 bank-rounds
04 bank-rounds --pad 1
04 bank-rounds --pad 2
04 bank-rounds --swizzle 1
04 bank-rounds --element-bytes 2
04 bank-rounds --width 80 --pad 3 --element-bytes 2
CALLS
# ... and every run a lab declares as working its graded questions (`grader calc --graded`), as listed.
"$grader" calc --graded > "$work/graded.txt" || { echo "FAIL: grader calc --graded"; exit 1; }
while IFS= read -r line; do
  lab=${line#lab }; lab=${lab%% *}
  args=${line#*: grader calc }
  i=$((i + 1))
  eval "\"$grader\" calc $args" > "$work/calc$i.txt" || { echo "FAIL: grader calc $args"; exit 1; }
  outputs="$outputs $lab:$work/calc$i.txt"
done < "$work/graded.txt"
# shellcheck disable=SC2086
"$python" "$check" "$src" $outputs || exit 1
# ... and a calculator output that showed an answer would be caught.
mib=$("$python" -c "import tomllib,sys; print(tomllib.load(open(sys.argv[1],'rb'))['traffic']['mib_64x64'])" \
      "$src/solutions/03_tiling/answers.toml")
printf 'results\n  traffic_mib    %s    MiB    = traffic_bytes / 2^20\n' "$mib" > "$work/planted.txt"
if "$python" "$check" "$src" "$work/planted.txt" > /dev/null; then echo "FAIL: a calculator output with an answer went unnoticed"; exit 1; fi
echo "ok   a calculator output that shows an answer is caught"
for where in README.md answers.toml; do
  rm -rf "$work/copy"
  mkdir -p "$work/copy/labs" "$work/copy/solutions"
  cp -r "$src/labs/00_warmup" "$work/copy/labs/"
  cp -r "$src/solutions/00_warmup" "$work/copy/solutions/"
  "$python" "$check" "$work/copy" > /dev/null || { echo "FAIL: the clean copy is flagged"; exit 1; }
  key=$("$python" -c "import tomllib,sys; print(tomllib.load(open(sys.argv[1],'rb'))['vector_add']['case']['grid_blocks'])" \
        "$work/copy/solutions/00_warmup/answers.toml")
  echo "# so the launch takes $key blocks" >> "$work/copy/labs/00_warmup/$where"
  if "$python" "$check" "$work/copy" > /dev/null; then echo "FAIL: an answer planted in $where went unnoticed"; exit 1; fi
  echo "ok   an answer planted in $where is caught"
done

# ... and in every other kind of file a student receives. The copy: the student bundle, as the check lists it,
# plus the solutions' answers.toml (the check reads the keys there); not a git checkout, so the check walks it.
tree="$work/bundle"
rm -rf "$tree" "$work/plants.txt"
"$python" - "$src" "$tree" <<'PY' || { echo "FAIL: could not copy the student bundle"; exit 1; }
import pathlib, shutil, sys
sys.dont_write_bytecode = True
src, dst = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
sys.path.insert(0, str(src / "grader" / "scripts"))
import check_printed_keys
files = check_printed_keys.bundle_files(src) + [p.relative_to(src).as_posix() for p in src.glob("solutions/*/answers.toml")]
for rel in files:
    if (src / rel).is_file():
        (dst / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src / rel, dst / rel)
PY
"$python" "$check" "$tree" > "$work/bundle-clean.txt" \
  || { cat "$work/bundle-clean.txt"; echo "FAIL: the clean copy of the student bundle is flagged"; exit 1; }
echo "ok   the copy of the student bundle is clean"
# FILE|LAB|KEY|TEXT: TEXT, with {v} the key's value (an integer, or 4 significant digits; {e}: as Google
# Benchmark writes it) and \n a new line, is appended to FILE (an SVG: as a label; a JSON: as a counter).
# All are planted at once (one run of the check, to keep this fast): each file must have its own finding.
while IFS='|' read -r file lab key text; do
  "$python" - "$tree" "$file" "$lab" "$key" "$text" <<'PY' || { echo "FAIL: could not plant $key in $file"; exit 1; }
import pathlib, sys, tomllib
tree, file, lab, key, text = sys.argv[1:]
value = tomllib.loads((pathlib.Path(tree) / "solutions" / lab / "answers.toml").read_text())
for part in key.split("."):
    value = value[part]
v = str(int(value)) if float(value).is_integer() else f"{value:.4g}"
text = text.replace("\\n", "\n").replace("{v}", v).replace("{e}", f"{float(value):.16e}")
path = pathlib.Path(tree) / file
body = path.read_text()
if file.endswith(".svg"):
    body = body.replace("</svg>", f'<text x="10" y="10">{text}</text>\n</svg>')
elif file.endswith(".json"):
    body = body.replace("{", "{\n  " + text + ",", 1)
else:
    body += text + "\n"
path.write_text(body)
PY
  echo "$file|$lab|$key" >> "$work/plants.txt"
done <<'PLANTS'
common/tests/models/fusion_test.cpp|05_fusion|experiment_5_2.min_rows|\nTEST_CASE("Experiment 5-2: the fewest rows for a 5 us overhead", "[models][fusion]") {\n    CHECK(rows == {v});\n}
labs/03_tiling/tiling.hpp|03_tiling|case.local_kib|/// The stated case's tile keeps {v} KiB of local storage per block.
labs/00_warmup/checks.cu|00_warmup|vector_add.case.grid_blocks|// At the stated case the launch takes {v} blocks.
docs/instructor.md|02_occupancy|exercise_5_1.smem_per_block_kib|\n## Exercise 5-1\n\n| registers | shared memory per block |\n|---|---|\n| 128 | {v} KiB |
labs/04_banks/figures.py|04_banks|case.transpose_mib|print("case tile: the transpose moves {v} MiB")
labs/07_attention/CMakeLists.txt|07_attention|experiment_5_3.traffic_mib_with_prefetch_b64|# Experiment 5-3: {v} MiB with the prefetch slot
labs/01_streams/figures/lab01_timeline.svg|01_streams|case.transfer_ms|the copy takes {v} ms
labs/08_graphs/figures/lab08_bench.json|08_graphs|case.graph_us|"graph_us": {e}
PLANTS
"$python" "$check" "$tree" > "$work/bundle-planted.txt" && { echo "FAIL: the check passed a copy with answers planted"; exit 1; }
while IFS='|' read -r file lab key; do
  grep -q "^FAIL $file:.* $lab/$key " "$work/bundle-planted.txt" \
    || { cat "$work/bundle-planted.txt"; echo "FAIL: $lab's $key planted in $file went unnoticed"; exit 1; }
  echo "ok   $lab's $key planted in $file is caught"
done < "$work/plants.txt"
