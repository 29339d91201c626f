#!/usr/bin/env sh
# busy_gpu_test.sh GRADER HAMMER WORK PYTHON
# Lab 00's solution graded while a second process (gpu_hammer) copies memory back to back on the
# same GPU: the performance check must come out INVALID (0 points, the other process named) instead of
# graded, on the first attempt and on the retry that --retry-invalid 1 asks for; the correctness checks
# still pass. Exits 77 (SKIPPED) without a GPU.
set -u
grader=$1 hammer=$2 work=$3 python=$4
rm -rf "$work"
mkdir -p "$work"
"$hammer" 900 "$work/ready" > "$work/hammer.txt" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null' EXIT INT TERM
i=0
while [ ! -f "$work/ready" ]; do
  if ! kill -0 $pid 2>/dev/null; then
    wait $pid
    rc=$?
    if [ $rc -eq 77 ]; then echo "SKIPPED: no GPU"; exit 77; fi
    echo "gpu_hammer failed (exit $rc)"; cat "$work/hammer.txt"; exit 1
  fi
  i=$((i + 1))
  if [ $i -gt 600 ]; then echo "gpu_hammer never got ready"; exit 1; fi
  sleep 0.1
done
"$grader" 00 --solution --only code --no-build --no-color --retry-invalid 1 --json "$work/report.json" > "$work/out.txt" 2>&1
cat "$work/out.txt"
kill $pid 2>/dev/null
"$python" - "$work/report.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
checks = {c["id"]: c for c in report["labs"][0]["checks"]}
perf = checks.get("perf.copy_fraction", {})
attempts = perf.get("attempts", [])
verdicts = [
    (perf.get("status") == "invalid", "perf.copy_fraction is INVALID (got %s)" % perf.get("status")),
    (perf.get("points") == 0, "it scores 0"),
    ("another process uses this GPU" in perf.get("message", ""), "the message names the other process"),
    (len(attempts) == 1 and attempts[0]["status"] == "invalid", "the first attempt is kept, INVALID too"),
] + [(c["status"] == "pass", cid + " still passes") for cid, c in checks.items() if cid.startswith("correct.")]
for ok, what in verdicts:
    print(("ok   " if ok else "FAIL ") + what)
d = perf.get("details", {})
print("measured under load: ratio %s, copy %s GB/s (alone before the checks: %s ms, inside: %s ms, drift %s), "
      "start of run %s GB/s" % (d.get("ratio"), d.get("copy_gbps"), d.get("baseline_alone_ms"),
                                 d.get("copy", {}).get("median_ms"), d.get("baseline_drift"),
                                 d.get("copy_gbps_at_start_of_run")))
sys.exit(0 if all(ok for ok, _ in verdicts) else 1)
PY
