#!/usr/bin/env sh
# batch_test.sh GRADER SOURCE_DIR WORK PYTHON
# A class of eight lab 00 submissions, made here from the course tree — the solution as a
# student's files, the untouched template, a compile error, an answers.toml that does not parse, an edited
# checks.cu, a call the lab's code policy forbids (its given baseline), the solution as an archive, and a
# broken archive — graded by `grader batch --workers 2` with the GPU hidden (its checks SKIPPED, so the
# rows are the same on any machine):
#  1. the gradebook's rows and flags are exactly as expected, and the solution's row is what
#     `grader --submission` gives the same files;
#  2. `--resume` grades nothing again (its count, and the reports' modification times), without --seed too
#     (it takes the earlier run's), and does not calibrate again;
#  3. a batch stopped midway (SIGTERM), resumed and killed (SIGKILL), and resumed again, ends with every
#     row, its gradebook the same as that of the batch that was never stopped;
#  4. a submission not graded within --timeout is stopped and flagged HUNG, and the batch goes on;
#  5. `--calibrate` (batch 1): the solutions, graded first (once: there is no GPU), are the
#     gradebook's calibration (lab 00's performance checks, SKIPPED) and calibration.csv's rows; a batch
#     without it has none.
set -u
grader=$1 src=$2 work=$3 python=$4
# shellcheck source=grader/tests/lib.sh
. "$(dirname "$0")/lib.sh"
class_test "$work"
cat > "$work/check.py" <<'PY'
import csv, glob, json, os, sys
work, mode = sys.argv[1], sys.argv[2]
if mode == "stat":  # the reports' and records' modification times
    for p in sorted(glob.glob(f"{work}/a/students/*/*.json")):
        print(p, os.stat(p).st_mtime_ns)
    sys.exit(0)
if mode == "stat-calibration":  # the calibration's report and record
    for p in sorted(glob.glob(f"{work}/a/calibration/*/*.json")):
        print(p, os.stat(p).st_mtime_ns)
    sys.exit(0)
import testlib
from testlib import expect, text, rc
testlib.work = work

# What `grader --submission` gives the solution's files: the row alice, grace and erin must have.
direct = json.load(open(f"{work}/direct.json"))
checks = direct["labs"][0]["checks"]
A = direct["totals"]["points"]
P = direct["totals"]["pending_points"]
M = direct["totals"]["max_points"]
code = sum(c["max_points"] for c in checks if c["kind"] != "answer")
S = sum(c["max_points"] for c in checks if c["kind"] == "answer" and c["status"] == "skipped")
expect(A > 0 and code > 0 and P == S + code, f"the solution scores {A} of {M} without a GPU, {P} pending ({code} of code)")

expected = {  # student: (points, pending, flags)
    "alice": (A, P, ""),
    "bob": (0, code, ""),  # the template leaves every answer unanswered: none is SKIPPED
    "carol": (A, S, "COMPILE_ERROR"),
    "dave": (0, code, "ANSWERS_SYNTAX"),
    "erin": (A, P, "TAMPERED"),
    "frank": (A, S, "POLICY"),
    "grace": (A, P, ""),
    "heidi": (0, 0, "ERROR"),
}
expect(rc("a") == 0, "grader batch exits 0 once the gradebook is written")
with open(f"{work}/a/gradebook.csv", newline="") as f:
    reader = csv.reader(f)
    header = next(reader)
    rows = list(reader)
expect(header == ["student", "lab00_points", "total_points", "max_points", "pending_points", "flags", "similar", "seed",
                  "grader_version", "gpu_fingerprint"], "the CSV's columns: " + ",".join(header))
# Copying noticed: where the comparison ran (the tool installed; CI requires it), the five students who handed in the
# reference's vector_add.cu are flagged SIMILAR, against the reference and each other; bob (the template) and frank
# (the template and one line) are not.
g = json.load(open(f"{work}/a/gradebook.json"))
copied = {"alice", "carol", "dave", "erin", "grace"}
if g["similarity"]["ran"]:
    for who in copied:
        f = expected[who][2]
        expected[who] = (expected[who][0], expected[who][1], (f + " SIMILAR").strip())
    partners = {s["student"]: {p["partner"] for p in s["similar"]} for s in g["students"]}
    expect(all(partners[w] == {"reference"} | (copied - {w}) for w in copied),
           "each copy of the reference is flagged against the reference and the other four: " + str(partners))
    page = next(p["report"] for s in g["students"] for p in s["similar"] if s["student"] == "alice" and p["partner"] == "reference")
    expect(os.path.isfile(f"{work}/a/{page}") and os.path.isfile(f"{work}/a/{g['similarity']['report']}"),
           "the side-by-side page and similarity.json are where the gradebook says")
    alice_row = [r for r in rows if r[0] == "alice"][0]
    expect(" reference " in " " + alice_row[6] + " " and "%/" in alice_row[6], "the CSV's similar column names the partner and the shares: " + alice_row[6])
elif os.environ.get("LABS_REQUIRE_SIMILARITY") == "1":
    expect(False, "the comparison ran (LABS_REQUIRE_SIMILARITY=1): " + g["similarity"]["why_not"])
else:
    print("(copying not compared here: " + g["similarity"]["why_not"] + ")")
    expect(all(not s["similar"] for s in g["students"]) and "similarity was not compared" in text("a.txt"),
           "without the tool, nothing is flagged SIMILAR and the batch says once why")
got = {r[0]: r for r in rows}
expect(sorted(got) == sorted(expected), "one row per student, named after the folder or archive: " + " ".join(sorted(got)))
def num(s):
    return float(s) if s else -1.0
for who, (points, pending, flags) in expected.items():
    r = got.get(who)
    ok = r is not None and num(r[1]) == points and num(r[2]) == points and num(r[3]) == M and num(r[4]) == pending \
        and r[5] == flags and r[7] == "20261130" and r[9] == "none"
    expect(ok, f"{who}: {points} points, {pending} pending, flags '{flags}' (got {r})")
g = json.load(open(f"{work}/a/gradebook.json"))
expect(g["seed"] == 20261130 and g["grader_version"] and all(r[8] == g["grader_version"] for r in rows),
       "one seed and one grader version for the class")
by = {s["student"]: s for s in g["students"]}
expect(by["heidi"]["outcome"] == "error" and "cannot read the submission" in by["heidi"]["error"]
       and "not a zip file" in by["heidi"]["error"] and "Traceback" not in by["heidi"]["error"],
       "the broken archive's row says why: " + by["heidi"]["error"])
expect(any("checks.cu" in d["why"] for d in by["erin"]["flag_details"]), "the TAMPERED flag names the edited checks.cu")
expect(any("launch_vector_add_baseline" in d["why"] for d in by["frank"]["flag_details"]),
       "the POLICY flag names the forbidden call")
expect(all(os.path.exists(f"{work}/a/{s['report']}") and os.path.exists(f"{work}/a/{s['junit']}")
           for s in g["students"] if s["outcome"] == "graded"), "a JSON and a JUnit report per graded student")
expect(all(os.path.exists(f"{work}/a/{s['report'][:-5]}.html") for s in g["students"] if s["outcome"] == "graded"),
       "a web page per graded student, beside the report (grader/html_report.hpp)")
class_page = text("a/class.html")
expect(all(f'href="{s["report"][:-5]}.html"' in class_page for s in g["students"] if s["outcome"] == "graded")
       and all(s["student"] in class_page for s in g["students"]), "the class page names every student and links each page")
expect({s["worker"] for s in g["students"]} == {0, 1}, "two workers graded")
alice = json.load(open(f"{work}/a/students/alice/report.json"))
expect(alice["totals"] == direct["totals"] and alice["seed"] == direct["seed"],
       "alice's report is what grader --submission gives the same files")
expect("passed over" in text("a.txt") and "notes.txt" in text("a.txt"), "a file that is no submission is passed over, and said so")

expect(rc("a-resume") == 0 and "0 done now, 8 unchanged" in text("a-resume.txt"),
       "--resume (without --seed: the earlier run's) grades nothing again")
expect(not [l for l in text("a-resume.txt").splitlines() if "unchanged since its report" in l and "ETA" in l],
       "... and its lines for unchanged submissions carry no ETA")
expect(text("a.mtimes") == text("a-resume.mtimes") and text("a.mtimes").count("\n") == 8 + 7,
       "--resume leaves every report and record as it was")

b1, b2 = int(text("b1.count")), int(text("b2.count"))
expect(rc("b1") == 130 and 1 <= b1 < 8, f"a batch stopped by SIGTERM exits 130 with {b1} of 8 done")
expect(rc("b2") == 137 and b1 < b2 < 8, f"the resumed batch, killed (SIGKILL), had {b2} of 8 done")
expect(rc("b3") == 0 and f"{8 - b2} done now, {b2} unchanged" in text("b3.txt"),
       f"resumed again, it grades only the {8 - b2} left")
expect(text("a/gradebook.csv") == text("b/gradebook.csv"), "the stopped and resumed batch's gradebook is the same")
expect(not glob.glob(f"{work}/b/students/*/*.partial") and not glob.glob(f"{work}/b/students/*/*.tmp*"),
       "no half-written file is left")

# 5. The calibration: the solutions of lab 00, graded before the class.
perf = [c["id"] for c in checks if c["kind"] == "performance"]
cal = g["calibration"]
expect(len(cal) == 1 and cal[0]["worker"] == 0 and cal[0]["cuda_visible_devices"] == "" and cal[0]["host"]
       and cal[0]["shard"] == {"index": 0, "count": 1}, "without a GPU, one calibration, by worker 0")
e = cal[0] if cal else {}
expect(e.get("outcome") == "graded" and e.get("gpu") is None and e.get("gpu_fingerprint") == "none"
       and "no CUDA device" in e.get("no_gpu_reason", ""), "it graded the solutions, without a GPU: " + e.get("no_gpu_reason", ""))
expect(perf and [c["id"] for c in e.get("checks", [])] == perf
       and all(c["lab"] == "00" and c["status"] == "skipped" and c["ratio"] is None and c["points"] == 0 for c in e.get("checks", [])),
       "its checks are lab 00's performance checks, SKIPPED, no ratio: " + " ".join(perf))
ref = json.load(open(f"{work}/a/{e['report']}")) if e.get("report") else {}
expect(ref.get("implementation") == "solution" and ref.get("seed") == 20261130
       and all(c["kind"] != "answer" for l in ref.get("labs", []) for c in l["checks"]),
       "its report is the solutions' code, graded with the class's seed")
with open(f"{work}/a/calibration.csv", newline="") as f:
    cal_rows = list(csv.reader(f))
expect(cal_rows[0] == ["shard", "host", "cuda_visible_devices", "gpu_fingerprint", "lab", "check", "status", "ratio", "points",
                       "max_points", "pass_bar", "full_bar", "fairness"]
       and [(r[0], r[1], r[4], r[5], r[6], r[7]) for r in cal_rows[1:]] == [("0/1", e.get("host"), "00", p, "skipped", "") for p in perf],
       "calibration.csv: one row per check")
expect("calibration without a GPU" in text("a.txt") and "as recorded: --resume" in text("a-resume.txt")
       and text("a.cal-mtimes") == text("a-resume.cal-mtimes") and text("a.cal-mtimes").count("\n") == 2,
       "--resume does not calibrate again")
expect(not os.path.exists(f"{work}/b/calibration.csv") and json.load(open(f"{work}/b/gradebook.json"))["calibration"] == [],
       "without --calibrate, no calibration")

c = json.load(open(f"{work}/c/gradebook.json"))
expect(rc("c") == 0 and [s["flags"] for s in c["students"]] == [["HUNG"], ["HUNG"]]
       and all(s["total_points"] == 0 and "--timeout" in s["error"] for s in c["students"]),
       "submissions not graded within --timeout are flagged HUNG, and the batch goes on")
testlib.finish()
PY
lab=labs/00_warmup
class=$work/class
ref_cu=$src/solutions/00_warmup/vector_add.cu
ref_answers=$src/solutions/00_warmup/answers.toml
put() {  # put DIR FILE...: the files into DIR's lab 00 folder
  dir=$1; shift
  mkdir -p "$dir/$lab"
  cp "$@" "$dir/$lab/"
}
put "$class/alice" "$ref_cu" "$ref_answers"
put "$class/bob" "$src/$lab/vector_add.cu" "$src/$lab/answers.toml"
put "$class/carol" "$ref_cu" "$ref_answers"
echo 'this line does not compile' >> "$class/carol/$lab/vector_add.cu"
put "$class/dave" "$ref_cu" "$ref_answers"
printf '\n[unfinished\nkey = = 1\n' >> "$class/dave/$lab/answers.toml"
put "$class/erin" "$ref_cu" "$ref_answers" "$src/$lab/checks.cu"
sed -i 's/pass_bar = [0-9.]*/pass_bar = 0.000001/; s/full_bar = [0-9.]*/full_bar = 0.000002/' "$class/erin/$lab/checks.cu"
put "$class/frank" "$src/$lab/vector_add.cu" "$ref_answers"
sed -i 's/gpulab::unused(a, b, c, n, stream, &vector_add_kernel);/gpulab::unused(\&vector_add_kernel); launch_vector_add_baseline(a, b, c, n, stream);/' \
  "$class/frank/$lab/vector_add.cu"
grep -q 'launch_vector_add_baseline(a' "$class/frank/$lab/vector_add.cu" || { echo "FAIL the template's launcher changed: fix this test"; exit 1; }
put "$work/packed/grace" "$ref_cu" "$ref_answers"
tar -czf "$class/grace.tar.gz" -C "$work/packed" grace
echo 'not a zip archive' > "$class/heidi.zip"
echo 'the instructor notes of this class' > "$class/notes.txt"

seed=20261130
common="--labs 00 --workers 2 --seed $seed --no-ceilings"
"$grader" 00 --submission "$class/alice" --seed $seed --no-ceilings --no-color --json "$work/direct.json" > "$work/direct.txt" 2>&1

# 1. The class, graded once, the solutions first (5).
"$grader" batch "$class" $common --calibrate --out "$work/a" > "$work/a.txt" 2>&1
echo $? > "$work/a.rc"
cat "$work/a.txt"
"$python" "$work/check.py" "$work" stat > "$work/a.mtimes"
"$python" "$work/check.py" "$work" stat-calibration > "$work/a.cal-mtimes"

# 2. Again with --resume (and without --seed): nothing is graded, nothing calibrated.
"$grader" batch "$class" --labs 00 --workers 2 --no-ceilings --calibrate --out "$work/a" --resume > "$work/a-resume.txt" 2>&1
echo $? > "$work/a-resume.rc"
"$python" "$work/check.py" "$work" stat > "$work/a-resume.mtimes"
"$python" "$work/check.py" "$work" stat-calibration > "$work/a-resume.cal-mtimes"

# 3. Stopped midway, twice, and resumed.
records() { ls "$work/b/students"/*/record.json 2>/dev/null | wc -l; }
wait_for_records() {  # wait_for_records N: until N submissions of batch b have their result (at most 600 s)
  i=0
  while [ "$(records)" -lt "$1" ] && [ $i -lt 3000 ]; do sleep 0.2; i=$((i + 1)); done
}
"$grader" batch "$class" $common --out "$work/b" > "$work/b1.txt" 2>&1 &
pid=$!
wait_for_records 1
kill -TERM $pid
wait $pid
echo $? > "$work/b1.rc"
records > "$work/b1.count"
"$grader" batch "$class" $common --out "$work/b" --resume > "$work/b2.txt" 2>&1 &
pid=$!
wait_for_records $(($(cat "$work/b1.count") + 1))
kill -KILL $pid
wait $pid
echo $? > "$work/b2.rc"
records > "$work/b2.count"
"$grader" batch "$class" $common --out "$work/b" --resume > "$work/b3.txt" 2>&1
echo $? > "$work/b3.rc"

# 4. A time limit no grading can meet.
"$grader" batch "$class/alice" "$class/bob" --labs 00 --workers 1 --timeout 1 --no-ceilings --no-similarity --out "$work/c" > "$work/c.txt" 2>&1
echo $? > "$work/c.rc"

"$python" "$work/check.py" "$work" check
