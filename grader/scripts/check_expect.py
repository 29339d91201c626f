#!/usr/bin/env python3
"""Checks a grader report on a lab's known-bad versions against the lab's wrong/expect.json.

    check_expect.py EXPECT.json REPORT.json [code|cpu]

EXPECT.json maps each known-bad file (wrong/NAME.cu) to what the grader must say of it:

    "NAME.cu": {
      "why":     "what is wrong with it (for the reader)",
      "build":   "fails",                  # optional: it must not build (graded by the cpu test)
      "cpu":     true,                     # optional: its verdict needs no GPU (the code policy stops it)
      "failure": "regex",                  # the lab fails as a whole with a reason matching this;
                                           #   without it, the lab must run to the end
      "checks": {                          # check-id glob -> expectation, every glob must match a check
        "correct.n1000": "pass",           #   a status
        "perf.*": ["fail", "suspicious"],  #   one of several statuses
        "correct.large": {"status": "fail", "message": "regex", "hint": "regex", "points": 0}
      }
    }

The report is the grader's --json output over the registry of known-bad versions that labs_add_lab
writes; its labs are named wrong_NAME. `cpu` checks the versions marked "build": "fails" or "cpu": true,
`code` the others.
Exit 0 when every expectation holds, 1 otherwise, 77 (ctest: SKIPPED) when no GPU was there to grade the
code of the versions that build (host-only checks may have run; the GPU's verdicts are the ones expected).
"""
import fnmatch
import json
import re
import sys


def main(expect_path, report_path, kind):
    expect = {k: v for k, v in json.load(open(expect_path)).items() if not k.startswith("_")}
    report = json.load(open(report_path))
    labs = {lab["name"]: lab for lab in report["labs"]}
    wanted = {name: e for name, e in expect.items()
              if (e.get("build") == "fails" or bool(e.get("cpu"))) == (kind == "cpu")}
    checks = [c for lab in report["labs"] for c in lab["checks"]]
    # The runner says "GPU check skipped: ..." for every check that needs a device it does not have (host-only
    # checks may still have run). The report's gpu_available reflects the ceilings, which these tests skip.
    no_gpu = any(c["status"] == "skipped" and c.get("message", "").startswith("GPU check skipped") for c in checks)
    if kind == "code" and no_gpu:
        print("SKIPPED: no GPU, nothing graded")
        return 77
    problems = []

    def expect_that(ok, what):
        print(("ok   " if ok else "FAIL ") + what)
        if not ok:
            problems.append(what)

    for file_name, e in sorted(wanted.items()):
        lab_name = "wrong_" + file_name.rsplit(".", 1)[0]
        lab = labs.get(lab_name)
        expect_that(lab is not None, f"{file_name}: graded")
        if lab is None:
            continue
        failures = "\n".join(lab.get("failures", []))
        if "failure" in e:
            expect_that(re.search(e["failure"], failures, re.S) is not None,
                        f"{file_name}: the lab fails with /{e['failure']}/ (got: {failures.splitlines()[0] if failures else 'no failure'})")
        else:
            expect_that(not failures, f"{file_name}: the lab runs to the end" + (f" (got: {failures})" if failures else ""))
        by_id = {c["id"]: c for c in lab["checks"]}
        for pattern, x in e.get("checks", {}).items():
            if isinstance(x, (str, list)):
                x = {"status": x}
            matched = [c for cid, c in by_id.items() if fnmatch.fnmatchcase(cid, pattern)]
            expect_that(bool(matched), f"{file_name}: some check matches '{pattern}'")
            for c in matched:
                statuses = [x["status"]] if isinstance(x.get("status"), str) else x.get("status")
                if statuses:
                    expect_that(c["status"] in statuses, f"{file_name}: {c['id']} is {'/'.join(statuses)} (got {c['status']})")
                if "points" in x:
                    expect_that(c["points"] == x["points"], f"{file_name}: {c['id']} scores {x['points']} (got {c['points']})")
                for field in ("message", "hint"):
                    if field in x:
                        expect_that(re.search(x[field], c.get(field, ""), re.S) is not None,
                                    f"{file_name}: {c['id']}'s {field} matches /{x[field]}/ (got: {c.get(field, '')[:160]})")
    extra = sorted(set(labs) - {"wrong_" + f.rsplit(".", 1)[0] for f in wanted})
    expect_that(not extra, "every graded version has expectations" + (f" (none for: {', '.join(extra)})" if extra else ""))
    return 1 if problems else 0


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2], sys.argv[3] if len(sys.argv) == 4 else "code"))
