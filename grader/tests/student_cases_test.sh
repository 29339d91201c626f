#!/usr/bin/env sh
# student_cases_test.sh GRADER SOURCE_DIR WORK PYTHON
# Per-student exercise cases on the real labs: a submission made of the solutions' answers (the stated
# cases' keys) scores full without a student id; graded as students alice and bob (one course seed), each
# gets cases of their own — different parameters, recorded in the report — and the answers to the stated
# cases fail exactly the questions on a case, while the chapter's questions still pass.
set -u
grader=$1 src=$2 work=$3 python=$4
rm -rf "$work"
for lab in "$src"/solutions/[0-9][0-9]_*/; do
  name=$(basename "$lab")
  mkdir -p "$work/sub/labs/$name"
  cp "$lab/answers.toml" "$work/sub/labs/$name/answers.toml"
done
"$grader" --submission "$work/sub" --only answers --no-color --no-ceilings --json "$work/stated.json" > /dev/null 2>&1
for who in alice bob; do
  "$grader" --submission "$work/sub" --only answers --no-color --no-ceilings --student "$who" --course-seed 20261201 \
    --json "$work/$who.json" > /dev/null 2>&1
done
"$python" - "$work" <<'PY'
import json, sys
work = sys.argv[1]
reports = {who: json.load(open(f"{work}/{who}.json")) for who in ("stated", "alice", "bob")}
verdicts = []
def checks(r):
    return {(l["id"], c["id"]): c for l in r["labs"] for c in l["checks"] if c["status"] != "skipped"}
stated, alice, bob = (checks(reports[w]) for w in ("stated", "alice", "bob"))
verdicts.append((all(c["status"] == "pass" for c in stated.values()), "the solutions' answers pass every stated case"))
verdicts.append((reports["alice"].get("student", {}).get("id") == "alice", "the report records the student id"))
on_case = [k for k, c in alice.items() if "case" in c["details"]]
verdicts.append((len(on_case) >= 15, f"{len(on_case)} questions are on a case"))
differ = [k for k in on_case if alice[k]["details"]["case"]["values"] != bob[k]["details"]["case"]["values"]]
verdicts.append((len(differ) == len(on_case), "alice's and bob's cases differ in every lab"))
verdicts.append((all(alice[k]["status"] == "fail" for k in on_case), "the stated case's answers fail alice's case"))
verdicts.append((all(c["status"] == "pass" for k, c in alice.items() if k not in on_case),
                 "the chapter's questions still pass for alice"))
for ok, what in verdicts:
    print(("ok   " if ok else "FAIL ") + what)
sys.exit(0 if all(ok for ok, _ in verdicts) else 1)
PY
