#!/usr/bin/env python3
"""Fails when a file a student receives prints the answer to one of the graded questions.

    check_printed_keys.py [--bundle RELEASE_DIR] SOURCE_DIR [OUTPUT...]

Two rules (docs/grading.md, "Paper exercises"). Both read the keys at the stated cases from the solution's
answers (solutions/NN_x/answers.toml, which score full marks: the lab's solution_answers_full test checks that).

1. The handout. A handout works the chapter's examples to teach the method,
but no graded key's value appears in the handout (labs/NN_x/README.md) or in a comment of the student's
answers.toml. A value is looked for in the
forms a writer would print it: an integer with or without thousands separators, and with its unit when the
key names one (..._mib → "6168 MiB", ..._rounds_... → "32 rounds"); a fraction with 2 to 4 significant digits, or as a percentage.
Integers up to 16 are allowed (they are everywhere: tile counts, steps, small examples), and one up to 100
counts only with its unit, as does a power of two (sizes and thread counts are everywhere); a larger one
counts wherever it stands (in a table its unit is in the header). The same holds for a fraction: up to 100,
with a unit-carrying key, only with its unit.
A number that a key's name carries (capacity.a_b128: b = 128) is a parameter of the exercise, not an answer,
and so are the numbers of the `# case NAME: ...` line that states a case: neither counts.
Each OUTPUT (a file: say, what `grader calc` printed for the graded parameters) is checked against every
lab's keys too, or, written NN:FILE, against lab NN's keys only (the lab whose parameters the call used: a
small count in one lab's calculation is not another lab's answer).

2. The student bundle: every file git tracks or would track outside solutions/ (`git ls-files -co
--exclude-standard`; in a directory that is not a git checkout, every file but build*/, .deps/, out/,
solutions/, .git/ and __pycache__/). No file of it prints the answer to a question the chapter does not work:
a key under a section named `case`, `exercise_*` or `experiment_*`. The chapter's worked examples
(example_*, section_*, ...) are public: code, tests and docs may use them (the models' tests check them).
Left out: `measured` keys (the answer is the student's own GPU's measurement, graded within 25 percent; the
solution's value is one GPU's, and no number in a file is another GPU's) and word answers ("registers").
Values are looked for in the handout's forms, with its parameters, and a fraction also bare to 4 up to 8
significant digits (Approx(1.2345) in a test); but code and data hold numbers on every line, so a printed
value counts only where it lets a reader take it for the answer:
  - where it is distinctive: a fraction printed with 4 or more significant digits, an integer with 5 or
    more, or with 4 when it is not a multiple of 256 (1536 and 6144 are sizes, rows, threads); or
  - where the file names its question: the key's name on the line (min_rows_for_overhead, "min rows" for
    experiment_5_2.min_rows), "answer:" or "answer is" on the line, or the question's name (Exercise 5-1,
    Experiment 5-2, `case NAME` as answers.toml states the case) in the line's paragraph or in the line that
    opens its block (a test's title, an unindented declaration, a Markdown heading). A bare 60 or 2048 in
    code is a timeout or a size; CHECK(rows == N) under TEST_CASE("Experiment 5-2 ...") is an answer.
Exclusions, each for numbers that are not answers:
  - a value that a worked example's key of the same lab also has (the chapter prints it: Exercise 5-1's
    occupancy is section 5.1.5's, Experiment 5-7's first crossover is Example 5-12's);
  - a fraction printed with fewer than 3 significant digits (a half, 1.4, 38%: everyday constants);
  - a file under labs/NN_x/ is checked against lab NN's keys only (a count in one lab's code is not another
    lab's answer); every other file against every lab's;
  - a lab's README.md and answers.toml are left to rule 1, which is stricter;
  - datasets/devices/ and datasets/traces/ are the models' inputs (datasheet figures, generated request
    lengths): an answer is computed from them, never stated in them;
  - binary files (a NUL byte, or not UTF-8).
A figure's SVG can print an answer in a label ("break-even: 12.4 MiB"): it is read by its labels' text only
(its coordinates and paths are geometry). A bench's JSON output (Google Benchmark's) records one GPU's
measurements and the bench's own configurations; a counter could hold a model's answer, so it is read too,
its exponent-notation numbers written out (2.0e+02 → 200), but its field names name counters, not
questions: there only distinctive values count (lab 02's occupancy sweep passes through the occupancy of
every resident-block count, which is not the answer for any kernel but its own).

Exit 0 when nothing is printed, 1 otherwise (each finding names the file, line, key and text).
"""
import pathlib
import re
import subprocess
import sys
import tomllib

UNITS = {"mib": "MiB", "kib": "KiB", "gib": "GiB", "gflop": "GFLOP", "rounds": "rounds?", "us": "(?:µs|us)", "ms": "ms", "blocks": "blocks?", "warps": "warps?"}
SMALL = 16


def unit_of(key):
    """The unit a key's name carries (local_kib_64x64 → KiB), or None."""
    for word in re.split(r"[._]", key):
        if word in UNITS:
            return UNITS[word]
    return None


def flatten(table, prefix=""):
    for k, v in table.items():
        key = f"{prefix}.{k}" if prefix else k
        if isinstance(v, dict):
            yield from flatten(v, key)
        else:
            yield key, v


def forms(key, value, strict_units=False):
    """Regular expressions for the ways `value` would be printed. With strict_units (a calculator's output,
    where every number stands with its unit), a key with a unit matches only with that unit."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return []
    unit = unit_of(key)
    out = []
    if float(value).is_integer():
        n = int(value)
        if abs(n) <= SMALL and unit is None:
            return []
        texts = {str(n), f"{n:,}", f"{n:,}".replace(",", " "), f"{n:,}".replace(",", "\u202f")}
        for t in texts:
            body = re.escape(t)
            if unit and (strict_units or abs(n) <= 100 or (n > 0 and n & (n - 1) == 0)):  # small, or a power of two:  # "24 KiB": a small number only with its unit (a bare 24 means little)
                out.append(rf"(?<![\w.,]){body}\s*{unit}\b")
            else:
                out.append(rf"(?<![\w.,]){body}(?![\d]|[.,]\d)")
        return out
    # A fraction: with decimals (a bare "32" for 31.75 would be everywhere), with its unit when rounded to a
    # whole number ("103 GFLOP"), or as a percentage ("21%").
    # A small one with a unit counts only with that unit, as a small integer does (a bare 1.05 is as likely
    # a ratio in a table as Example 5-1's 1.05 ms).
    bare = unit is None or strict_units is False and abs(value) > 100
    for digits in (2, 3, 4):
        t = f"{value:.{digits}g}"
        if "." in t and bare:
            out.append(rf"(?<![\w.]){re.escape(t)}(?![\d])")
        elif "." in t:
            out.append(rf"(?<![\w.]){re.escape(t)}\s*{unit}\b")
        elif unit:
            out.append(rf"(?<![\w.,]){re.escape(t)}\s*{unit}\b")
        if 0 < abs(value) < 1:
            out.append(rf"(?<![\w.]){re.escape(f'{100 * value:.{digits - 1}g}')}\s*%")
    return out


SIZE_UNITS = re.compile(r"\b(bytes|KiB|MiB|GiB|FLOP)\b")


def parameters(keys):
    """The numbers the keys' names carry (a_b128, passes_b64): parameters of their questions."""
    return {int(n) for key in keys for n in re.findall(r"(?<=[a-z_])\d+", key.rpartition(".")[2])}


def scan(path, label, keys, comments_only, problems, calc_output=False, params=frozenset()):
    """Looks for the keys' values in a file. A calculator's output is read from its derivation on (its inputs
    are given, not answers), a number with a unit answers only a key with that unit, and a count or ratio
    key is not answered by a line that holds a size. A value among @p params (numbers in key names) and the
    line stating a case are parameters, not answers."""
    derived = not calc_output
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if calc_output and line.strip() in ("derivation", "results"):
            derived = True
        if not derived or (comments_only and not line.lstrip().startswith("#")):
            continue
        if re.match(r"\s*#\s*case \w+:", line):
            continue
        for key, value in keys.items():
            if isinstance(value, (int, float)) and not isinstance(value, bool) and float(value).is_integer() \
                    and int(value) in params:
                continue
            if calc_output and unit_of(key) is None and SIZE_UNITS.search(line):
                continue
            if any(re.search(pattern, line) for pattern in forms(key, value, calc_output)):
                problems.append(f"{label}:{number}: prints the answer to {key} ({value}): {line.strip()[:120]}")


# ---- Rule 2, the student bundle: every file a student receives, checked for the answers the chapter does not give ----

SECRET_SECTION = re.compile(r"case|exercise_\w+|experiment_\w+")
ANSWER = re.compile(r"\banswers?\s*(?:is|are|[:=])", re.I)  # "answer: N blocks" names whatever it stands by
# A case stated as answers.toml states it (`# case tile: m = 192, n = 64`): parameters, wherever it stands.
CASE_LINE = re.compile(r"\s*(?:#|//|\*)?\s*case \w+:(?:,?\s*\w+ = [\d.]+)+\s*$")
SKIP_TOP = {".deps", "out", "solutions"}  # outside a git checkout: .gitignore's, and the solutions
SKIP_ANY = {".git", "__pycache__"}


def secret(key):
    """A key of a question the chapter does not work: under a section named case, exercise_* or experiment_*."""
    return any(SECRET_SECTION.fullmatch(part) for part in key.split(".")[:-1])


def significant(text):
    """Significant digits of a printed number ("0.1234" → 4, "2,048" → 4, "2700" → 2)."""
    digits = re.sub(r"\D", "", text).lstrip("0")
    return len(digits) if "." in text else len(digits.rstrip("0"))


def distinctive(text, value):
    """A printed value no chance number in code would be: a fraction with 4 or more significant digits, an
    integer with 5 or more, or with 4 when it is not a multiple of 256 (sizes, rows, threads: 1536, 6144)."""
    n = significant(text)
    if "." in text or "%" in text or not float(value).is_integer():
        return n >= 4
    return n >= 5 or n == 4 and int(value) % 256 != 0


class Secret:
    """One key of a question the chapter does not work, with the ways a file may print and name it."""

    def __init__(self, lab, key, value, case_names):
        self.lab, self.key, self.value = lab, key, value
        patterns = forms(key, value)
        if not float(value).is_integer():  # in code a fraction stands bare, and to as many digits as it has
            own = significant(repr(float(value)))
            patterns += [rf"(?<![\w.]){re.escape(t)}(?![\d])" for t in {f"{value:.{d}g}" for d in range(4, min(own, 8) + 1)}
                         if "." in t]
        self.patterns = [re.compile(p) for p in patterns]
        # The longest run of digits each form holds: a line can print the form only if it holds that run.
        self.runs = [max(re.findall(r"\d+", p.pattern), key=len) for p in self.patterns]
        *sections, name = key.split(".")
        questions = []
        for section in sections:
            m = re.fullmatch(r"(exercise|experiment)_(\d+)_(\d+)", section)
            if m:
                questions.append(rf"\b{m[1]}[\s_-]*{m[2]}[-_.]{m[3]}\b")
            if section == "case":
                questions += [rf"\bcase[\s_-]+{re.escape(c)}\b" for c in case_names]
        self.question = re.compile("|".join(questions), re.I) if questions else None
        words = [w for w in name.split("_") if w not in UNITS and not w.isdigit()]
        self.name = re.compile(r"(?<![a-z])" + r"[\s_-]+".join(map(re.escape, words)) + r"(?![a-z])", re.I) if words else None


def secrets(solution):
    """The keys of a solution's answers.toml that a file of the bundle must not print (see the docstring)."""
    text = solution.read_text()
    keys = dict(flatten(tomllib.loads(text)))
    public = {v for k, v in keys.items() if not secret(k) and not k.startswith("measured.")}
    case_lines = [line for line in text.splitlines() if re.match(r"\s*#\s*case \w+:", line)]
    case_names = [re.match(r"\s*#\s*case (\w+):", line)[1] for line in case_lines]
    params = parameters(keys) | {int(float(n)) for line in case_lines
                                 for n in re.findall(r"(?<![\w.])\d+(?:\.\d+)?", line) if float(n).is_integer()}
    out = []
    for key, value in keys.items():
        if not secret(key) or isinstance(value, bool) or not isinstance(value, (int, float)) or value in public:
            continue
        if float(value).is_integer() and int(value) in params:
            continue
        out.append(Secret(solution.parent.name, key, value, case_names))
    return out


def bundle_files(root):
    """The student bundle's files, relative to root: git's list in a checkout, else every file, skipping the
    build trees and what .gitignore names."""
    if (root / ".git").exists():
        try:
            listed = subprocess.run(["git", "-C", str(root), "ls-files", "-co", "--exclude-standard", "-z"],
                                    capture_output=True, text=True)
        except OSError:  # no git: walk the tree
            listed = None
        if listed and listed.returncode == 0:
            return sorted(p for p in listed.stdout.split("\0") if p and not p.startswith("solutions/"))
    out = []
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        top = rel.parts[0] if len(rel.parts) > 1 else ""
        if top in SKIP_TOP or top.startswith("build") or any(part in SKIP_ANY for part in rel.parts[:-1]):
            continue
        if path.is_file() and not path.name.endswith(".swp"):
            out.append(rel.as_posix())
    return out


def readable(path, rel):
    """A file's text as a reader sees it, or None (binary, not a file). SVG: the text of its labels only (its
    coordinates and paths are geometry). JSON: numbers in exponent notation written out (Google Benchmark
    writes 2.0e+02 for 200), so that a counter holding an answer shows as the answer."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if b"\0" in data[:8192]:
        return None
    try:
        text = data.decode()
    except UnicodeDecodeError:
        return None
    if rel.endswith(".svg"):
        text = re.sub(r"<[^>]*>", " ", text)
    if rel.endswith(".json"):
        def plain(m):
            f = float(m[0])
            return str(int(f)) if f.is_integer() and abs(f) < 1e15 else repr(f)
        text = re.sub(r"-?\d+(?:\.\d+)?[eE][+-]?\d+", plain, text)
    return text


def scan_bundle(root, labs, problems):
    """Checks every file of the student bundle for the secret keys' values (the rule in the docstring)."""
    for rel in bundle_files(root):
        lab = re.match(r"labs/([^/]+)/", rel)
        if lab and rel in (f"labs/{lab[1]}/README.md", f"labs/{lab[1]}/answers.toml"):
            continue  # the handout rule, stricter
        if re.match(r"datasets/(devices|traces)/", rel):
            continue  # the models' inputs
        keys = labs.get(lab[1], []) if lab else [s for secrets_ in labs.values() for s in secrets_]
        if not keys:
            continue
        text = readable(root / rel, rel)
        if text is None:
            continue
        bench_output = rel.endswith(".json")
        markdown = rel.endswith(".md")
        runs = set(re.findall(r"\d+", text))
        keys = [s for s in keys if any(r in runs for r in s.runs)]
        if not keys:
            continue
        lines = text.splitlines()
        head = para = 0  # the lines that open this one's block (a heading, else the last unindented line) and paragraph
        for number, line in enumerate(lines, 1):
            if re.match(r"#{1,6}\s" if markdown else r"\S", line):
                head = number - 1
            if not line.strip():
                para = number
            if CASE_LINE.match(line):
                continue
            runs = set(re.findall(r"\d+", line))
            window = None
            for s in keys:
                for pattern, run in zip(s.patterns, s.runs):
                    m = run in runs and pattern.search(line)
                    if not m:
                        continue
                    printed = m[0]
                    if not float(s.value).is_integer() and significant(printed) < 3:
                        continue  # a fraction in one or two digits (a half, a rounded percentage): everyday constants
                    if distinctive(printed, s.value):
                        why = "prints"
                    elif bench_output:
                        continue
                    else:
                        if window is None:
                            window = "\n".join([lines[head]] + lines[max(head, para):number])
                        if s.name and s.name.search(line):
                            why = "names and prints"
                        elif s.question and s.question.search(window) or ANSWER.search(line):
                            why = "names the question and prints"
                        else:
                            continue
                    label = f"{rel}:{number}"
                    problems.append(f"{label}: {why} the answer to {s.lab}/{s.key} ({s.value}): {line.strip()[:120]}")
                    break


def main(source_dir, outputs, bundle=None):
    root = pathlib.Path(source_dir)
    shipped = pathlib.Path(bundle) if bundle else root  # where the handouts and the bundle's files are read
    problems = []
    every_key = {}
    labs = {}
    for solution in sorted(root.glob("solutions/*/answers.toml")):
        lab = shipped / "labs" / solution.parent.name
        labs[solution.parent.name] = secrets(solution)
        keys = dict(flatten(tomllib.loads(solution.read_text())))
        every_key.update({f"{solution.parent.name}/{k}": v for k, v in keys.items()})
        for path, comments_only in [(lab / "README.md", False), (lab / "answers.toml", True)]:
            if path.exists():
                scan(path, str(path.relative_to(shipped)), keys, comments_only, problems, params=parameters(keys))
    for output in outputs:
        # "NN:path" checks a calculator's output against lab NN's keys only (the lab whose parameters it used);
        # a bare path against every lab's.
        lab_id, _, path = output.rpartition(":") if ":" in output else ("", "", output)
        keys = {k: v for k, v in every_key.items() if not lab_id or k.startswith(lab_id + "_")}
        scan(pathlib.Path(path), path, keys, False, problems, calc_output=True)
    scan_bundle(shipped, labs, problems)
    if bundle:  # a release: nothing of the instructor's may be in it at all
        for path in [shipped / "solutions", *shipped.glob("**/wrong")]:
            if path.exists():
                problems.append(f"{path.relative_to(shipped)}: the solutions or known-bad versions, in a student release")
    for p in problems:
        print("FAIL " + p)
    print(f"{len(problems)} printed answer(s)" if problems else "ok: no handout or answers.toml prints a graded answer, nor any file of "
          "the student bundle the answer to a question the chapter does not work")
    return 1 if problems else 0


if __name__ == "__main__":
    args = sys.argv[1:]
    bundle_dir = None
    if len(args) >= 2 and args[0] == "--bundle":  # --bundle DIR: a student release, checked with SOURCE_DIR's keys
        bundle_dir, args = args[1], args[2:]
    if not args:
        sys.exit("usage: check_printed_keys.py [--bundle RELEASE_DIR] SOURCE_DIR [OUTPUT...]")
    sys.exit(main(args[0], args[1:], bundle_dir))
