"""The long fuzz run: ``python -m tests.fuzz --minutes 10`` (from the repository root, with
``src`` on ``PYTHONPATH``).

Draws programs from consecutive seeds (``--seed`` is the first), runs each in torch and in
retrograd, and prints the number of programs, of steps, of misuse cases compared (steps where
torch raised) and the mismatches by kind, with the first few of each kind.  The programs run in a
worker process: a program that crashes the interpreter (a segfault in either library) is counted
as a ``crash`` and the run goes on from the next seed.  A failing seed is replayed with
``--replay SEED`` (prints the program and its first mismatch).
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import time

from .program import RandomChooser, check_counted, describe, generate

KINDS = ("forward", "stride", "grad", "grad2", "hook", "exc_type", "exc_msg", "no_raise", "extra_raise", "harness",
         "crash")


def _worker(seed: int, steps: int) -> None:
    """One JSON line per program, from ``seed`` on, until killed."""
    import warnings

    warnings.simplefilter("ignore")
    while True:
        print(json.dumps({"seed": seed, "start": True}), flush=True)
        program = generate(RandomChooser(seed), steps)
        try:
            found, stats = check_counted(program)
        except Exception as e:  # noqa: BLE001 - a crash of the harness itself is reported, not fatal
            found, stats = ("harness", f"{type(e).__name__}: {e}"), {}
        print(json.dumps({"seed": seed, "found": found, "stats": stats}), flush=True)
        seed += 1


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.fuzz", description=__doc__.split("\n\n")[0])
    ap.add_argument("--minutes", type=float, default=10.0, help="how long to run (default 10)")
    ap.add_argument("--seed", type=int, default=0, help="first seed (default 0)")
    ap.add_argument("--steps", type=int, default=30, help="most op steps per program (default 30)")
    ap.add_argument("--show", type=int, default=3, help="mismatches printed per kind (default 3)")
    ap.add_argument("--replay", type=int, default=None, help="print one seed's program and mismatch")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        _worker(args.seed, args.steps)
        return 0
    if args.replay is not None:
        program = generate(RandomChooser(args.replay), args.steps)
        print(describe(program))
        print(check_counted(program)[0])
        return 0
    counts = collections.Counter()
    examples = collections.defaultdict(list)
    totals = collections.Counter()
    t0 = time.monotonic()
    deadline = t0 + args.minutes * 60
    seed = args.seed
    while time.monotonic() < deadline:
        worker = subprocess.Popen([sys.executable, "-m", "tests.fuzz", "--worker", "--seed", str(seed),
                                   "--steps", str(args.steps)], stdout=subprocess.PIPE, text=True,
                                  env=dict(os.environ), bufsize=1)
        current, timed_out = seed, False
        for line in worker.stdout:
            msg = json.loads(line)
            current = msg["seed"]
            if msg.get("start"):
                if time.monotonic() >= deadline:
                    timed_out = True
                    break
                continue
            totals["programs"] += 1
            totals.update(msg["stats"])
            found = msg["found"]
            if found:
                counts[found[0]] += 1
                if len(examples[found[0]]) < args.show:
                    examples[found[0]].append((current, found[1]))
            seed = current + 1
        if timed_out:
            worker.kill()
            worker.wait()
            break
        worker.wait()
        # the worker died inside program ``current``: a crash; go on after it
        totals["programs"] += 1
        counts["crash"] += 1
        if len(examples["crash"]) < args.show:
            examples["crash"].append((current, f"the interpreter died (exit status {worker.returncode})"))
        seed = current + 1
    elapsed = time.monotonic() - t0
    print(f"seeds {args.seed}..{seed - 1}: {totals['programs']} programs in {elapsed:.0f} s, "
          f"{totals['steps']} op steps, {totals['misuse']} misuse cases compared (torch raised), "
          f"{totals['backward']} programs with a backward pass, {totals['grad2']} with a second derivative")
    print("mismatches by kind (programs whose first mismatch is of that kind):")
    for k in KINDS:
        print(f"  {k:12s} {counts[k]}")
    for k in KINDS:
        for s, d in examples[k]:
            print(f"[{k}] seed {s}: {d[:400]}")
    return 1 if counts else 0


if __name__ == "__main__":
    sys.exit(main())
