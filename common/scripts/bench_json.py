"""Shared by the labs' figures.py and results_table.py scripts: the runs in what a lab's bench writes with
--benchmark_format=json (Google Benchmark's JSON), picked out one way: measured_runs() drops the aggregates and
the failed runs, runs_by_name() keys the runs by what their names say (a variant, a size)."""
import re


def measured_runs(data):
    """The runs of a benchmark's JSON output that measured something: no aggregate (mean, median, …) and none
    that failed."""
    return [b for b in data["benchmarks"] if b.get("run_type") != "aggregate" and not b.get("error_occurred")]


def runs_by_name(runs, pattern, *types):
    """The runs whose name matches the regular expression pattern, each under the groups of its match, converted
    by types (a type per group: int, str): the one value with one group, else their tuple. Of two runs with one
    key, the later is kept."""
    def key(m):
        k = tuple(t(g) for t, g in zip(types, m.groups()))
        return k if len(k) > 1 else k[0]
    return {key(m): b for b in runs if (m := re.match(pattern, b["name"]))}
