#!/usr/bin/env python3
"""Checks the grader's report on the deliberately broken lab-00 variants (grader/tests/broken/).

Each variant must be reported with the right reason, and the run must have graded all four.
Exit 77 (ctest: SKIPPED) when no GPU was available, so nothing could be graded.
"""
import json
import sys

report = json.load(open(sys.argv[1]))
labs = {lab["name"]: lab for lab in report["labs"]}
checks = [c for lab in report["labs"] for c in lab["checks"]]
if checks and all(c["status"] == "skipped" for c in checks):
    print("SKIPPED: no GPU, nothing graded")
    sys.exit(77)

problems = []


def expect(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        problems.append(what)


expect(len(labs) == 4, "all four broken labs were graded")
ill = labs.get("broken_illegal_address", {})
expect(any("cudaErrorIllegalAddress" in f for f in ill.get("failures", [])),
       "illegal address: the lab fails naming cudaErrorIllegalAddress")
expect(all(c["status"] in ("error", "not_run") for c in ill.get("checks", [])) and ill.get("points") == 0,
       "illegal address: no check scores after the context is lost")
hang = labs.get("broken_hang", {})
expect(any("hung" in f for f in hang.get("failures", [])), "hang: the lab fails as hung (killed at the timeout)")
nan = labs.get("broken_nan", {})
nan_checks = [c for c in nan.get("checks", []) if c["id"].startswith("correct.")]
expect(nan_checks and all(c["status"] == "fail" and "NaN" in c["message"] for c in nan_checks if c["id"] != "correct.n1"),
       "NaN output: correctness checks fail and name the NaN")
expect(not nan.get("failures"), "NaN output: the lab itself ran to the end")
nan_perf = [c for c in nan.get("checks", []) if c["id"] == "perf.copy_fraction"]
expect(nan_perf and nan_perf[0]["points"] == 0 and "must pass first" in nan_perf[0]["message"],
       "NaN output: performance is not scored after its correctness check failed")
unw = labs.get("broken_unwritten", {})
by_id = {c["id"]: c for c in unw.get("checks", [])}
expect(by_id.get("correct.n1000", {}).get("status") == "pass", "unwritten tail: n = 1000 (no tail) passes")
odd = by_id.get("correct.n1048583", {})
expect(odd.get("status") == "fail" and "never written" in odd.get("message", ""),
       "unwritten tail: n = 2^20 + 7 fails with elements never written")
expect("tail" in odd.get("hint", ""), "unwritten tail: the hint points at the tail")
sys.exit(1 if problems else 0)
