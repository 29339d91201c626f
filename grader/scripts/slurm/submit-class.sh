#!/usr/bin/env bash
# submit-class.sh [-n SHARDS] [--seed SEED] CLASS OUT [grader batch flags...]
# Grades a class on a Slurm cluster: submits grade-class.sbatch as a job array of SHARDS tasks (default
# 4), one GPU each, then a job that merges the shards' gradebooks into OUT/gradebook.csv and
# OUT/gradebook.json once every task has ended well (--dependency=afterok). Run it on a login node, in
# the built course tree (or set COURSE to it); CLASS and OUT must be on a filesystem every node sees.
# The seed (drawn here when --seed is not given) is printed: the same for every shard.
# More sbatch options (partition, account) go in SBATCH_* variables, e.g. SBATCH_PARTITION=gpu, and
# SBATCH_GRES=none on nodes without GPUs; those sbatch has no variable for go in GRADE_SBATCH_ARGS (the
# array's sbatch command line only, where they win over the #SBATCH lines), e.g. "--cpus-per-task=2".
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
COURSE=${COURSE:-$(cd "$here/../../.." && pwd)}
SHARDS=4
SEED=""
while [ $# -gt 0 ]; do
  case "$1" in
    -n) SHARDS=$2; shift 2 ;;
    --seed) SEED=$2; shift 2 ;;
    -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
    *) break ;;
  esac
done
[ $# -ge 2 ] || { sed -n '2,11p' "$0" >&2; exit 2; }
case "$SHARDS" in ''|*[!0-9]*|0) echo "submit-class: -n takes a whole number of shards, at least 1" >&2; exit 2 ;; esac
[ -x "$COURSE/build/grader/grader" ] || { echo "submit-class: no grader in $COURSE/build: build the course first" >&2; exit 2; }
CLASS=$(cd "$1" && pwd)
mkdir -p "$2"
OUT=$(cd "$2" && pwd)
shift 2
GRADER_ARGS="$*"
SEED=${SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
export COURSE CLASS OUT SEED SHARDS GRADER_ARGS

# GRADE_SBATCH_ARGS is split into words on purpose: it holds options.
# shellcheck disable=SC2086
array=$(sbatch --parsable --array="0-$((SHARDS - 1))" --chdir="$OUT" ${GRADE_SBATCH_ARGS:-} "$here/grade-class.sbatch")
array=${array%%;*}  # "jobid;cluster" on a federated cluster
shards=""
for i in $(seq 0 $((SHARDS - 1))); do shards="$shards '$OUT/shard-$i-of-$SHARDS'"; done
merge=$(sbatch --parsable --dependency="afterok:$array" --job-name=merge-gradebook --ntasks=1 --time=00:30:00 \
  --chdir="$OUT" --output=merge-gradebook-%j.out \
  --wrap="'$COURSE/build/grader/grader' gradebook merge --out '$OUT'$shards")
echo "submit-class: grading $CLASS in $SHARDS shards (job array $array, seed $SEED); merge job ${merge%%;*}"
echo "submit-class: the gradebook will be $OUT/gradebook.csv; follow with: squeue -j $array,${merge%%;*}"
