# shellcheck shell=sh
# Helpers the grader's shell tests source (. "$(dirname "$0")/lib.sh"); POSIX sh.

problems=0
# expect WHAT COMMAND...: runs the command and reports "ok   WHAT" or "FAIL WHAT"; failures are counted in
# $problems (end the test with `exit $((problems > 0))`).
expect() {
  what=$1; shift
  if "$@"; then echo "ok   $what"; else echo "FAIL $what"; problems=$((problems + 1)); fi
}

# class_test WORK: what the tests that grade a class of lab 00 and check it in Python (batch_test.sh, shard_test.sh)
# start with: the GPU hidden (every row the same on any machine), this folder on PYTHONPATH (the checks import
# testlib.py), and WORK emptied.
class_test() {
  export CUDA_VISIBLE_DEVICES=
  PYTHONPATH="$(cd "$(dirname "$0")" && pwd)${PYTHONPATH:+:$PYTHONPATH}"
  export PYTHONPATH
  rm -rf "$1"
  mkdir -p "$1"
}

# expect_in WHAT PATTERN FILE: the file must match the extended regex; expect_not_in: it must not. A failure shows the
# file, and is counted in $problems.
expect_in() {
  if grep -Eq -- "$2" "$3"; then echo "ok   $1"; else echo "FAIL $1: no /$2/ in:"; sed 's/^/    | /' "$3"; problems=$((problems + 1)); fi
}
expect_not_in() {
  if grep -Eq -- "$2" "$3"; then echo "FAIL $1: /$2/ in:"; sed 's/^/    | /' "$3"; problems=$((problems + 1)); else echo "ok   $1"; fi
}

# fresh_work DIR: an empty work folder for the test.
fresh_work() {
  rm -rf "$1"
  mkdir -p "$1"
}
