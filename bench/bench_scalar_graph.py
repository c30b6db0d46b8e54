"""Benchmark: the seed's scalar graphs, scaled to 10,000 ops on 0-d tensors.

The seed (``/work/shared/seed/autograd-blog.txt``) builds ``y = (x + 1) * (x + 2)`` and
``z = x * x * y`` on 0-d tensors.  Here one *block* chains both patterns through a
running value ``h``::

    a = add(h, 1); b = add(h, 2); c = mul(a, b); d = mul(c, x); h = mul(d, y)

(5 ops; ``x`` and ``y`` are leaves that require grad, so their gradients accumulate over
every block).  2,000 blocks give 10,000 ops; then ``h.backward()``.  ``h`` stays bounded
(``h -> 0.1 (h + 1)(h + 2)`` has a stable fixed point near 0.3), so no value overflows.

Three implementations run the same graph in one process:

* retrograd (``import retrograd as torch``), once per backward engine (fast, reference),
* torch 2.13 CPU (skipped when not installed),
* plain NumPy: the forward on 0-d float32 arrays with a hand-written tape and backward.

Each runs in its own fresh interpreter (a full garbage collection walks every live Python
object, so a process that also imported torch would make retrograd pay for torch's
heap), is timed forward + backward + freeing the graph (best CPU time of ``repeats``), checked
to compute the same numbers, and reported as microseconds per op and as a ratio to
torch.  Run ``python bench/bench_scalar_graph.py [--repeats 10] [--threads 1] [--clock cpu|wall]
[--engine fast] [--engine reference]`` or ``python bench/run_all.py``.
"""
from __future__ import annotations

import importlib
import json
import pathlib
import subprocess
import sys
import time

import numpy as np

WORKLOAD = "scalar graph (seed), 10k ops on 0-d, fwd+bwd"
N_BLOCKS = 2000
OPS_PER_BLOCK = 5
N_OPS = N_BLOCKS * OPS_PER_BLOCK
X0, Y0, H0 = 0.2, 0.5, 1.0


def graph_torchlike(torch, n_blocks: int = N_BLOCKS):
    """Forward + backward with a torch-like module; returns (h, x.grad, y.grad) as floats."""
    x = torch.tensor(X0, requires_grad=True)
    y = torch.tensor(Y0, requires_grad=True)
    h = torch.tensor(H0, requires_grad=True)
    add, mul = torch.add, torch.mul
    for _ in range(n_blocks):
        a = add(h, 1)
        b = add(h, 2)
        c = mul(a, b)
        d = mul(c, x)
        h = mul(d, y)
    h.backward()
    return float(h.detach()), float(x.grad), float(y.grad)


def graph_numpy(n_blocks: int = N_BLOCKS):
    """The same graph by hand: forward with a tape of what backward needs, then backward."""
    f32 = np.float32
    x = np.array(X0, dtype=f32)
    y = np.array(Y0, dtype=f32)
    h = np.array(H0, dtype=f32)
    one, two = np.array(1, dtype=f32), np.array(2, dtype=f32)
    tape = []
    append = tape.append
    for _ in range(n_blocks):
        a = h + one
        b = h + two
        c = a * b
        d = c * x
        append((a, b, c, d))
        h = d * y
    # backward: dh/dh = 1; walk the blocks newest first.
    gh = np.array(1, dtype=f32)
    gx = np.array(0, dtype=f32)
    gy = np.array(0, dtype=f32)
    for a, b, c, d in reversed(tape):
        gy = gy + gh * d
        gd = gh * y
        gx = gx + gd * c
        gc = gd * x
        ga = gc * b
        gb = gc * a
        gh = ga + gb
    return float(h), float(gx), float(gy)


def _best(fn, repeats: int, clock: str = "cpu") -> float:
    # CPU time of this (single-threaded) process by default: steadier than wall time on a
    # shared machine, and the same clock for every implementation.
    perf = time.perf_counter if clock == "wall" else time.process_time
    best = float("inf")
    for _ in range(repeats):
        t0 = perf()
        fn()
        best = min(best, perf() - t0)
    return best


def _limit_threads(threads: int) -> object:
    """Limit NumPy's BLAS (threadpoolctl, when installed) and torch to ``threads`` threads."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        if threads != 1:  # (never silently ignored: without threadpoolctl only the environment can set it)
            raise SystemExit("--threads needs threadpoolctl (or set OPENBLAS_NUM_THREADS)") from None
        return None
    return threadpool_limits(limits=threads)


def _measure(impl: str, repeats: int, clock: str = "cpu", threads: int = 1, engine: str | None = None) -> dict:
    """Time one implementation in this process: {'seconds': best, 'result': (h, dx, dy)}."""
    limits = _limit_threads(threads)  # noqa: F841  (kept alive: the limit holds while it exists)
    if impl == "numpy (by hand)":
        fn = graph_numpy
    else:
        mod = importlib.import_module(impl)
        if impl == "torch":
            mod.set_num_threads(threads)
        elif engine is not None:
            mod.autograd.set_backward_engine(engine)
        fn = lambda: graph_torchlike(mod)  # noqa: E731
    result = fn()  # warm-up, and the numbers compared across implementations
    return {"seconds": _best(fn, repeats, clock), "result": result}


IMPLS = ("retrograd", "torch", "numpy (by hand)")
ENGINES = ("fast", "reference")  # retrograd's backward engines (autograd.set_backward_engine)


def run(repeats: int = 10, clock: str = "cpu", threads: int = 1, engines: tuple = ENGINES) -> list[dict]:
    """Time every implementation; rows of {workload, impl, us_per_op, ratio_to_torch}.

    Each implementation (and each of retrograd's ``engines``) runs in its own fresh
    interpreter, so none pays for another's heap (a full garbage collection walks every
    Python object, torch's ~165k included).
    """
    import importlib.util

    have_torch = importlib.util.find_spec("torch") is not None
    times = {}
    ref = graph_numpy()
    runs = [(impl, None) for impl in IMPLS if impl != "retrograd"]
    runs[:0] = [("retrograd", e) for e in engines]
    for impl, engine in runs:
        if impl == "torch" and not have_torch:  # torch is a test-only dependency
            continue
        cmd = [sys.executable, __file__, "--impl", impl, "--repeats", str(repeats), "--clock", clock,
               "--threads", str(threads)] + (["--engine", engine] if engine else [])
        proc = subprocess.run(cmd, capture_output=True, text=True, check=True)
        got = json.loads(proc.stdout.strip().splitlines()[-1])
        # Same numbers everywhere, or the timing compares different work.
        if not np.allclose(got["result"], ref, rtol=1e-4):
            raise AssertionError(f"{impl} computed {got['result']}, expected {ref}")
        times[impl if engine is None else f"{impl} ({engine} engine)"] = got["seconds"]
    t_torch = times.get("torch")
    return [{"workload": WORKLOAD, "impl": name, "us_per_op": t / N_OPS * 1e6,
             "ratio_to_torch": (t / t_torch) if t_torch else None}
            for name, t in times.items()]


def main(argv: list[str]) -> None:
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=10, help="timed runs per implementation (the best is kept)")
    ap.add_argument("--threads", type=int, default=1, help="BLAS threads for NumPy and torch")
    ap.add_argument("--clock", choices=("cpu", "wall"), default="cpu",
                    help="cpu: this process's CPU time (steadier on a loaded machine); wall: perf_counter")
    ap.add_argument("--engine", choices=ENGINES, action="append",
                    help="retrograd's backward engine (repeat for several; default: every one)")
    ap.add_argument("--impl", help=argparse.SUPPRESS)  # (a child process: one implementation, JSON out)
    args = ap.parse_args(argv)
    if args.impl:
        engine = args.engine[0] if args.engine else None
        print(json.dumps(_measure(args.impl, args.repeats, args.clock, args.threads, engine)))
        return
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
    from run_all import print_table

    print_table(run(args.repeats, args.clock, args.threads, tuple(args.engine or ENGINES)))


if __name__ == "__main__":
    main(sys.argv[1:])
