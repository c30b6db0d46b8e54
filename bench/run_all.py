"""Run every ``bench/bench_*.py`` and print one table (``make bench``).

A benchmark module either defines ``WORKLOAD`` and ``run() -> list[dict]`` with rows
``{workload, impl, us_per_op, ratio_to_torch}`` (collected into the common table printed
at the end), or ``main()`` (or ``main(argv)``, called with ``[]``), which prints its own
table.  ``python bench/run_all.py
scalar_graph`` runs only the named benchmarks.
"""
from __future__ import annotations

import importlib
import inspect
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent


def print_table(rows: list[dict]) -> None:
    """Rows as an aligned text table."""
    head = ("workload", "impl", "us/op", "x torch")
    body = [(r["workload"], r["impl"], f"{r['us_per_op']:.2f}",
             "-" if r["ratio_to_torch"] is None else f"{r['ratio_to_torch']:.2f}") for r in rows]
    widths = [max(len(str(c)) for c in col) for col in zip(head, *body)]
    line = "  ".join("{:<%d}" % w for w in widths)
    print(line.format(*head).rstrip())
    print("  ".join("-" * w for w in widths))
    for b in body:
        print(line.format(*b).rstrip())


def main(argv: list[str]) -> int:
    sys.path.insert(0, str(HERE))
    only = set(argv)
    rows = []
    for path in sorted(HERE.glob("bench_*.py")):
        if only and path.stem not in only and path.stem[len("bench_"):] not in only:
            continue
        mod = importlib.import_module(path.stem)
        print(f"== {path.name}", flush=True)
        if hasattr(mod, "WORKLOAD") and hasattr(mod, "run"):
            rows.extend(mod.run())
            print("(in the table below)")
        elif inspect.signature(mod.main).parameters:
            mod.main([])  # its own defaults, not run_all's command line
        else:
            mod.main()
        print(flush=True)
    if rows:
        print_table(rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
