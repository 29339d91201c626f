#!/usr/bin/env sh
# printed_keys_test.sh SOURCE_DIR WORK PYTHON
# No lab's handout or answers.toml prints the answer to one of its graded questions
# (grader/scripts/check_printed_keys.py), and the check can fail: a copy of lab 00 with the answer to
# its stated case planted in the handout, and one with it in an answers.toml comment, must be caught.
set -u
src=$1 work=$2 python=$3
check="$src/grader/scripts/check_printed_keys.py"
"$python" "$check" "$src" || exit 1
for where in README.md answers.toml; do
  rm -rf "$work"
  mkdir -p "$work/labs" "$work/solutions"
  cp -r "$src/labs/00_warmup" "$work/labs/"
  cp -r "$src/solutions/00_warmup" "$work/solutions/"
  "$python" "$check" "$work" > /dev/null || { echo "FAIL: the clean copy is flagged"; exit 1; }
  key=$("$python" -c "import tomllib,sys; print(tomllib.load(open(sys.argv[1],'rb'))['vector_add']['case']['grid_blocks'])" \
        "$work/solutions/00_warmup/answers.toml")
  echo "# so the launch takes $key blocks" >> "$work/labs/00_warmup/$where"
  if "$python" "$check" "$work" > /dev/null; then echo "FAIL: an answer planted in $where went unnoticed"; exit 1; fi
  echo "ok   an answer planted in $where is caught"
done
