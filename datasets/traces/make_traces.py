#!/usr/bin/env python3
"""Writes lab 09's call traces: the row count M of each FFN-projection call an inference server makes, one per
line, in the order they arrive. Deterministic: the same seed writes the same files (Python's random module,
whose sequences for a seed are stable across versions).

    python3 datasets/traces/make_traces.py [--seed 2026] [--calls 2000] [--out datasets/traces]

Each call is a decode step or a prefill:
- a decode step projects one row per running request: M is the batch of requests decoding together, 1 … 64,
  half of the time one of the batch sizes a scheduler favours (1, 8, 16, 32, 64), else any;
- a prefill projects a whole prompt: M is its length, log-uniform between 128 and 4096 tokens (prompts are not
  rounded, so most prefill shapes are seen once).

Three mixes: decode_heavy (90% decode), prefill_heavy (30% decode), mixed (60% decode). The files start with
comment lines (#) saying how they were made, then a header line `rows`, then one integer per line.
"""
import argparse
import math
import pathlib
import random

MIXES = {"decode_heavy": 0.9, "prefill_heavy": 0.3, "mixed": 0.6}
FAVOURED = (1, 8, 16, 32, 64)


def call(rng, decode_share):
    if rng.random() < decode_share:
        return rng.choice(FAVOURED) if rng.random() < 0.5 else rng.randint(1, 64)
    return int(math.exp(rng.uniform(math.log(128), math.log(4096))))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--calls", type=int, default=2000)
    ap.add_argument("--out", default=str(pathlib.Path(__file__).resolve().parent))
    a = ap.parse_args()
    pathlib.Path(a.out).mkdir(parents=True, exist_ok=True)
    for i, (name, share) in enumerate(MIXES.items()):
        rng = random.Random(a.seed * 10 + i)
        rows = [call(rng, share) for _ in range(a.calls)]
        path = pathlib.Path(a.out) / f"{name}.csv"
        head = (f"# {name}: {a.calls} calls, {round(100 * share)}% decode steps (M 1-64), the rest prefills (M 128-4096,\n"
                f"# log-uniform). Written by datasets/traces/make_traces.py --seed {a.seed} --calls {a.calls}; do not edit.\n")
        path.write_text(head + "rows\n" + "".join(f"{m}\n" for m in rows))
        print(f"wrote {path}: {len(set(rows))} distinct shapes, {sum(rows)} rows")


if __name__ == "__main__":
    main()
