#!/usr/bin/env python3
"""Fails when a lab's handout or answers.toml prints the answer to one of its graded questions.

    check_printed_keys.py SOURCE_DIR

The rule (docs/grading.md, "Paper exercises"): a handout works the chapter's examples to teach the method,
but no graded key's value appears in the handout (labs/NN_x/README.md) or in a comment of the student's
answers.toml. The keys at the stated cases are read from the reference answers (solutions/NN_x/answers.toml,
which score full marks: the lab's solution_answers_full test checks that). A value is looked for in the
forms a writer would print it: an integer with or without thousands separators, and with its unit when the
key names one (..._mib → "6168 MiB"); a fraction with 2 to 4 significant digits, or as a percentage.
Integers up to 16 are allowed (they are everywhere: tile counts, steps, small examples), and one up to 100
counts only with its unit, as does a power of two (sizes and thread counts are everywhere); a larger one
counts wherever it stands (in a table its unit is in the header).
Exit 0 when nothing is printed, 1 otherwise (each finding names the file, line, key and text).
"""
import pathlib
import re
import sys
import tomllib

UNITS = {"mib": "MiB", "kib": "KiB", "gib": "GiB", "gflop": "GFLOP"}
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


def forms(key, value):
    """Regular expressions for the ways `value` would be printed."""
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
            if unit and (abs(n) <= 100 or (n > 0 and n & (n - 1) == 0)):  # small, or a power of two:  # "24 KiB": a small number only with its unit (a bare 24 means little)
                out.append(rf"(?<![\d.,]){body}\s*{unit}\b")
            else:
                out.append(rf"(?<![\d.,]){body}(?![\d]|[.,]\d)")
        return out
    # A fraction: with decimals (a bare "32" for 31.75 would be everywhere), with its unit when rounded to a
    # whole number ("103 GFLOP"), or as a percentage ("21%").
    for digits in (2, 3, 4):
        t = f"{value:.{digits}g}"
        if "." in t:
            out.append(rf"(?<![\d.]){re.escape(t)}(?![\d])")
        elif unit:
            out.append(rf"(?<![\d.,]){re.escape(t)}\s*{unit}\b")
        if 0 < abs(value) < 1:
            out.append(rf"(?<![\d.]){re.escape(f'{100 * value:.{digits - 1}g}')}\s*%")
    return out


def main(source_dir):
    root = pathlib.Path(source_dir)
    problems = []
    for solution in sorted(root.glob("solutions/*/answers.toml")):
        lab = root / "labs" / solution.parent.name
        keys = dict(flatten(tomllib.loads(solution.read_text())))
        files = [(lab / "README.md", False), (lab / "answers.toml", True)]
        for path, comments_only in files:
            if not path.exists():
                continue
            for number, line in enumerate(path.read_text().splitlines(), 1):
                text = line
                if comments_only:
                    if not line.lstrip().startswith("#"):
                        continue
                for key, value in keys.items():
                    for pattern in forms(key, value):
                        if re.search(pattern, text):
                            problems.append(f"{path.relative_to(root)}:{number}: prints the answer to {key} "
                                            f"({value}): {line.strip()[:120]}")
                            break
    for p in problems:
        print("FAIL " + p)
    print(f"{len(problems)} printed answer(s)" if problems else "ok: no handout or answers.toml prints a graded answer")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
