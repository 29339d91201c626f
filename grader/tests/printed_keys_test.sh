#!/usr/bin/env sh
# printed_keys_test.sh SOURCE_DIR WORK PYTHON GRADER
# No lab's handout or answers.toml prints the answer to one of its graded questions, nor does `grader calc`
# for the graded parameters (the chapter's cases below, and every run the labs declare: `grader calc --graded`) (grader/scripts/check_printed_keys.py); and the check can fail: a copy of lab 00
# with the answer to its stated case planted in the handout, and one with it in an answers.toml comment,
# must be caught.
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
