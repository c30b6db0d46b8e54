"""Run every ``bench/bench_*.py`` and print one table (``make bench``).

Each benchmark module defines ``WORKLOAD`` and ``run() -> list[dict]`` whose rows have
``workload``, ``impl``, ``us_per_op`` and ``ratio_to_torch`` (None without torch).
"""
from __future__ import annotations

import importlib
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
    print(line.format(*head))
    print("  ".join("-" * w for w in widths))
    for b in body:
        print(line.format(*b))


def main(argv: list[str]) -> int:
    sys.path.insert(0, str(HERE))
    only = set(argv)
    rows = []
    for path in sorted(HERE.glob("bench_*.py")):
        if only and path.stem not in only and path.stem[6:] not in only:
            continue
        mod = importlib.import_module(path.stem)
        print(f"running {path.name} ...", file=sys.stderr, flush=True)
        rows.extend(mod.run())
    print_table(rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
