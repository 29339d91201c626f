#!/usr/bin/env python3
"""Fails when a lab's handout or answers.toml prints the answer to one of its graded questions.

    check_printed_keys.py SOURCE_DIR [OUTPUT...]

The rule (docs/grading.md, "Paper exercises"): a handout works the chapter's examples to teach the method,
but no graded key's value appears in the handout (labs/NN_x/README.md) or in a comment of the student's
answers.toml. The keys at the stated cases are read from the reference answers (solutions/NN_x/answers.toml,
which score full marks: the lab's solution_answers_full test checks that). A value is looked for in the
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
Exit 0 when nothing is printed, 1 otherwise (each finding names the file, line, key and text).
"""
import pathlib
import re
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


def main(source_dir, outputs):
    root = pathlib.Path(source_dir)
    problems = []
    every_key = {}
    for solution in sorted(root.glob("solutions/*/answers.toml")):
        lab = root / "labs" / solution.parent.name
        keys = dict(flatten(tomllib.loads(solution.read_text())))
        every_key.update({f"{solution.parent.name}/{k}": v for k, v in keys.items()})
        for path, comments_only in [(lab / "README.md", False), (lab / "answers.toml", True)]:
            if path.exists():
                scan(path, str(path.relative_to(root)), keys, comments_only, problems, params=parameters(keys))
    for output in outputs:
        # "NN:path" checks a calculator's output against lab NN's keys only (the lab whose parameters it used);
        # a bare path against every lab's.
        lab_id, _, path = output.rpartition(":") if ":" in output else ("", "", output)
        keys = {k: v for k, v in every_key.items() if not lab_id or k.startswith(lab_id + "_")}
        scan(pathlib.Path(path), path, keys, False, problems, calc_output=True)
    for p in problems:
        print("FAIL " + p)
    print(f"{len(problems)} printed answer(s)" if problems else "ok: no handout or answers.toml prints a graded answer")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2:]))
