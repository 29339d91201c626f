#!/bin/sh
# template_lab_test.sh SOURCE_DIR WORK PART [CMAKE_ARGS...]
# A new lab made as docs/grading.md ("Adding a lab") says — labs/_template/ and solutions/_template/ copied to
# 97_template_check with every "NN" replaced by 97, nothing else of the course touched — in a copy of the course:
#   PART=build  it configures and builds (only that lab: LABS_ONLY), `grader --list` lists it, its untouched answers
#               score 0 and the solution's full (cpu);
#   PART=code   its untouched code scores 0 without an error and the solution full, on the GPU; without one the
#               grader skips the code checks and this part exits 77 (ctest: SKIPPED), never passes.
set -eu
src=$1 work=$2 part=$3
shift 3
lab=97_template_check
# The copy builds inside itself, as a clone does: with ccache (LABS_COMPILER_CACHE) its compiles hit the cache the
# course's own build filled, the paths being the same relative to each build folder.
built="$work/src/build"
grader="$built/grader/grader"
if [ "$part" = build ]; then
  rm -rf "$work"
  mkdir -p "$work/src"
  # The course as a user has it: the tracked tree without build trees, git metadata or the offline bundle.
  tar -C "$src" --exclude='./build*' --exclude='./.git' --exclude='./.deps' --exclude='./out' -cf - . |
    tar -C "$work/src" -xf -
  cp -r "$src/labs/_template" "$work/src/labs/$lab"
  cp -r "$src/solutions/_template" "$work/src/solutions/$lab"
  find "$work/src/labs/$lab" "$work/src/solutions/$lab" -type f -exec sed -i 's/NN/97/g' {} +
  echo "template_lab_test: building lab $lab alone"
  cmake -S "$work/src" -B "$built" -G Ninja -DCMAKE_BUILD_TYPE=Release -DLABS_ONLY=97 -DLABS_BUILD_TESTS=OFF \
    -DLABS_BUILD_BENCHMARKS=OFF -DLABS_BUILD_DOCS=OFF -DLABS_BATCH_SLOTS=0 "$@" >"$work/configure.log" 2>&1 ||
    { tail -30 "$work/configure.log"; exit 1; }
  cmake --build "$built" >"$work/build.log" 2>&1 || { grep -m5 -A8 -i error "$work/build.log"; exit 1; }
  "$grader" --list --no-color | tee "$work/list.txt"
  grep -q "^97 " "$work/list.txt" || { echo "template_lab_test: lab 97 is not listed"; exit 1; }
  "$grader" 97 --no-color --no-ceilings --only answers --expect zero
  "$grader" 97 --no-color --no-ceilings --only answers --expect full --solution
  echo "template_lab_test: lab 97 builds, is listed, its answers grade to 0 untouched and to full with the solution"
  exit 0
fi
[ -x "$grader" ] || { echo "template_lab_test: run the build part first"; exit 1; }
rc=0
"$grader" 97 --no-color --only code --expect zero || rc=$?
[ "$rc" = 0 ] || [ "$rc" = 77 ] || exit "$rc"
untouched=$rc
rc=0
"$grader" 97 --no-color --only code --expect full --solution || rc=$?
[ "$rc" = 0 ] || [ "$rc" = 77 ] || exit "$rc"
if [ "$untouched" = 77 ] || [ "$rc" = 77 ]; then
  echo "template_lab_test: no GPU, the code checks were skipped"
  exit 77
fi
# The template's known-bad version, handed in as a submission: the tail it forgets is found.
mkdir -p "$work/bad/labs/$lab"
cp "$work/src/solutions/$lab/wrong/unwritten_tail.cu" "$work/bad/labs/$lab/scale.cu"
"$grader" 97 --no-color --only code --submission "$work/bad" --json "$work/bad.json" >/dev/null 2>&1 || true
python3 - "$work/bad.json" <<'PY'
import json, sys
checks = {c["id"]: c for lab in json.load(open(sys.argv[1]))["labs"] for c in lab["checks"]}
bad = checks.get("correct.n1", {})
ok = bad.get("status") == "fail" and "never written" in bad.get("message", "") and checks["correct.n1000"]["status"] == "pass"
print(("ok  " if ok else "FAIL") + " the known-bad unwritten_tail.cu fails correct.n1 (never written) and passes correct.n1000")
sys.exit(0 if ok else 1)
PY
echo "template_lab_test: lab 97's untouched code scores 0, its solution full, its known-bad version is caught"
