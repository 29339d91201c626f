#!/usr/bin/env sh
# shard_test.sh GRADER WORK BATCH_WORK PYTHON
# The class of grader_batch_grades_a_class (BATCH_WORK/class, made by batch_test.sh), graded again as three
# shards (`grader batch --shard I/3 --calibrate`, one after the other, one worker each) with the same seed and
# settings, then joined by `grader gradebook merge`:
#  1. --shard refuses what is not I/N with 0 <= I < N, and a shard with no student;
#  2. each shard grades only its students (sorted by id, dealt round robin) into OUT/shard-I-of-3;
#  3. the merged gradebook.csv is byte for byte that of the single batch (BATCH_WORK/a), and its
#     gradebook.json too but for the fields docs/instructor.md lists (created_at; a row's seconds, worker,
#     cuda_visible_devices, report, junit, log; the calibration), its file paths leading to the shards' reports;
#  4. each shard's gradebook has its own calibration, and the merged one keeps all three (and calibration.csv);
#  5. merge refuses, writing nothing, a missing shard (naming it and its students), a shard given twice,
#     and a shard graded with another seed.
set -u
grader=$1 work=$2 batch=$3 python=$4
# shellcheck source=grader/tests/lib.sh
. "$(dirname "$0")/lib.sh"
class_test "$work"
class=$batch/class
test -f "$batch/a/gradebook.csv" || { echo "FAIL no gradebook of the single batch in $batch/a: run grader_batch_grades_a_class first"; exit 1; }
common="--labs 00 --workers 1 --seed 20261130 --no-ceilings --out $work/out"  # shard I: --first-slot I
run() {  # run NAME ARGS...: the grader's exit status in NAME.rc, its output in NAME.txt
  name=$1; shift
  "$grader" "$@" > "$work/$name.txt" 2>&1
  echo $? > "$work/$name.rc"
}
run bad-index batch "$class" $common --shard 3/3
run bad-text batch "$class" $common --shard 1
run bad-count batch "$class" $common --shard 0/0
run empty batch "$class" $common --shard 8/9
for i in 0 1 2; do
  run "shard$i" batch "$class" $common --shard $i/3 --first-slot $i --calibrate
  cat "$work/shard$i.txt"
done
out=$work/out
ls "$out" > "$work/out.ls"
run missing gradebook merge --out "$work/m-missing" "$out/shard-0-of-3" "$out/shard-2-of-3"
run twice gradebook merge --out "$work/m-twice" "$out/shard-0-of-3" "$out/shard-0-of-3" "$out/shard-1-of-3" "$out/shard-2-of-3"
cp -r "$out/shard-1-of-3" "$work/other-seed"
"$python" -c "import json,sys; p=sys.argv[1]; g=json.load(open(p)); g['seed']=1; json.dump(g,open(p,'w'),indent=2)" "$work/other-seed/gradebook.json"
run seed gradebook merge --out "$work/m-seed" "$out/shard-0-of-3" "$work/other-seed" "$out/shard-2-of-3"
run merge gradebook merge --out "$out" "$out/shard-0-of-3" "$out/shard-1-of-3" "$out/shard-2-of-3"
cat "$work/merge.txt"

"$python" - "$work" "$batch" <<'PY'
import csv, json, os, sys
work, batch = sys.argv[1], sys.argv[2]
out = f"{work}/out"
import testlib
from testlib import expect, text, rc
testlib.work = work
expect(rc("bad-index") == 2 and "numbered from 0" in text("bad-index.txt") and "2/3" in text("bad-index.txt"),
       "--shard 3/3 is refused: shards are numbered from 0 (" + text("bad-index.txt").strip() + ")")
expect(rc("bad-text") == 2 and "I/N" in text("bad-text.txt"), "--shard 1 is refused")
expect(rc("bad-count") == 2 and "at least 1" in text("bad-count.txt"), "--shard 0/0 is refused")
expect(rc("empty") == 2 and "no student" in text("empty.txt"), "a shard with no student is refused")
expect(not os.path.exists(f"{out}/shard-3-of-3") and not os.path.exists(f"{out}/shard-8-of-9"), "a refused shard writes nothing")
mine = {0: ["alice", "dave", "grace"], 1: ["bob", "erin", "heidi"], 2: ["carol", "frank"]}
for i, students in mine.items():
    g = json.load(open(f"{out}/shard-{i}-of-3/gradebook.json"))
    expect(rc(f"shard{i}") == 0 and [s["student"] for s in g["students"]] == students,
           f"shard {i}/3 grades only {' '.join(students)}")
expect(text("out.ls").split() == ["shard-0-of-3", "shard-1-of-3", "shard-2-of-3"],
       "each shard writes in its own folder of OUT, none in OUT itself: " + " ".join(text("out.ls").split()))

expect(rc("missing") == 1 and "shard 1/3 is missing" in text("missing.txt")
       and all(f"student {s} is in no shard" in text("missing.txt") for s in mine[1])
       and not os.path.exists(f"{work}/m-missing"), "merge names a missing shard and its students, and writes nothing")
expect(rc("twice") == 1 and "given twice" in text("twice.txt") and "student alice is in 2 shards" in text("twice.txt")
       and not os.path.exists(f"{work}/m-twice"), "merge names a shard given twice and its students")
expect(rc("seed") == 1 and "seed 1" in text("seed.txt") and not os.path.exists(f"{work}/m-seed"),
       "merge refuses a shard graded with another seed")

expect(rc("merge") == 0, "merge joins the three shards")
expect(open(f"{out}/gradebook.csv", "rb").read() == open(f"{batch}/a/gradebook.csv", "rb").read(),
       "the merged gradebook.csv is byte for byte that of the single batch")
merged, single = json.load(open(f"{out}/gradebook.json")), json.load(open(f"{batch}/a/gradebook.json"))
ROW_DIFFERS = ["seconds", "worker", "cuda_visible_devices", "report", "junit", "log"]
def strip(g):
    g = dict(g)
    g.pop("created_at")
    g["students"] = [{k: v for k, v in s.items() if k not in ROW_DIFFERS} for s in g["students"]]
    return g
a, b = strip(merged), strip(single)
for k in sorted(set(a) | set(b)):
    if k not in ("students", "calibration"):
        expect(a.get(k) == b.get(k), f"gradebook.json's {k} is the single batch's")
for x, y in zip(a["students"], b["students"]):
    expect(x == y, f"{x['student']}'s row is the single batch's but for {' '.join(ROW_DIFFERS)}"
           + ("" if x == y else f": {json.dumps(x)} != {json.dumps(y)}"))
expect(len(a["students"]) == len(b["students"]) == 8, "eight rows")
expect(all(os.path.exists(f"{out}/{s['report']}") and s["report"].startswith("shard-") for s in merged["students"] if s["report"]),
       "the merged rows' report paths lead to the shards' reports")

# 5. Calibrations: one per shard, all three kept by the merge.
for i in mine:
    g = json.load(open(f"{out}/shard-{i}-of-3/gradebook.json"))
    expect([(e["shard"], e["outcome"]) for e in g["calibration"]] == [({"index": i, "count": 3}, "graded")]
           and all(c["status"] == "skipped" for c in g["calibration"][0]["checks"]), f"shard {i}/3 has its own calibration")
cal = merged["calibration"]
expect([e["shard"]["index"] for e in cal] == [0, 1, 2], "the merged gradebook keeps every shard's calibration, by shard")
expect(all(e["report"].startswith(f"shard-{e['shard']['index']}-of-3/calibration/") and os.path.exists(f"{out}/{e['report']}")
           and os.path.exists(f"{out}/{e['log']}") for e in cal), "their report and log paths lead into the shards' folders")
with open(f"{out}/calibration.csv", newline="") as f:
    rows = list(csv.reader(f))
n = len(cal[0]["checks"]) if cal else 0
expect(n > 0 and [r[0] for r in rows[1:]] == ["0/3"] * n + ["1/3"] * n + ["2/3"] * n,
       "the merged calibration.csv has every shard's rows")
expect(single["calibration"] and single["calibration"][0]["shard"] == {"index": 0, "count": 1},
       "the single batch has its own (one shard of one)")
testlib.finish()
PY
