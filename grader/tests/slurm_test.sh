#!/usr/bin/env sh
# slurm_test.sh SOURCE_DIR WORK
# The Slurm scripts (grader/scripts/slurm), with a fake sbatch that records what it is asked and a fake
# grader that records its arguments (no Slurm daemon here): submit-class.sh submits grade-class.sbatch as
# a job array of N tasks, one GPU each, then the merge with --dependency=afterok on the array's id; the
# array's task I runs `grader batch --shard I/N --first-slot I` with the class's seed and flags; the merge
# job runs `grader gradebook merge` on the N shard folders; GRADE_SBATCH_ARGS reach the array's sbatch.
set -u
src=$1 work=$2
rm -rf "$work"
mkdir -p "$work/bin" "$work/course/build/grader" "$work/class" "$work/out"
cat > "$work/bin/sbatch" <<'FAKE'
#!/usr/bin/env sh
# Records its arguments and the environment the job would get; answers a job id as --parsable does.
n=$(ls "$FAKE_LOG" 2>/dev/null | wc -l)
mkdir -p "$FAKE_LOG/$n"
for a in "$@"; do printf '%s\n' "$a"; done > "$FAKE_LOG/$n/args"
vars='^(export )?(COURSE|CLASS|OUT|SEED|SHARDS|GRADER_ARGS)='
env | grep -E "$vars" > "$FAKE_LOG/$n/env"
export -p | grep -E "$vars" > "$FAKE_LOG/$n/export"
echo "$((4100 + n))"
FAKE
cat > "$work/course/build/grader/grader" <<'FAKE'
#!/usr/bin/env sh
for a in "$@"; do printf '%s\n' "$a"; done > "$FAKE_GRADER_LOG"
FAKE
chmod +x "$work/bin/sbatch" "$work/course/build/grader/grader"
export PATH="$work/bin:$PATH" FAKE_LOG="$work/sbatch" COURSE="$work/course"
slurm=$src/grader/scripts/slurm
# shellcheck source=grader/tests/lib.sh
. "$(dirname "$0")/lib.sh"
has() { grep -qxF -- "$2" "$1"; }

"$slurm/submit-class.sh" -n 3 --seed 42 "$work/class" "$work/out" --labs 00,03 > "$work/submit.txt" 2>&1
expect "submit-class.sh exits 0" test $? -eq 0
cat "$work/submit.txt"
a=$work/sbatch/0 m=$work/sbatch/1
expect "the array: 3 tasks of grade-class.sbatch" sh -c "grep -qxF -- --array=0-2 '$a/args' && tail -n1 '$a/args' | grep -q 'grade-class.sbatch\$'"
expect "the merge waits for the array (afterok on its id)" has "$m/args" "--dependency=afterok:4100"
expect "the array's tasks get the seed, the class, the shard count and the flags" sh -c \
  "grep -qxF SEED=42 '$a/env' && grep -qxF SHARDS=3 '$a/env' && grep -qxF 'CLASS=$work/class' '$a/env' && grep -qxF 'GRADER_ARGS=--labs 00,03' '$a/env'"
expect "grade-class.sbatch asks for one GPU per task" grep -q '^#SBATCH --gres=gpu:1$' "$slurm/grade-class.sbatch"
expect "a bad shard count is refused" sh -c "! '$slurm/submit-class.sh' -n 0 '$work/class' '$work/out' 2>/dev/null"
GRADE_SBATCH_ARGS="--cpus-per-task=1 --gres=none" "$slurm/submit-class.sh" -n 2 "$work/class" "$work/out" >/dev/null 2>&1
expect "GRADE_SBATCH_ARGS go on the array's sbatch command line (before the script), not the merge's" sh -c \
  "tail -n3 '$work/sbatch/2/args' | head -n2 | tr '\n' ' ' | grep -qxF -- '--cpus-per-task=1 --gres=none ' && ! grep -q -- --gres '$work/sbatch/3/args'"

# Task 1 of the array, as Slurm would start it: the environment the array got, and its task id.
(
  . "$a/export"
  SLURM_ARRAY_TASK_ID=1 FAKE_GRADER_LOG="$work/task1.args" bash "$slurm/grade-class.sbatch"
)
printf '%s\n' batch "$work/class" --shard 1/3 --first-slot 1 --workers 1 --seed 42 --out "$work/out" --resume --labs 00,03 \
  > "$work/task1.expected"
expect "array task 1 grades shard 1/3 in slot 1 with the class's seed and flags" cmp -s "$work/task1.args" "$work/task1.expected"

# The merge job's command.
wrap=$(sed -n 's/^--wrap=//p' "$m/args")
FAKE_GRADER_LOG="$work/merge.args" sh -c "$wrap"
printf '%s\n' gradebook merge --out "$work/out" "$work/out/shard-0-of-3" "$work/out/shard-1-of-3" "$work/out/shard-2-of-3" \
  > "$work/merge.expected"
expect "the merge job merges the three shards into OUT" cmp -s "$work/merge.args" "$work/merge.expected"
exit $((problems > 0))
