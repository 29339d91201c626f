#!/usr/bin/env sh
# submission_test.sh GRADER SOURCE_DIR WORK PYTHON
# A submission made of the solutions' editable files plus an edited checks.cu (every bar
# lowered to nothing) and an edited grader source: graded with `grader --submission`, the edits must be
# listed as ignored and change nothing — the solution scores full marks on the course's own checks (its
# code checks are skipped without a GPU).
set -eu
grader=$1 src=$2 work=$3 python=$4
rm -rf "$work"
mkdir -p "$work/sub/grader/src"
cp -r "$src/labs" "$work/sub/labs"
for lab in "$src"/solutions/[0-9][0-9]_*/; do
  name=$(basename "$lab")
  for f in "$lab"*; do  # the editable files and answers.toml (not the known-bad versions in wrong/)
    [ -f "$f" ] && cp "$f" "$work/sub/labs/$name/"
  done
done
sed -i 's/pass_bar = [0-9.]*/pass_bar = 0.000001/; s/full_bar = [0-9.]*/full_bar = 0.000002/' "$work/sub/labs/00_warmup/checks.cu"
echo '// lowered every bar' >> "$work/sub/labs/00_warmup/checks.cu"
cp "$src/grader/src/lab.cpp" "$work/sub/grader/src/lab.cpp"
echo '// a student edit of the grader' >> "$work/sub/grader/src/lab.cpp"
"$grader" --submission "$work/sub" --no-color --no-ceilings --json "$work/report.json" > "$work/out.txt" 2>&1 || true
cat "$work/out.txt"
# A submission whose editable file is a symbolic link to the reference on the grading machine: never followed.
mkdir -p "$work/link/labs/00_warmup"
ln -s "$src/solutions/00_warmup/vector_add.cu" "$work/link/labs/00_warmup/vector_add.cu"
"$grader" 00 --submission "$work/link" --no-color --no-ceilings --only answers --json "$work/link.json" > "$work/link.txt" 2>&1 || true
"$python" - "$work/report.json" "$work/link.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
link = json.load(open(sys.argv[2]))["submission"]
problems = []
def expect(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok: problems.append(what)
s = r.get("submission", {})
expect(r["implementation"] == "submission", "graded as a submission")
expect("labs/00_warmup/checks.cu" in s.get("ignored", []), "the edited checks.cu is listed as ignored")
expect("grader/src/lab.cpp" in s.get("ignored", []), "the edited grader source is listed as ignored")
expect(len(s.get("used", [])) == 2 * len(r["labs"]) and not s.get("missing"), "every lab's editable file and answers were staged")
checks = [c for lab in r["labs"] for c in lab["checks"]]
expect(all(not lab["failures"] for lab in r["labs"]), "no lab failed as a whole")
expect(all(c["status"] in ("pass", "skipped") for c in checks), "every check passes (or is skipped without a GPU)")
perf = [c for c in checks if c["id"] == "perf.copy_fraction"]
expect(perf and perf[0]["target"].startswith("pass 0.7"), "lab 00's bars are the course's, not the edited ones")
if all(c["status"] == "skipped" for c in checks if c["kind"] != "answer"):
    print("(code checks skipped: no GPU)")
expect("labs/00_warmup/vector_add.cu" in link.get("missing", []) and
       not [u for u in link.get("used", []) if u["file"] == "labs/00_warmup/vector_add.cu"],
       "an editable file that is a link (to the reference, here) is not followed: missing, the template graded")
sys.exit(1 if problems else 0)
PY
