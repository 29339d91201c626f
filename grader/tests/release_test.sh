#!/usr/bin/env sh
# release_test.sh GRADER SOURCE_DIR WORK PYTHON
# `grader release` writes the course a class receives, and refuses what it must: the release holds no solution, no
# known-bad version, no instructor's guide and no file that prints an answer (check_printed_keys.py --bundle, with
# the keys from this course's solutions); class.toml keeps the course seed given and has no student; the README
# starts by pointing at lab 00 and keeps its two commands; a folder that is not empty, or one inside the course,
# is refused (exit 2). (Building and grading a release from scratch: grader/scripts/check-release.sh.)
set -u
grader=$1 src=$2 work=$3 python=$4
# shellcheck source=grader/tests/lib.sh
. "$(dirname "$0")/lib.sh"
fresh_work "$work"
rel="$work/course"
"$grader" release "$rel" --course-seed 4242 > "$work/release.txt" 2>&1; rc=$?
[ $rc -eq 0 ] || { echo "FAIL grader release exits $rc:"; cat "$work/release.txt"; exit 1; }
expect_in "it says what it left out, and why" "left out: [0-9]+ files, the solutions" "$work/release.txt"
expect_in "... and names the check to run" "check-release.sh" "$work/release.txt"
for f in README.md CMakeLists.txt CMakePresets.json class.toml labs/00_warmup/vector_add.cu labs/00_warmup/answers.toml \
         labs/09_shapes/README.md grader/src/main.cpp common/scripts/install-deps.sh docs/grading.md; do
  [ -f "$rel/$f" ] && echo "ok   $f is in the release" || { echo "FAIL $f is missing from the release"; problems=$((problems + 1)); }
done
for f in solutions docs/instructor.md .ci; do
  [ -e "$rel/$f" ] && { echo "FAIL $f is in the release"; problems=$((problems + 1)); } || echo "ok   $f is left out"
done
if [ -n "$(find "$rel" -name wrong)" ]; then echo "FAIL a wrong/ folder is in the release"; problems=$((problems + 1)); else echo "ok   no wrong/ folder"; fi
if [ -n "$(find "$rel" -name 'build*' -maxdepth 1)" ]; then echo "FAIL a build tree is in the release"; problems=$((problems + 1)); else echo "ok   no build tree"; fi
[ -x "$rel/common/scripts/install-deps.sh" ] && echo "ok   scripts stay executable" || { echo "FAIL install-deps.sh lost its mode"; problems=$((problems + 1)); }
expect_in "class.toml keeps the course seed given" "^seed = 4242$" "$rel/class.toml"
expect_in "... and has no student id" '^id = ""$' "$rel/class.toml"
expect_in "the README starts at lab 00" "This is your copy of the course.* Start with lab 00" "$rel/README.md"
expect_in "... and keeps the main command" "<!-- main-command -->" "$rel/README.md"
expect_in "... and the test command" "<!-- test-command -->" "$rel/README.md"
if grep -q "instructors:" "$rel/README.md"; then echo "FAIL the README keeps the instructors' lines"; problems=$((problems + 1)); else echo "ok   the instructors' lines are left out"; fi
"$python" "$src/grader/scripts/check_printed_keys.py" --bundle "$rel" "$src" > "$work/printed.txt" 2>&1 \
  && echo "ok   no file of the release prints an answer" || { echo "FAIL printed answers:"; cat "$work/printed.txt"; problems=$((problems + 1)); }
# ... and the check can fail: a solution's file put back is caught.
mkdir -p "$rel/solutions/00_warmup" && cp "$src/solutions/00_warmup/answers.toml" "$rel/solutions/00_warmup/"
"$python" "$src/grader/scripts/check_printed_keys.py" --bundle "$rel" "$src" > "$work/planted.txt" 2>&1 \
  && { echo "FAIL a solutions/ folder in a release is not caught"; problems=$((problems + 1)); } || echo "ok   a solutions/ folder put back is caught"
rm -rf "$rel/solutions"
# Refusals: a folder that is not empty, one inside the course.
"$grader" release "$rel" > "$work/again.txt" 2>&1; rc=$?
expect_in "a folder that is not empty is refused" "exists and is not an empty folder" "$work/again.txt"
[ $rc -eq 2 ] || { echo "FAIL ... exits $rc, not 2"; problems=$((problems + 1)); }
"$grader" release "$src/release-inside" > "$work/inside.txt" 2>&1; rc=$?
expect_in "a folder inside the course is refused" "is inside the course" "$work/inside.txt"
[ $rc -eq 2 ] || { echo "FAIL ... exits $rc, not 2"; problems=$((problems + 1)); }
[ -e "$src/release-inside" ] && { echo "FAIL ... and it wrote there"; problems=$((problems + 1)); rm -rf "$src/release-inside"; }
[ $problems -eq 0 ] && echo "release: all checks passed" || echo "release: $problems problem(s)"
[ $problems -eq 0 ]
