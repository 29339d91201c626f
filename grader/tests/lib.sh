# shellcheck shell=sh
# Helpers the grader's shell tests source (. "$(dirname "$0")/lib.sh"); POSIX sh.

problems=0
# expect WHAT COMMAND...: runs the command and reports "ok   WHAT" or "FAIL WHAT"; failures are counted in
# $problems (end the test with `exit $((problems > 0))`).
expect() {
  what=$1; shift
  if "$@"; then echo "ok   $what"; else echo "FAIL $what"; problems=$((problems + 1)); fi
}
