#!/usr/bin/env sh
# newcomer_test.sh GRADER SOURCE_DIR WORK PYTHON
# The mistakes a newcomer makes, each graded on a copy (a submission of lab 00's answers.toml), and the
# message each must get: a fraction, a missing quote, a key written twice, a deleted [section] line, a word that
# is not an option, another student's case lines; unanswered questions counted once; one check rerun by its id;
# a pattern that names no check refused with the ids; the JSON on stdout; the line an untouched course ends
# with; seeds and report paths refused before grading; long titles wrapped; Ctrl-C; a broken archive; a machine
# without a driver said to be one.
set -u
grader=$1 src=$2 work=$3 python=$4
# shellcheck source=grader/tests/lib.sh
. "$(dirname "$0")/lib.sh"
fresh_work "$work"
answers="$src/labs/00_warmup/answers.toml"
grade_answers() {  # grade_answers NAME SED_SCRIPT: lab 00's answers.toml edited by the script, graded
  mkdir -p "$work/$1/labs/00_warmup"
  sed "$2" "$answers" > "$work/$1/labs/00_warmup/answers.toml"
  "$grader" 00 --submission "$work/$1" --only answers --no-color --no-ceilings > "$work/$1.txt" 2>&1
}
grade_answers fraction 's|^intensity_flop_per_byte = ""|intensity_flop_per_byte = 1/12|'
expect_in "a fraction: the file, the line, and write a decimal" "00_warmup/answers.toml:[0-9]+:.*no fractions: write the decimal" "$work/fraction.txt"
expect_in "... said once for all the questions it stops" "7 checks \(.*\): not graded: the answers file does not parse" "$work/fraction.txt"
grade_answers quote 's|^grid_blocks_n1000_block256 = ""|grid_blocks_n1000_block256 = "4|'
expect_in "a missing closing quote is named" "missing its closing quote" "$work/quote.txt"
grade_answers header 's|^\[vector_add\]$||; s|^grid_blocks_n1000_block256 = ""|grid_blocks_n1000_block256 = 4|'
expect_in "a deleted [section] line is named, in one warning" "the \[vector_add\] line above them is missing" "$work/header.txt"
grade_answers twice 's|^grid_blocks_n1000_block256 = ""|grid_blocks_n1000_block256 = 4\ngrid_blocks_n1000_block256 = 5|'
expect_in "a key written twice: said so, with the other line" "written twice \(also on line [0-9]+\): keep one of the two lines" "$work/twice.txt"
expect_not_in "... not the hint about quotes" "a number goes without quotes" "$work/twice.txt"
grade_answers bob 's|^\(# case vector: .*\)$|\1  (student bob)|'
expect_in "case lines written for another student: a warning" "case lines of answers.toml were written for student bob .*this run grades the stated cases" "$work/bob.txt"
grade_answers option 's|^limited_by_on_this_gpu = ""|limited_by_on_this_gpu = "bandwidth"|'
expect_in "a word that is not an option is an error, even without a GPU" "limited_by_on_this_gpu +ERROR" "$work/option.txt"
expect_in "... and the options are named" "\"bandwidth\" is not an option; write one of: memory, compute" "$work/option.txt"
grade_answers untouched 's|^$||'
expect_in "unanswered questions are counted once" "7 questions not answered yet" "$work/untouched.txt"
expect_not_in "... not listed again below the table" "• .*: not answered" "$work/untouched.txt"
expect_in "the target column is whole" "one of: memory, compute$" "$work/untouched.txt"
"$grader" 00 --only correct.n1000 --no-build --no-color --no-ceilings > "$work/only.txt" 2>&1
expect_in "one check rerun by its id" "^  correct.n1000  c = a \+ b, n = 1000" "$work/only.txt"
expect_not_in "... and no other" "correct.n1 |perf.copy_fraction|vector_add" "$work/only.txt"
"$grader" 00 --only nothing.matches --no-build --no-color --no-ceilings > "$work/nomatch.txt" 2>&1; rc=$?
expect_in "a pattern that matches nothing is refused" "--only 'nothing.matches' names no check" "$work/nomatch.txt"
expect_in "... with the ids it could name" "^  lab 00: .*vector_add|^ +.*correct.n1000" "$work/nomatch.txt"
expect_not_in "... before grading: no table" "^Lab 00|Overall" "$work/nomatch.txt"
if [ $rc -ne 2 ]; then echo "FAIL --only nothing.matches exits $rc, not 2"; problems=$((problems + 1)); fi
"$grader" 00 --only answers --no-build --no-color --no-ceilings --json - > "$work/stdout.json" 2> "$work/stderr.txt"
if "$python" -c "import json,sys; j=json.load(open(sys.argv[1])); assert j['totals']['all_passed'] is False" "$work/stdout.json"; then
  echo "ok   --json - writes the JSON alone on stdout"
else
  echo "FAIL --json - did not write the JSON on stdout"; problems=$((problems + 1))
fi
expect_in "... and the table on stderr" "Lab 00" "$work/stderr.txt"
# Code that does not compile: its first error, said once (the compiler's whole output with --verbose).
mkdir -p "$work/broken/labs/00_warmup"
sed '0,/{/s/{/{ this is not C++;/' "$src/labs/00_warmup/vector_add.cu" > "$work/broken/labs/00_warmup/vector_add.cu"
"$grader" 00 --submission "$work/broken" --only code --no-color --no-ceilings > "$work/broken.txt" 2>&1
expect_in "a compile error: where and what" "did not compile" "$work/broken.txt"
expect_in "... the compiler's line" "vector_add.cu\(?[0-9]+\)?: error" "$work/broken.txt"
if [ "$(grep -c "error: expected" "$work/broken.txt")" -eq 1 ]; then echo "ok   ... once"; else
  echo "FAIL the compile error is repeated:"; sed 's/^/    | /' "$work/broken.txt"; problems=$((problems + 1)); fi
# Code that compiles is said to; --list names the answers file; calc says which part a family name means.
mkdir -p "$work/fine/labs/00_warmup"
cp "$src/labs/00_warmup/vector_add.cu" "$work/fine/labs/00_warmup/vector_add.cu"
"$grader" 00 --submission "$work/fine" --only correct.n1 --no-color --no-ceilings > "$work/fine.txt" 2>&1
expect_in "code that compiles is said to" "vector_add.cu compiled and linked" "$work/fine.txt"
"$grader" --list > "$work/list.txt" 2>&1
expect_in "--list names each lab's answers file" "answer: labs/00_warmup/answers.toml" "$work/list.txt"
"$grader" calc tile-traffic --device A100 > "$work/a100.txt" 2>&1
expect_in "calc says which part --device A100 is" "--device A100 is the NVIDIA A100" "$work/a100.txt"
# --watch: a second round starts when the answers file is saved, and grades the new answer.
mkdir -p "$work/watch/labs/00_warmup"
cp "$answers" "$work/watch/labs/00_warmup/answers.toml"
"$grader" 00 --submission "$work/watch" --only answers --no-color --no-ceilings --watch --watch-rounds 2 \
  > "$work/watch.txt" 2>&1 &
watcher=$!
i=0
until grep -q "watching" "$work/watch.txt" 2>/dev/null || [ $i -gt 300 ]; do i=$((i + 1)); sleep 0.1; done
sed -i 's|^grid_blocks_n1000_block256 = ""|grid_blocks_n1000_block256 = 4|' "$work/watch/labs/00_warmup/answers.toml"
i=0
while kill -0 $watcher 2>/dev/null && [ $i -le 600 ]; do i=$((i + 1)); sleep 0.1; done
kill $watcher 2>/dev/null
expect_in "--watch waits for a save" "watching 2 file\(s\) of lab 00: save one to regrade" "$work/watch.txt"
expect_in "... and grades the saved answer" "vector_add.grid_blocks_n1000_block256 +PASS" "$work/watch.txt"
# Before any work the run ends by saying so, and where to start.
expect_in "an untouched course ends with where to start" "Nothing done yet, so 0 points is what to expect. Start with lab 00" "$work/stderr.txt"
# A seed that is not one, and a report file that cannot be written, are refused before anything is graded (exit 2).
for s in -1 99999999999999999999 "" 0 12a; do
  "$grader" 00 --seed "$s" --only answers --no-build --no-color --no-ceilings > "$work/seed.txt" 2>&1; rc=$?
  expect_in "--seed '$s' is refused" "'$s' is (not a seed|too large)" "$work/seed.txt"
  if [ $rc -ne 2 ]; then echo "FAIL --seed '$s' exits $rc, not 2"; problems=$((problems + 1)); fi
done
for bad in "--json $work/no/such/folder/r.json" "--junit $work" "--csv $work/watch/labs"; do
  # shellcheck disable=SC2086
  "$grader" 00 $bad --only answers --no-build --no-color --no-ceilings > "$work/path.txt" 2>&1; rc=$?
  expect_in "'$bad' is refused, saying why" "grader: --(json|junit|csv): (no such folder|.* is a folder)" "$work/path.txt"
  expect_not_in "... before grading" "Lab 00" "$work/path.txt"
  if [ $rc -ne 2 ]; then echo "FAIL '$bad' exits $rc, not 2"; problems=$((problems + 1)); fi
done
# A title too long for its column wraps under it: nothing cut, the status after a space.
"$grader" 09 --only policy.synthetic --no-build --no-color --no-ceilings > "$work/wrap.txt" 2>&1
expect_in "a long title's first words, then a space before the status" "^  policy\.synthetic  \(d\) the strategy[^~]* (FAIL|PASS) " "$work/wrap.txt"
expect_in "... the rest on the line under it" "^      .*every crossover$" "$work/wrap.txt"
expect_not_in "... and nothing cut" "~ +(FAIL|PASS|SKIPPED)" "$work/wrap.txt"
# Ctrl-C while labs are graded: said, exit 130, and the run's temporary files (the ceilings' JSON) removed.
ls -d /tmp/grader-* 2>/dev/null | sort > "$work/tmp_before.txt"
"$grader" --no-build --no-color > "$work/interrupted.txt" 2>&1 &
graded=$!
i=0
until grep -q "Grading lab 01" "$work/interrupted.txt" 2>/dev/null || [ $i -gt 1200 ]; do i=$((i + 1)); sleep 0.1; done
kill -INT $graded
wait $graded
rc=$?
expect_in "Ctrl-C is said" "grader: interrupted: the running lab was stopped" "$work/interrupted.txt"
if [ $rc -ne 130 ]; then echo "FAIL Ctrl-C exits $rc, not 130"; problems=$((problems + 1)); fi
ls -d /tmp/grader-* 2>/dev/null | sort > "$work/tmp_after.txt"
if [ -n "$(comm -13 "$work/tmp_before.txt" "$work/tmp_after.txt")" ]; then
  echo "FAIL Ctrl-C left temporary files:"; comm -13 "$work/tmp_before.txt" "$work/tmp_after.txt"; problems=$((problems + 1))
else echo "ok   ... and leaves no temporary file"; fi
# A broken archive: the file, and the cause (not only the tool's last line).
printf 'not an archive\n' > "$work/broken.tar.gz"
"$grader" 00 --submission "$work/broken.tar.gz" --no-color --no-ceilings > "$work/archive.txt" 2>&1
expect_in "a broken archive is named with its cause" "cannot read the submission .*broken\.tar\.gz: tar failed: .*not in gzip format" "$work/archive.txt"
# A machine with no NVIDIA driver at all: said so, not "driver version is insufficient", and nothing is "measured".
if [ ! -e /proc/driver/nvidia/version ]; then
  "$grader" 00 --only correct.n1 --no-build --no-color > "$work/nodriver.txt" 2>&1
  expect_in "no driver: said plainly" "GPU checks skipped: no CUDA device: no NVIDIA GPU or driver was found" "$work/nodriver.txt"
  expect_not_in "... with no ceilings measured" "Measuring this GPU" "$work/nodriver.txt"
fi
[ $problems -eq 0 ]
