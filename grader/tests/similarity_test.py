#!/usr/bin/env python3
"""similarity_test.py GRADER SOURCE_DIR WORK [SCHEMA_PYTHON]

Copying noticed (`grader similarity`), on a class made here from the course's own files (no GPU, nothing graded):
  - two students per lab with the reference one defect away (a line dropped, an operator changed), and two with
    the reference renamed (every identifier it declares) and its functions reordered (labs 03, 07): each must be
    flagged against the reference (the known-bad versions of solutions/NN/wrong/ are not edits of the reference
    but defect frameworks of their own, most of them: grader/similarity/README.md has their shares);
  - dave, whose lab 05 file is the template with one kernel of carol's pasted in: carol and dave flagged as a pair;
  - carol (lab 05) and erin (lab 08), each with a solution written independently of the reference
    (solutions/tests/independent/): neither flagged against the reference, nor against each other;
  - ivan, whose lab 07 file is a link to the reference: a link is never followed, so nothing is compared;
  - henry, whose lab 02 predictor is the course's own model pasted in: flagged against common/src/models/occupancy.cpp;
    iris, the same paste in a file padded with twice as much other code: flagged by the unbroken run alone;
  - frank and gina, the untouched templates of every lab: never flagged.
Then the pages: one self-contained side-by-side page per flagged pair; similarity.json against
docs/similarity-schema.json (with a Python that has jsonschema). Without the tool installed (Node.js, Dolos), the
test is SKIPPED (exit 77), unless LABS_REQUIRE_SIMILARITY=1 (CI), where that is a failure.
"""
import json
import os
import random
import re
import shutil
import subprocess
import sys

grader, src, work = sys.argv[1], sys.argv[2], sys.argv[3]
schema_python = sys.argv[4] if len(sys.argv) > 4 else ""
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import testlib  # noqa: E402
from testlib import expect  # noqa: E402

shutil.rmtree(work, ignore_errors=True)
klass = os.path.join(work, "class")
os.makedirs(klass)

# The labs and the file each one's student edits (the registry the build wrote).
registry = json.load(open(os.path.join(os.path.dirname(grader), "..", "labs.json")))
labs = {}  # "07" -> ("labs/07_attention", "labs/07_attention/attention.cu")
for lab in registry["labs"]:
    code = [f for f in lab["student_files"] if f.endswith(".cu")]
    if len(code) == 1:
        labs[lab["id"]] = (lab["dir"], code[0])


def read(path):
    with open(path) as f:
        return f.read()


def put(student, rel, text):
    path = os.path.join(klass, student, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def reference(lab):
    folder, file = labs[lab]
    return os.path.join(src, "solutions", os.path.basename(folder), os.path.basename(file))


def renamed_and_reordered(text, seed):
    """The reference as a student hiding a copy would make it: every identifier it declares (functions, variables,
    parameters, types) renamed, and its top-level blocks after the includes put in another order."""
    declared = set(re.findall(r"\b(?:int|float|double|bool|auto|void|size_t|char|unsigned|dim3|cudaStream_t|cudaEvent_t|"
                              r"__nv_bfloat16|bf16|struct|class|using|const)\s*[*&]*\s*([A-Za-z_]\w*)", text))
    keywords = {"const", "int", "float", "void", "auto", "return", "static", "inline", "unsigned", "struct", "class",
                "namespace", "template", "typename", "if", "for", "while", "else", "true", "false", "nullptr", "sizeof"}
    names = sorted(n for n in declared if n not in keywords and len(n) > 1)
    rng = random.Random(seed)
    for i, name in enumerate(names):
        text = re.sub(rf"\b{re.escape(name)}\b", f"v{rng.randrange(10**6)}_{i}", text)
    # Top-level blocks: split after each line that closes one at column 0.
    lines, blocks, cur = text.splitlines(keepends=True), [], []
    for line in lines:
        cur.append(line)
        if line.startswith("}"):
            blocks.append("".join(cur))
            cur = []
    tail = "".join(cur)
    head, rest = blocks[:1], blocks[1:]
    rng.shuffle(rest)
    return "".join(head + rest) + tail


def one_defect(text, seed):
    """The reference one defect away, as a student who copied it and then broke it would have it: one line
    inside a function dropped, or one operator or constant changed."""
    rng = random.Random(seed)
    lines = text.splitlines(keepends=True)
    body = [i for i, l in enumerate(lines) if l.startswith("    ") and l.strip().endswith(";")]
    i = rng.choice(body)
    if seed % 2:
        del lines[i]
    else:
        lines[i] = re.sub(r"\+|<|\b1\b", lambda m: {"+": "-", "<": "<=", "1": "2"}[m.group(0)], lines[i], count=1)
    return "".join(lines)


expected_with_reference = {}  # student -> lab: must be flagged against the reference
for lab in sorted(labs):
    for k in range(2):
        student = f"defect{lab}-{k}"
        put(student, labs[lab][1], one_defect(read(reference(lab)), 7 * int(lab) + k))
        expected_with_reference[student] = lab
for lab in ("03", "07"):
    student = f"renamed{lab}"
    put(student, labs[lab][1], renamed_and_reordered(read(reference(lab)), int(lab)))
    expected_with_reference[student] = lab

# ivan: lab 07's file a symbolic link to the reference on this machine — never followed (graded as the template,
# compared as nothing), so not flagged: grader_submission_ignores_edits proves it is not graded either.
os.makedirs(os.path.join(klass, "ivan", labs["07"][0]))
os.symlink(reference("07"), os.path.join(klass, "ivan", labs["07"][1]))

independent = os.path.join(src, "solutions", "tests", "independent")
carol05 = read(os.path.join(independent, "05_fusion", "fusion.cu"))
put("carol", labs["05"][1], carol05)
put("erin", labs["08"][1], read(os.path.join(independent, "08_graphs", "graphs.cu")))
# dave: the template, and carol's first kernel pasted at its end.
kernel = re.search(r"__global__[\s\S]*?\n}\n", carol05)
put("dave", labs["05"][1], read(os.path.join(src, labs["05"][1])) + "\n" + kernel.group(0))
# henry: lab 02's predictor taken from the course's own model (common/src/models/occupancy.cpp) into the template.
model = re.search(r"Occupancy occupancy\(const SmLimits& sm[\s\S]*?\n}\n", read(os.path.join(src, "common/src/models/occupancy.cpp")))
put("henry", labs["02"][1], read(os.path.join(src, labs["02"][1])).replace("    gpulab::unused(k, d);\n    return {};\n",
                                                                               model.group(0).split("{", 1)[1].rsplit("}", 1)[0], 1))
# iris: henry's paste, with the file padded by twice as much code of her own (two solutions of other labs, written
# independently of this course's): the model is now a small part of her file, so no share reaches the flag share;
# the run of the model's code, unbroken, still flags it.
padding = "\n".join(read(os.path.join(independent, d, f)) for d, f in (("05_fusion", "fusion.cu"), ("08_graphs", "graphs.cu")))
put("iris", labs["02"][1], read(os.path.join(klass, "henry", labs["02"][1])) + "\nnamespace padding {\n" + padding + "\n}\n")
for student in ("frank", "gina"):
    for lab, (folder, file) in labs.items():
        put(student, file, read(os.path.join(src, file)))

out = os.path.join(work, "out")
run = subprocess.run([grader, "similarity", klass, "--out", out], capture_output=True, text=True)
print(run.stdout + run.stderr)
if "cannot compare" in run.stderr and run.returncode == 2:
    if os.environ.get("LABS_REQUIRE_SIMILARITY") == "1":
        print("FAIL the comparison tool is not installed here, and LABS_REQUIRE_SIMILARITY=1 (grader/similarity/install.sh)")
        sys.exit(1)
    print("SKIPPED: the comparison tool is not installed (grader/similarity/install.sh)")
    sys.exit(77)
expect(run.returncode == 0, f"grader similarity exits 0 (got {run.returncode})")
result = json.load(open(os.path.join(out, "similarity", "similarity.json")))
flagged = {}  # (lab, a, b) both ways -> pair
for lab in result["labs"]:
    for p in lab["pairs"]:
        if p["flagged"]:
            flagged[(lab["lab"], p["a"], p["b"])] = p
            flagged[(lab["lab"], p["b"], p["a"])] = p


def partners(student):
    return sorted({(lab, b) for (lab, a, b) in flagged if a == student})


missed = [f"{s} (lab {lab})" for s, lab in sorted(expected_with_reference.items()) if (lab, s, "reference") not in flagged]
expect(not missed, f"every reference one defect away, and renamed and reordered, is flagged against the reference "
                   f"({len(expected_with_reference)} students){': missed ' + ', '.join(missed) if missed else ''}")
expect(("02", "henry", "course: common/src/models/occupancy.cpp") in flagged,
       "henry, whose lab 02 predictor is the course's model, is flagged against that file: " + str(partners("henry")))
iris = flagged.get(("02", "iris", "course: common/src/models/occupancy.cpp"))
expect(iris is not None and iris["flagged_by"] == ["longest"] and iris["share_a"] < result["flag_share"],
       "iris, the same paste in a file padded with more code, is flagged against that file by the run alone: " +
       (json.dumps({k: iris[k] for k in ("share_a", "share_b", "longest", "flagged_by")}) if iris else str(partners("iris"))))
expect(("05", "carol", "dave") in flagged, "carol and dave, sharing one kernel, are flagged as a pair")
expect(("05", "carol", "reference") not in flagged and ("08", "erin", "reference") not in flagged,
       "the independent solutions are not flagged against the reference: carol " + str(partners("carol")) +
       ", erin " + str(partners("erin")))
expect(not [p for p in partners("carol") if p[1] != "dave"] and not partners("erin"),
       "... nor against anything else but dave's paste")
expect(not partners("ivan") and not os.path.exists(os.path.join(out, "similarity", "files", "ivan", labs["07"][1])),
       "a file that is a link to the reference is not followed")
expect(not partners("frank") and not partners("gina"), "untouched templates are never flagged: frank " +
       str(partners("frank")) + ", gina " + str(partners("gina")))
pages = [p["html"] for p in flagged.values()]
expect(all(p and os.path.isfile(os.path.join(out, "similarity", p)) for p in pages),
       f"a side-by-side page for each flagged pair ({len(set(pages))} pages)")
page = read(os.path.join(out, "similarity", flagged[("05", "carol", "dave")]["html"]))
expect("<html" in page.lower() and "http://" not in page and "https://" not in page and "<script src" not in page,
       "a page is self-contained (no network)")
expect("SIMILAR" in run.stderr and "carol" in run.stderr and "dave" in run.stderr, "the flagged pairs are listed")
if schema_python:
    v = subprocess.run([schema_python, os.path.join(src, "grader", "tests", "validate_report.py"),
                        os.path.join(src, "docs", "similarity-schema.json"), os.path.join(out, "similarity", "similarity.json")],
                       capture_output=True, text=True)
    expect(v.returncode == 0, "similarity.json matches docs/similarity-schema.json " + v.stderr[-300:])
testlib.finish()
