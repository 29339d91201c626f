#!/usr/bin/env bash
# check-release.sh RELEASE_DIR [SOURCE_DIR]
# A student release (`grader release RELEASE_DIR`) checked as a class will use it, before it is handed out:
#   1. nothing of the instructor's is in it, and no file prints a graded answer (the keys come from SOURCE_DIR's
#      solutions, by default the course this script belongs to);
#   2. the README's main command, run in it from scratch, builds it (the benchmarks the handouts name included)
#      and grades every lab to 0 with every check listed (each lab's checks add up to its 100 points) and ends by
#      saying where to start;
#   3. `grader --solution` says that the solutions are not part of this course.
# It builds in RELEASE_DIR/build (minutes on two cores). Exit 0 when all holds; each problem is printed.
set -u -o pipefail
[ $# -ge 1 ] || { echo "usage: check-release.sh RELEASE_DIR [SOURCE_DIR]" >&2; exit 2; }
rel=$(cd "$1" && pwd) || exit 2
src=$(cd "${2:-$(dirname "$0")/../..}" && pwd) || exit 2
python=${PYTHON:-python3}
logs="$rel/build/check-release"
problems=0
fail() { echo "FAIL $*"; problems=$((problems + 1)); }

echo "check-release: 1. what the release holds"
"$python" "$src/grader/scripts/check_printed_keys.py" --bundle "$rel" "$src" | tail -5 || fail "a file of the release prints an answer, or holds the instructor's (above)"
[ -e "$rel/solutions" ] && fail "solutions/ is in the release"
[ -e "$rel/docs/instructor.md" ] && fail "docs/instructor.md is in the release"

echo "check-release: 2. the README's main command, from scratch"
main=$(sed -n '/<!-- main-command -->/,/<!-- \/main-command -->/p' "$rel/README.md" | grep -v -e '^<!--' -e '^```')
[ -n "$main" ] || fail "the release's README has no main command"
mkdir -p "$logs"
start=$(date +%s)
(cd "$rel" && bash -euo pipefail -c "$main") > "$logs/main.txt" 2>&1
rc=$?
echo "check-release: the main command took $(( $(date +%s) - start )) s and exited $rc"
[ $rc -eq 1 ] || { fail "the main command exits $rc, not 1 (an untouched course scores 0)"; tail -30 "$logs/main.txt"; }
grep -q "Nothing done yet, so 0 points is what to expect" "$logs/main.txt" || fail "the main command does not end by saying where to start"
# The benchmarks the handouts tell students to run are there after the main command alone, and start (listing
# their runs needs no GPU).
benches=$(cd "$rel" && grep -oh 'build/labs/[0-9][0-9]_[a-z_]*/lab[0-9][0-9]_bench\b' labs/*/README.md | sort -u)
[ -n "$benches" ] || fail "no handout names a benchmark (build/labs/NN_x/labNN_bench)"
for b in $benches; do
  if [ ! -x "$rel/$b" ]; then
    fail "$b, which a handout says to run, is not built by the main command"
  elif ! (cd "$rel" && "$b" --benchmark_list_tests > "$logs/bench-list.txt" 2>&1) || [ ! -s "$logs/bench-list.txt" ]; then
    fail "$b --benchmark_list_tests does not list its runs:"; tail -5 "$logs/bench-list.txt"
  fi
done
echo "check-release: the handouts' benchmarks, built by the main command: $(echo $benches | wc -w)"
(cd "$rel" && build/grader/grader --no-build --no-ceilings --no-color --json "$logs/untouched.json") > "$logs/untouched.txt" 2>&1
"$python" - "$logs/untouched.json" <<'PY' || fail "the untouched release does not grade to 0 with every check listed (above)"
import json, sys
report = json.load(open(sys.argv[1]))
bad = []
for lab in report["labs"]:
    points = sum(c["points"] for c in lab["checks"])
    listed = sum(c["max_points"] for c in lab["checks"])
    broken = [c["id"] for c in lab["checks"] if c["status"] in ("error", "not_run", "tampered")]
    if abs(listed - 100) > 1e-6: bad.append(f"lab {lab['id']}: its checks add up to {listed} points, not 100")
    if points != 0: bad.append(f"lab {lab['id']}: {points} points untouched")
    if broken: bad.append(f"lab {lab['id']}: checks that did not run: {', '.join(broken)}")
print("\n".join(bad) if bad else f"ok: {len(report['labs'])} labs, every check listed, 0 points")
sys.exit(1 if bad else 0)
PY

echo "check-release: 3. no solutions"
(cd "$rel" && build/grader/grader --solution --no-build --no-ceilings) > "$logs/solution.txt" 2>&1
rc=$?
[ $rc -eq 2 ] || fail "grader --solution exits $rc, not 2"
grep -q "solutions are not part of this course" "$logs/solution.txt" || fail "grader --solution does not say that solutions are not part of this course"

[ $problems -eq 0 ] && echo "check-release: the release is ready to hand out" || echo "check-release: $problems problem(s)"
[ $problems -eq 0 ]
