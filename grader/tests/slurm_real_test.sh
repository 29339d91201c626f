#!/usr/bin/env bash
# slurm_real_test.sh GRADER SOURCE_DIR WORK BATCH_WORK PYTHON
# The Slurm scripts (grader/scripts/slurm) on a real single-node Slurm: munged, slurmctld and slurmd are
# started here on localhost, as root, with a private key, socket, config, state and free ports in a temp
# folder (nothing of a real cluster's is read or touched), and stopped after, jobs and all, however the
# test ends. submit-class.sh grades the class of grader_batch_grades_a_class (BATCH_WORK/class) as a job
# array of 3 tasks, then the merge job (afterok), with the single batch's seed and flags, no GPU asked
# (SBATCH_GRES=none) and one CPU a task (GRADE_SBATCH_ARGS): every task and the merge must end COMPLETED,
# the merge after the array, and the merged gradebook.csv must be byte for byte the single batch's
# (BATCH_WORK/a). SKIPPED, saying why, without Slurm or munge (apt-get install slurmctld slurmd
# slurm-client munge; a failure instead with LABS_REQUIRE_SLURM set, as .ci/run sets it), when not root,
# or when the daemons do not start within 60 s. On a failure it prints the jobs' logs and Slurm's;
# Slurm's logs are kept in WORK/logs. GRADER_SLURM_WAIT_S: how long to wait for the jobs (600 s).
set -u
grader=$1 src=$2 work=$3 batch=$4 python=$5
skip() { echo "SKIPPED: $*"; exit 77; }
PATH=$PATH:/usr/sbin:/sbin  # where Debian puts the daemons
missing=""
for tool in munged munge unmunge slurmctld slurmd sbatch squeue sinfo scontrol scancel; do
  command -v "$tool" > /dev/null 2>&1 || missing="$missing $tool"
done
if [ -n "$missing" ]; then
  # .ci/run installs them and sets LABS_REQUIRE_SLURM: there, their absence is a failure, not a skip.
  [ -z "${LABS_REQUIRE_SLURM:-}" ] || { echo "FAIL no$missing, and LABS_REQUIRE_SLURM is set (.ci/run installs Slurm)"; exit 1; }
  skip "no Slurm here (missing:$missing; apt-get install slurmctld slurmd slurm-client munge)"
fi
[ "$(id -u)" -eq 0 ] || skip "a private Slurm must run as root (slurmd starts the jobs)"
test -f "$batch/a/gradebook.csv" || { echo "FAIL no gradebook of the single batch in $batch/a: run grader_batch_grades_a_class first"; exit 1; }

# Nothing of the caller's Slurm: no job's or user's SLURM_*/SBATCH_* settings, no SLURM_CONF.
for v in $(env | sed -n 's/^\(SLURM_[A-Za-z0-9_]*\|SBATCH_[A-Za-z0-9_]*\|SALLOC_[A-Za-z0-9_]*\|SRUN_[A-Za-z0-9_]*\)=.*/\1/p'); do
  unset "$v"
done
unset GRADE_SBATCH_ARGS
export CUDA_VISIBLE_DEVICES=  # as the single batch: the GPU hidden, every row the same on any machine
rm -rf "$work"
mkdir -p "$work/logs"
out=$work/out
tmp=$(mktemp -d /tmp/grader-slurm.XXXXXX) || { echo "FAIL cannot make a temp folder"; exit 1; }
chmod 755 "$tmp"  # munged wants every folder above its socket searchable by all
conf=$tmp/slurm.conf
munged_pid="" ctld_pid="" slurmd_pid=""

stop() {  # stop PID: SIGTERM, then SIGKILL after 10 s; reaps it when it is our child
  [ -n "$1" ] && kill -0 "$1" 2> /dev/null || return 0
  kill -TERM "$1" 2> /dev/null
  for _ in $(seq 50); do kill -0 "$1" 2> /dev/null || break; sleep 0.2; done
  kill -KILL "$1" 2> /dev/null
  wait "$1" 2> /dev/null
}
ours() {  # the processes started under this test's Slurm (job steps, their children), by their SLURM_CONF
  (
    unset SLURM_CONF  # so that these commands are not among them
    for p in /proc/[0-9]*; do
      [ "${p#/proc/}" != "$$" ] && tr '\0' '\n' 2> /dev/null < "$p/environ" | grep -qxF "SLURM_CONF=$conf" && echo "${p#/proc/}"
    done
  )
}
cleanup() {
  rc=$?
  trap - EXIT INT TERM
  if [ -n "$ctld_pid" ] && kill -0 "$ctld_pid" 2> /dev/null; then
    scancel --user=root > /dev/null 2>&1  # every job of this private cluster: ours
    for _ in $(seq 60); do [ -z "$(squeue -h -o %i 2> /dev/null)" ] && break; sleep 0.5; done
  fi
  stop "$slurmd_pid"
  stop "$ctld_pid"
  left=$(ours)
  if [ -n "$left" ]; then
    echo "cleanup: stopping what the jobs left:" $left
    for p in $left; do kill -TERM "$p" 2> /dev/null; done
    sleep 2
    for p in $(ours); do kill -KILL "$p" 2> /dev/null; done
  fi
  stop "$munged_pid"
  cp "$tmp"/*.log "$work/logs/" 2> /dev/null
  rm -rf "$tmp"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
log_tail() {  # the last lines of munged's, slurmctld's and slurmd's logs (stderr's, before a log is open)
  for d in munged slurmctld slurmd; do
    f=$tmp/$d.log
    [ -s "$f" ] || f=$tmp/$d-stderr.log
    [ -s "$f" ] && { echo "--- ${f##*/} (last 15 lines)"; tail -n 15 "$f"; }
  done
}
not_started() { echo "SKIPPED: $* (a private Slurm could not start here)"; log_tail; exit 77; }

# munge: a key of our own and a socket in the temp folder.
mkdir -p "$tmp/munge"
dd if=/dev/urandom of="$tmp/munge/munge.key" bs=1024 count=1 2> /dev/null
chmod 400 "$tmp/munge/munge.key"
sock=$tmp/munge/munge.socket
munged --foreground --socket="$sock" --key-file="$tmp/munge/munge.key" --pid-file="$tmp/munge/munged.pid" \
  --seed-file="$tmp/munge/munged.seed" --log-file="$tmp/munged.log" > "$tmp/munged-stderr.log" 2>&1 &
munged_pid=$!
deadline=$((SECONDS + 60))
until munge -S "$sock" -n 2> /dev/null | unmunge -S "$sock" > /dev/null 2>&1; do
  kill -0 "$munged_pid" 2> /dev/null || not_started "munged exited: $(tail -n 1 "$tmp/munged-stderr.log")"
  [ $SECONDS -lt $deadline ] || not_started "munged did not answer within 60 s"
  sleep 0.5
done

# Slurm: one node (this host), its CPUs, no GPU, no cgroup, no accounting; two ports nothing listens on.
node=$(hostname -s 2> /dev/null || uname -n | cut -d. -f1)  # as slurmd and slurmctld name this host
ports=$("$python" -c 'import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("", 0))
print(*[x.getsockname()[1] for x in s])') || not_started "no free port"
read -r ctld_port slurmd_port <<< "$ports"
mkdir -p "$tmp/state" "$tmp/spool"
cat > "$conf" <<EOF
ClusterName=gradertest
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$sock
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
MailProg=/bin/true
ReturnToService=2
KillWait=5
DependencyParameters=kill_invalid_depend
NodeName=$node NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=grading Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$conf
slurmctld -D > "$tmp/slurmctld-stderr.log" 2>&1 &
ctld_pid=$!
slurmd -D -N "$node" > "$tmp/slurmd-stderr.log" 2>&1 &
slurmd_pid=$!
deadline=$((SECONDS + 60))
until [ "$(sinfo -h -n "$node" -o %t 2> /dev/null)" = idle ]; do
  kill -0 "$ctld_pid" 2> /dev/null || not_started "slurmctld exited"
  kill -0 "$slurmd_pid" 2> /dev/null || not_started "slurmd exited"
  [ $SECONDS -lt $deadline ] || not_started "node $node not idle within 60 s (sinfo: $(sinfo -h -o '%t %E' 2>&1 | head -n 1))"
  sleep 0.5
done
echo "slurm: node $node ($(nproc) CPUs) idle, slurmctld on port $ctld_port, slurmd on $slurmd_port"

# The class, graded by the scripts as an instructor would, with the single batch's seed and flags.
# shellcheck source=grader/tests/lib.sh
. "$(dirname "$0")/lib.sh"
if [ "$grader" -ef "$src/build/grader/grader" ]; then
  export COURSE=$src
else  # a build tree elsewhere: a course folder whose build/ is it
  mkdir -p "$work/course"
  ln -s "$(cd "$(dirname "$grader")/.." && pwd)" "$work/course/build"
  export COURSE=$work/course
fi
start=$SECONDS
SBATCH_GRES=none GRADE_SBATCH_ARGS=--cpus-per-task=1 "$src/grader/scripts/slurm/submit-class.sh" -n 3 --seed 20261130 \
  "$batch/class" "$out" --labs 00 --no-ceilings > "$work/submit.txt" 2>&1
submit_rc=$?
cat "$work/submit.txt"
array=$(sed -n 's/.*(job array \([0-9]*\),.*/\1/p' "$work/submit.txt")
merge=$(sed -n 's/.*; merge job \([0-9]*\)$/\1/p' "$work/submit.txt")
expect "submit-class.sh submits the array and the merge" test "$submit_rc" -eq 0 -a -n "$array" -a -n "$merge"
[ -n "$array" ] && [ -n "$merge" ] || exit 1
wait_s=${GRADER_SLURM_WAIT_S:-600}
deadline=$((SECONDS + wait_s))
while [ -n "$(squeue -h -j "$array,$merge" -o %i 2> /dev/null)" ] && [ $SECONDS -lt $deadline ]; do sleep 2; done
expect "the array and the merge end within $wait_s s (took $((SECONDS - start)) s)" test -z "$(squeue -h -j "$array,$merge" -o %i 2> /dev/null)"
scontrol -o show job "$array" > "$work/array.jobs" 2>&1
scontrol -o show job "$merge" > "$work/merge.job" 2>&1
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" "$2"; }  # field NAME FILE: NAME's value on each line
expect "the array ran 3 tasks, each COMPLETED: $(field JobState "$work/array.jobs" | sort | uniq -c | xargs)" \
  test "$(field JobState "$work/array.jobs" | grep -c '^COMPLETED$')" -eq 3
expect "the merge job COMPLETED: $(field JobState "$work/merge.job")" test "$(field JobState "$work/merge.job")" = COMPLETED
last_end=$(field EndTime "$work/array.jobs" | sort | tail -n 1)
merge_start=$(field StartTime "$work/merge.job")
is_time() { [[ "$1" =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}$ ]]; }  # as 2026-11-30T12:00:00 (or Unknown)
not_before() { is_time "$1" && is_time "$2" && ! [[ "$1" < "$2" ]]; }
expect "the merge started ($merge_start) once the array had ended ($last_end)" not_before "$merge_start" "$last_end"
for i in 0 1 2; do
  expect "task $i graded shard $i/3 into OUT/shard-$i-of-3" test -f "$out/shard-$i-of-3/gradebook.json"
done
expect "the merged gradebook.csv is byte for byte that of the single batch" cmp "$out/gradebook.csv" "$batch/a/gradebook.csv"
if [ "$problems" -gt 0 ]; then
  for f in "$out"/*.out; do
    [ -f "$f" ] && { echo "--- job log ${f##*/}"; cat "$f"; }
  done
  echo "--- scontrol show job"
  cat "$work/array.jobs" "$work/merge.job"
  log_tail
fi
exit $((problems > 0))
