"""Shared by the labs' results_table.py scripts: writes a table regenerated from a benchmark's JSON
between the <!-- results:begin --> and <!-- results:end --> markers of a handout, so that no result
in a handout is typed by hand. header() gives a table's first lines and measured_by() the line under it;
write_results() also serves tables between other markers (lab 07's figures.py: its capacity table)."""
import json
import re
import sys

from bench_json import measured_runs


def measured_by(bench, context, extra="", l2_flushed=True):
    """The closing line under a table: which benchmark, when, where."""
    host = context.get("host_name", "")
    flushed = "; L2 flushed before each run" if l2_flushed else ""
    return (f"Measured by `{bench}` ({context.get('date', '')}{'; ' + extra if extra else ''}{flushed}"
            f"{'; host ' + host if host else ''}).")


def header(*columns):
    """A Markdown table's first two lines: the columns' headings, and the rule under them."""
    return ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]


def write_results(readme_path, lines, markers="results", script="results_table"):
    """Replaces what stands between the markers of readme_path (<!-- results:begin --> and <!-- results:end -->,
    or those named markers) with lines, and prints them; script names the caller when they are missing."""
    text = open(readme_path).read()
    new, n = re.subn(rf"(<!-- {markers}:begin -->\n).*?(<!-- {markers}:end -->)",
                     lambda m: m.group(1) + "\n".join(lines) + "\n" + m.group(2), text, flags=re.S)
    if n != 1:
        sys.exit(f"{script}: the {markers} markers are not in " + readme_path)
    open(readme_path, "w").write(new)
    print("\n".join(lines))


def main(doc, table_lines):
    """A results_table.py's command line: BENCH.json README.md. table_lines(benchmarks, context) returns
    the lines of the tables from the benchmark's JSON output (its "benchmarks" and "context")."""
    if len(sys.argv) != 3:
        sys.exit(doc)
    data = json.load(open(sys.argv[1]))
    write_results(sys.argv[2], table_lines(measured_runs(data), data.get("context", {})))


def require_runs(found, what):
    """Exits with "results_table: no WHAT in BENCH.json" unless found (the runs a table needs) holds something."""
    if not found:
        sys.exit(f"results_table: no {what} in " + sys.argv[1])


def microseconds(b):
    """A benchmark's real time in µs, whatever unit it was reported in."""
    return b["real_time"] * {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}[b["time_unit"]]
