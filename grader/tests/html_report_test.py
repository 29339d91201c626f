#!/usr/bin/env python3
"""html_report_test.py GRADER FAKE_RUNNER SOURCE_DIR WORK CHROMIUM [SCHEMA_PYTHON]

The report pages (grader/html_report.hpp), rendered by headless Chromium and read back as a DOM:
  - a fake course (grader_fake_runner): a lab that crashes, one that hangs, one with two timed performance checks
    (a roofline and a bandwidth gauge, drawn from this run's fake ceilings), one with a fairness note;
  - a real run here (`grader 00 --no-ceilings`: without a GPU, or with the ceilings not measured, its performance
    checks say why they have no pictures);
  - a saved report of a real GPU run (fixtures/report_h100_solution.json: all ten labs' solutions on an H100 with
    --profile, their code checks only: its answer checks would print the answer key into a student's release), and
    the same without its profiler evidence;
  - a class page from a gradebook naming those reports, with two more students whose ratios overlap and one whose
    report cannot be read.
Each page: nothing fetched (no script, no external URL), no console error, the elements its data call for, and a
screenshot kept in WORK/screenshots/. `grader report` of a saved report writes the same page as `grader --html`.
Without Chromium the test is SKIPPED (exit 77), unless LABS_REQUIRE_CHROMIUM=1 (CI).
"""
import copy
import html.parser
import json
import os
import shutil
import subprocess
import sys
import time

grader, fake_runner, src, work, chromium = sys.argv[1:6]
schema_python = sys.argv[6] if len(sys.argv) > 6 else ""
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import testlib  # noqa: E402
from testlib import expect  # noqa: E402

if not chromium or chromium.endswith("NOTFOUND") or not shutil.which(chromium):
    if os.environ.get("LABS_REQUIRE_CHROMIUM") == "1":
        print("FAIL no headless Chromium here, and LABS_REQUIRE_CHROMIUM=1 (apt-get install chromium)")
        sys.exit(1)
    print("SKIPPED: no headless Chromium (apt-get install chromium)")
    sys.exit(77)
shutil.rmtree(work, ignore_errors=True)
os.makedirs(os.path.join(work, "screenshots"))


def run(args, **kw):
    p = subprocess.run(args, capture_output=True, text=True, **kw)
    return p.returncode, p.stdout + p.stderr


class Dom(html.parser.HTMLParser):
    """The elements of a page: (tag, attributes) in document order, and its text."""

    def __init__(self, text):
        super().__init__()
        self.elements, self.text = [], []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)

    def find(self, tag=None, cls=None, id_prefix=None):
        out = []
        for t, a in self.elements:
            if tag and t != tag:
                continue
            if cls and cls not in (a.get("class") or "").split():
                continue
            if id_prefix and not (a.get("id") or "").startswith(id_prefix):
                continue
            out.append(a)
        return out

    def all_text(self):
        return "".join(self.text)


def render(page, name):
    """The page as Chromium builds it (its DOM), its console errors, and a screenshot."""
    url = "file://" + os.path.abspath(page)
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--enable-logging=stderr", "--v=0"]
    rc, out = run([chromium, *flags, "--dump-dom", url], timeout=120)
    dom_text = out.split("<!DOCTYPE", 1)[-1] if "<html" in out else ""
    errors = [line for line in out.splitlines()
              if "CONSOLE" in line or "Uncaught" in line or "Failed to load resource" in line or "net::ERR" in line]
    shot = os.path.join(work, "screenshots", name + ".png")
    run([chromium, *flags[:4], "--window-size=1280,2000", "--screenshot=" + shot, url], timeout=120)
    expect(rc == 0 and "<html" in out, f"{name}: Chromium renders the page")
    expect(not errors, f"{name}: no console error or failed load" + (": " + " | ".join(errors[:3]) if errors else ""))
    expect(os.path.isfile(shot) and os.path.getsize(shot) > 10000, f"{name}: a screenshot ({shot})")
    return Dom(dom_text)


def self_contained(page, name):
    text = open(page).read()
    bad = [s for s in ("<script", " src=", "url(", "@import", "<link", "<iframe") if s in text]
    external = text.replace('xmlns="http://www.w3.org/2000/svg"', "")
    expect(not bad and "http://" not in external and "https://" not in external,
           f"{name}: self-contained (no script, no link, nothing fetched){': ' + str(bad) if bad else ''}")


def timed_report(args, page):
    t0 = time.monotonic()
    rc, out = run([grader, "report", *args, "--html", page])
    return rc, out, time.monotonic() - t0


# ---- a fake course: the fake runner's behaviours, fake ceilings
ceilings = {"available": True,
            "fingerprint": {"device": {"name": "Fake GPU", "uuid": "GPU-fake", "compute_capability": "9.0", "sm_count": 132,
                                       "l2_bytes": 52428800, "cuda_driver": "13.0", "cuda_runtime": "13.0"},
                            "driver_version": "0", "sm_clock_mhz": None, "mem_clock_mhz": None, "temperature_c": None,
                            "nvml_status": "fake"},
            "ceilings": {"d2d_copy_gbps": 3000.0, "bf16_gemm_tflops": 800.0, "fp32_fma_tflops": 60.0,
                         "launch_submit_us": 5.0, "launch_device_us": 2.0, "graph_node_us": 0.7, "h2d_pinned_gbps": 55.0,
                         "d2h_pinned_gbps": 55.0, "h2d_pageable_gbps": 8.0, "d2h_pageable_gbps": 8.0,
                         "dram_latency_ns": 600.0, "l2_latency_ns": 200.0, "sm_count": 132}}
json.dump(ceilings, open(os.path.join(work, "ceilings.json"), "w"))
labs = [{"id": "01", "name": "crashes", "runner_student": [fake_runner, "--behave", "segv"], "code_points": 20},
        {"id": "02", "name": "hangs", "runner_student": [fake_runner, "--behave", "hang"], "code_points": 20},
        {"id": "03", "name": "timed", "runner_student": [fake_runner, "--behave", "timed"], "code_points": 30},
        {"id": "04", "name": "unfair", "runner_student": [fake_runner, "--behave", "unfair"], "code_points": 20}]
registry = os.path.join(work, "labs.json")
json.dump({"labs": labs, "ceilings_command": ["sh", "-c", 'cp "$0" "$2"', os.path.join(work, "ceilings.json")]},
          open(registry, "w"))
fake_json, fake_html = os.path.join(work, "fake.json"), os.path.join(work, "fake.html")
rc, out = run([grader, "--registry", registry, "--no-build", "--only", "code", "--timeout", "2", "--json", fake_json,
               "--html", fake_html, "--profile"])
expect(rc == 1 and os.path.isfile(fake_html), f"grader --html writes the page of a run that failed (exit {rc})")
fake = json.load(open(fake_json))
if schema_python:  # the report with its profiler evidence (labs[].profile) is what docs/report-schema.json says
    v = subprocess.run([schema_python, os.path.join(src, "grader", "tests", "validate_report.py"),
                        os.path.join(src, "docs", "report-schema.json"), fake_json], capture_output=True, text=True)
    expect(v.returncode == 0, "fake: the report (with labs[].profile) matches docs/report-schema.json " + v.stderr[-300:])
self_contained(fake_html, "fake")
dom = render(fake_html, "fake")
expect(len(dom.find("section", cls="lab")) == 4, "fake: a section per lab")
expect(len(dom.find("tr", cls="lab-row")) == 4, "fake: a line per lab at a glance")
ids = {a.get("id") for _, a in dom.elements if a.get("id")}
lost = [a.get("href") for a in dom.find("a") if (a.get("href") or "").startswith("#check-")]
short = [(lab["id"], c["id"]) for lab in fake["labs"] for c in lab["checks"]
         if c["max_points"] - c["points"] > 1e-9 and c["status"] != "skipped"]
expect(len(lost) == len(short) > 0 and all(h[1:] in ids for h in lost),
       f"fake: where the points went, one link per check short of full marks ({len(short)}), each to its row")
expect(len(dom.find("tr", cls="check")) == sum(len(lab["checks"]) for lab in fake["labs"]),
       "fake: a row per check in the checks tables")
expect("SIGSEGV" in dom.all_text() and "hung" in dom.all_text(), "fake: the crash and the hang are said")
expect(len(dom.find("svg", cls="roofline", id_prefix="roofline-03-perf.gemm")) == 1,
       "fake: lab 03's GEMM check has its roofline")
expect(len(dom.find("circle", cls="pt-student")) == 1 and len(dom.find("rect", cls="pt-baseline")) == 1,
       "fake: the roofline places the code and its baseline")
expect(len(dom.find("svg", cls="gauge", id_prefix="gauge-03-perf.copy")) == 1, "fake: the copy-bound check has its gauge")
expect(len(dom.find("svg", cls="timings")) == 2, "fake: each timed check shows its timings")
expect("750 TFLOP/s" not in dom.all_text() and "550 TFLOP/s" in dom.all_text(),
       "fake: the roofline's numbers come from the run (1.1e11 FLOPs in 0.2 ms = 550 TFLOP/s)")
expect(len(dom.find("div", cls="evidence")) == 2 and len(dom.find("table", cls="counters")) == 1
       and "2.00" in dom.all_text() and "ncu is not installed" in dom.all_text(),
       "fake: with --profile, the profiler's evidence per kernel (a counter divided by another: 262144 / 131072 = 2.00), "
       "and why an evidence was not read")
expect(not dom.find("p", id_prefix="profile-hint"), "fake: no hint to run --profile on a page that has its evidence")
expect(len(dom.find("section", id_prefix="ceilings")) == 1 and "3000 GB/s" in dom.all_text(), "fake: the run's ceilings")
rc, out, secs = timed_report([fake_json], os.path.join(work, "fake-saved.html"))
saved = open(os.path.join(work, "fake-saved.html")).read().replace(fake_json, "this run")
expect(rc == 0 and saved == open(fake_html).read(),
       "grader report REPORT.json writes the page grader --html wrote (but for the source it names)")
print(f"     grader report wrote the fake run's page in {secs * 1000:.0f} ms")

# ---- a real run of this course (lab 00), without measured ceilings: its timed checks say why there is no picture
cpu_json, cpu_html = os.path.join(work, "cpu.json"), os.path.join(work, "cpu.html")
rc, out = run([grader, "00", "--no-ceilings", "--json", cpu_json, "--html", cpu_html])
expect(os.path.isfile(cpu_html), f"a real run of lab 00 writes its page (exit {rc})")
cpu = json.load(open(cpu_json))
self_contained(cpu_html, "cpu")
dom = render(cpu_html, "cpu")
perf = [c for lab in cpu["labs"] for c in lab["checks"] if c["kind"] == "performance"]
expect(len(dom.find("div", cls="perf")) == len(perf) and len(perf) > 0, f"cpu: each performance check has its place ({len(perf)})")
expect(dom.all_text().count("No pictures: the check did not run here") == len(perf),
       "cpu: and says why it has no pictures")

# ---- a saved report of a real GPU run: every lab's solution on an H100
h100_json = os.path.join(src, "grader", "tests", "fixtures", "report_h100_solution.json")
h100_html = os.path.join(work, "h100.html")
rc, out, secs = timed_report([h100_json], h100_html)
expect(rc == 0, "grader report renders the saved GPU report: " + out.strip()[-200:])
print(f"     grader report wrote the GPU run's page ({os.path.getsize(h100_html) // 1024} KiB) in {secs * 1000:.0f} ms")
h100 = json.load(open(h100_json))
self_contained(h100_html, "h100")
dom = render(h100_html, "h100")
timed = [(lab["id"], c) for lab in h100["labs"] for c in lab["checks"]
         if c["kind"] == "performance" and "time_ms" in c["details"]]
def rates(d):
    w = d.get("work_model", {})
    return w.get("gbps", 0), w.get("tflops", 0), w.get("host_gbps", 0)


with_roof = [x for x in timed if rates(x[1]["details"])[0] > 0 and rates(x[1]["details"])[1] > 0]
with_gauge = [x for x in timed if x not in with_roof and (rates(x[1]["details"])[0] > 0 or rates(x[1]["details"])[2] > 0
                                                          or "bytes_moved" in x[1]["details"])]
expect(len(dom.find("svg", cls="roofline")) == len(with_roof) > 0 and len(dom.find("svg", cls="gauge")) == len(with_gauge) > 0,
       f"h100: a roofline for each timed check whose work model has bytes and FLOPs ({len(with_roof)}), a gauge for each "
       f"with bytes alone ({len(with_gauge)})")
with_timings = [x for x in timed if any(isinstance(v, dict) and "median_ms" in v for v in x[1]["details"].values())]
expect(len(dom.find("svg", cls="timings")) == len(with_timings), f"h100: the timings of each timed check ({len(with_timings)})")
expect("NVIDIA H100" in dom.all_text(), "h100: the GPU is named")
pictures = {a.get("id") for a in dom.find("figure", cls="lab-picture")}
expect(pictures == {"picture-01-observed", "picture-01", "picture-02", "picture-03-traffic", "picture-03", "picture-04-layout", "picture-04",
                    "picture-05", "picture-06", "picture-07", "picture-07-online", "picture-08", "picture-08-eager",
                    "picture-08-graph", "picture-09"},
       "h100: the pictures of labs 01 (the observed call, the pipeline schedule), 02 (bandwidth by loads in flight), 03 "
       "(the DRAM bytes each version moved, TFLOP/s per version), 04 (the layouts' banks, bank conflicts), 05 (peak memory per path), 06 (stages against the "
       "bound), 07 (extra memory, the online softmax's state), 08 (host and device, eager and replay, and one step of "
       "each observed) and 09 (P + r·T and the crossover), from the run's data: " + str(sorted(pictures)))
expect(len(dom.find("circle", cls="crossover-point")) == 1, "h100: lab 09's crossover is marked")
labs_by_id = {lab["id"]: lab for lab in h100["labs"]}


def details(lab, check):
    return next(c for c in labs_by_id[lab]["checks"] if c["id"] == check)["details"]


# The observed timelines: one bar per kernel and copy the observer recorded, one tick per launch call.
# Lab 01's modelled schedule is drawn the same way: one bar per chunk and stage.
timelines = [details("01", "correct.timed_size")["timeline"], *details("08", "launches.counts")["timelines"].values()]
scheduled = 3 * details("01", "perf.speedup")["chunks"]
expect(len(dom.find("svg", cls="observed")) == len(timelines) + 1 == 4,
       "h100: lab 01's observed call and its modelled schedule, and lab 08's two steps")
expect(len(dom.find("rect", cls="item")) == sum(len(t["items"]) for t in timelines) + scheduled > scheduled
       and len(dom.find("line", cls="call")) == sum(len(t["calls"]) for t in timelines) > 0,
       "h100: every observed kernel and copy drawn, and every launch call")
expect(len(dom.find("line", cls="marker")) == 4,
       "h100: lab 01's two timelines each mark the model's T_pipe and the measured median")
curve = details("02", "perf.stream_copy")["gbps_by_loads"]
expect(len(dom.find("svg", cls="curve")) == 1 and len(dom.find("circle", cls="pt")) == len(curve) - 1,
       f"h100: lab 02's curve has its {len(curve)} settings, the one graded marked apart")
expect(len(dom.find("g", cls="bank-grid")) == 3, "h100: lab 04's three layouts drawn bank by bank")
state = details("07", "correct.attention_small")["online_state"]
expect(len(dom.find("svg", cls="online")) == 1 and f"{state['lse_fp64']:.6f}"[:6] in dom.all_text(),
       "h100: lab 07's online-softmax state, ending at the row's LSE")
# The profiler's evidence: one table per declared target, one row per kernel, the kit's own kernels left out.
evidence = [(lab["id"], e) for lab in h100["labs"] for e in lab.get("profile", [])]
expect(len(dom.find("div", cls="evidence")) == len(evidence) == 7 and len(dom.find("table", cls="counters")) == 7,
       "h100 --profile: the evidence of labs 02, 03, 04, 05, 06 (two targets) and 07")
expect(not any("gpulab::" in k["name"] for _, e in evidence for k in e["kernels"])
       and any(e.get("course_kernels_left_out", 0) > 0 for _, e in evidence)
       and "launches of the course's own kernels" in dom.all_text(),
       "h100 --profile: the kit's input fills are left out of the evidence, and said to be")
expect(not dom.find("p", id_prefix="profile-hint"), "h100 --profile: no hint to run --profile")
expect("v3 moved (DRAM)" in dom.all_text() and "(your answer)" not in dom.all_text(),
       "h100: lab 03's traffic picture has the bytes each version moved, and no model figure (no answers in this report)")
# The same run without --profile says how to get the evidence. Its lab 03 has two traffic answers, one right: the
# model's traffic is drawn from the right one alone (the model's figures are answers).
plain_json, plain_html = os.path.join(work, "h100-plain.json"), os.path.join(work, "h100-plain.html")
plain = copy.deepcopy(h100)
for lab in plain["labs"]:
    lab.pop("profile", None)
    if lab["id"] == "03":
        for tile, status in (("64x64", "pass"), ("32x32", "fail")):
            lab["checks"].append({"id": "traffic.mib_" + tile, "title": "traffic.mib_" + tile, "kind": "answer", "status": status,
                                  "points": 0, "max_points": 1, "measured": "3096" if status == "pass" else "17", "target": "",
                                  "message": "", "hint": "", "details": {}})
json.dump(plain, open(plain_json, "w"))
rc, out, _ = timed_report([plain_json], plain_html)
expect(rc == 0, "grader report renders the run without its evidence")
dom_plain = render(plain_html, "h100-plain")
expect(len(dom_plain.find("p", id_prefix="profile-hint")) == 1 and not dom_plain.find("div", cls="evidence"),
       "h100 without --profile: no evidence, and says how to get it")
plain_text = dom_plain.all_text()
expect("model, 64x64 tiles (your answer)" in plain_text and "3096 MiB" in plain_text and "32x32 tiles" not in plain_text
       and "moved (DRAM)" not in plain_text and "run with --profile to see the DRAM bytes" in plain_text,
       "h100 without --profile: lab 03's model traffic from the answer graded right only, and how to get the bytes moved")

# A saved report whose data a picture does not expect (edited, or from another version): the page is still written,
# and says which pictures it could not draw.
odd_json, odd_html = os.path.join(work, "odd.json"), os.path.join(work, "odd.html")
odd = copy.deepcopy(h100)
for lab in odd["labs"]:
    for c in lab["checks"]:
        if lab["id"] == "03" and c["id"] == "perf.v3_cublas_fraction":
            c["details"]["work_model"]["tensor"] = []
        if lab["id"] == "07" and c["id"] == "correct.attention_small":
            c["details"]["online_state"]["l"] = "x"
        if lab["id"] == "09" and c["id"] == "perf.policy":
            for v in c["details"]["call_ms_generic_bucketed_specialized_and_p"].values():
                v[0] = "x"
    for e in lab.get("profile", []):
        e["kernels"] = 7
json.dump(odd, open(odd_json, "w"))
rc, out, _ = timed_report([odd_json], odd_html)
odd_text = open(odd_html).read() if os.path.isfile(odd_html) else ""
expect(rc == 0 and odd_text.count("could not be drawn from this report") == 1 + 1 + len([l for l in odd["labs"] if l.get("profile")])
       and 'id="lab-09"' in odd_text and "picture-07-online" not in odd_text,
       "a report with odd data: the page is written, and says which pictures (lab 03's v3, lab 09's, each lab's evidence) "
       "it could not draw; lab 07's online state, malformed, is left out: " + out.strip()[-200:])

# The Hopper parts (lab 03's v4, lab 07's (c)), drawn where they were timed: the saved H100 report predates them, so
# their checks are added to a copy of it, as a Hopper run writes them.
hop_json, hop_html = os.path.join(work, "hopper.json"), os.path.join(work, "hopper.html")
hop = copy.deepcopy(h100)
for lab in hop["labs"]:
    if lab["id"] == "03":
        lab["checks"].append({"id": "perf.v4_cublas_fraction", "title": "v4 (Hopper) fraction of cuBLAS", "kind": "performance",
                              "status": "pass", "points": 10, "max_points": 10, "message": "", "hint": "",
                              "details": {"tflops": 688.4, "cuBLAS_tflops": 753.2, "ratio": 0.914}})
    if lab["id"] == "07":
        for cid, tf in (("perf.hopper_cublas", 584.0), ("perf.hopper_cublas_full", 619.0)):
            lab["checks"].append({"id": cid, "title": cid, "kind": "performance", "status": "pass", "points": 3, "max_points": 3,
                                  "message": "", "hint": "", "details": {"tflops": tf, "cublas_tflops": 800.0, "ratio": tf / 800.0}})
json.dump(hop, open(hop_json, "w"))
rc, out, _ = timed_report([hop_json], hop_html)
hop_dom = Dom(open(hop_html).read()) if os.path.isfile(hop_html) else Dom("")
expect(rc == 0 and "v4: TMA + wgmma (Hopper): 688 TFLOP/s" in hop_dom.all_text()
       and "Part (c), on the Hopper path, ran it at 584 TFLOP/s (73% of cuBLAS), and 619 TFLOP/s not causal" in hop_dom.all_text(),
       "a Hopper run: lab 03's picture has v4's bar, lab 07's caption (c)'s rates: " + out.strip()[-200:])
h100_text = open(h100_html).read()
expect("v4: TMA + wgmma" not in h100_text and "Part (c)" not in h100_text,
       "a run without the Hopper parts draws neither")

# ---- the class page
klass = os.path.join(work, "class")
os.makedirs(klass)
rows = []


def student(name, report, labs_points):
    rel = f"students/{name}/report.json"
    os.makedirs(os.path.join(klass, "students", name))
    if report is not None:
        json.dump(report, open(os.path.join(klass, rel), "w"))
    rows.append({"student": name, "report": rel, "outcome": "graded", "labs": labs_points,
                 "total_points": sum(v["points"] for v in labs_points.values()),
                 "max_points": sum(v["max_points"] for v in labs_points.values()),
                 "flags": [], "flag_details": [], "similar": []})


def points_of(report):
    return {lab["id"]: {"points": lab["points"], "max_points": lab["max_points"]} for lab in report["labs"]}


def fingerprint_of(report):
    """As the gradebook writes a GPU: its name, UUID and driver."""
    f = report["fingerprint"]
    return f"{f['device']['name']} {f['device']['uuid']} driver {f['driver_version']}"


copy_check = next(c for lab in h100["labs"] if lab["id"] == "00" for c in lab["checks"] if c["id"] == "perf.copy_fraction")
student("ann", h100, points_of(h100))
# bob: ann's run with every ratio 0.03% lower (inside every interval: the narrowest, lab 03's v1, is ±0.056%): the
# same rank; cat: 30% lower, a rank below.
for name, scale in (("bob", 0.9997), ("cat", 0.7)):
    r = copy.deepcopy(h100)
    for lab in r["labs"]:
        for c in lab["checks"]:
            if "ratio" in c.get("details", {}):
                c["details"]["ratio"] *= scale
    student(name, r, points_of(r))
student("dan", cpu, points_of(cpu))
student("eve", None, {"00": {"points": 0, "max_points": 100}})
rows[0]["flags"] = ["SIMILAR"]
rows[0]["flag_details"] = [{"flag": "SIMILAR", "lab": "07", "why": "97% of this code is in the reference solution"}]
gradebook = {"schema_version": 1, "grader_version": "test", "created_at": "2026-12-07T00:00:00Z", "seed": 1,
             "labs": [{"id": lab["id"], "title": lab["title"]} for lab in h100["labs"]], "students": rows,
             "calibration": [{"host": "node1", "cuda_visible_devices": "0", "gpu": {"name": "NVIDIA H100 80GB HBM3"},
                              "outcome": "graded", "gpu_fingerprint": fingerprint_of(h100),
                              "checks": [{"lab": "04", "id": "perf.padded_vs_plain", "status": "partial", "ratio": 1.65,
                                          "pass_bar": 1.4, "full_bar": 1.8},
                                         {"lab": "00", "id": "perf.copy_fraction", "status": "pass",
                                          "ratio": copy_check["details"]["ratio"] / 2, "pass_bar": 0.7, "full_bar": 0.9}]}],
             "similarity": {"ran": False, "why_not": "not compared"}}
json.dump(gradebook, open(os.path.join(klass, "gradebook.json"), "w"))
open(os.path.join(klass, "students", "ann", "report.html"), "w").write("<html></html>")
class_html = os.path.join(work, "class.html")
rc, out, secs = timed_report(["--class", os.path.join(klass, "gradebook.json")], class_html)
expect(rc == 0, "grader report --class renders the class page: " + out.strip()[-200:])
print(f"     grader report --class wrote the class page in {secs * 1000:.0f} ms")
self_contained(class_html, "class")
dom = render(class_html, "class")
expect(len(dom.find("tr", cls="student")) == 5, "class: a roster row per student")
expect("students/eve/report.json" in dom.all_text(),
       "class: the report that cannot be read is named")
expect(any(a.get("href") == "students/ann/report.html" for a in dom.find("a")), "class: a link to a student's page that exists")
expect(not any(a.get("href") == "students/bob/report.html" for a in dom.find("a")), "class: no link to a page that does not")
checks = {(lab["id"], c["id"]) for lab in h100["labs"] for c in lab["checks"]} | \
         {(lab["id"], c["id"]) for lab in cpu["labs"] for c in lab["checks"]}
expect(len(dom.find("svg", cls="hist")) == len(checks), f"class: a distribution of points per check ({len(checks)})")
expect(len(dom.find("svg", cls="ratios")) == len({(lab_id, c["id"]) for lab_id, c in timed}),
       "class: the ratios of each timed check on one axis, with their intervals and bars")
expect(len(dom.find("div", cls="ranking")) == len({(lab["id"], c["id"]) for lab in h100["labs"] for c in lab["checks"]
                                                   if c["kind"] == "performance"}),
       "class: a ranking per performance check")
# The ranks: read each ranking table back (rank, student) and check ann and bob share one, cat is below them.
text = dom.all_text()
expect("SIMILAR" in text and "97% of this code" in text, "class: the flags with their reasons")
expect("NVIDIA H100 80GB HBM3" in text and "1.65" in text, "class: the calibration per GPU")
expect(len(dom.find("path", cls="ref-mark")) == 2,
       "class: the reference solution's ratio marked on the axis of each check the calibration has (2)")


# The student's page with the calibration: the reference solution, as measured on the same GPU, beside the code. Its
# ratio here is half the student's, so its bandwidth is half the student's.
ref_html = os.path.join(work, "h100-ref.html")
rc, out = run([grader, "report", h100_json, "--html", ref_html, "--calibration", os.path.join(klass, "gradebook.json")])
d = copy_check["details"]
student_gbps = d["work_model"]["gbps"]
page = open(ref_html).read()
lab00 = page.split('<section class="lab" id="lab-00">')[1].split('<section class="lab"')[0]
expect(rc == 0 and page.count("<title>reference solution:") == 2 and lab00.count("<title>reference solution:") == 1
       and f"{student_gbps / 2:.0f}" in lab00.split("<title>reference solution:")[1][:30],
       f"--calibration: the reference solution's bandwidth on this GPU beside the code's, on the two checks the "
       f"calibration has (lab 00: {student_gbps / 2:.0f} GB/s)")
rc, out = run([grader, "report", h100_json, "--html", os.path.join(work, "h100-noref.html"), "--calibration", fake_json])
expect(rc == 0 and "no calibration on this report's GPU" in out, "--calibration without this GPU's calibration says so")


class Ranks(html.parser.HTMLParser):
    def __init__(self, text):
        super().__init__()
        self.tables, self.cell, self.row, self.in_rank = [], None, None, False
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "div" and a.get("class") == "ranking":
            self.tables.append([])
        if tag == "tr" and a.get("class") == "ranked":
            self.row = []
        if tag == "td" and self.row is not None:
            self.cell = ""

    def handle_endtag(self, tag):
        if tag == "td" and self.row is not None and self.cell is not None:
            self.row.append(self.cell.strip())
            self.cell = None
        if tag == "tr" and self.row is not None:
            self.tables[-1].append(self.row)
            self.row = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data


tables = [t for t in Ranks(open(class_html).read()).tables if t]
good = 0
for t in tables:
    rank = {row[1]: int(row[0]) for row in t}
    if {"ann", "bob", "cat"} <= rank.keys() and rank["ann"] == rank["bob"] and rank["cat"] > rank["ann"]:
        good += 1
expect(tables and good == len(tables),
       f"class: in every ranking ann and bob (0.03% apart) share a rank and cat (30% lower) ranks below ({good} of {len(tables)})")
testlib.finish()
