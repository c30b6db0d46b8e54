"""Random programs, run in torch and in retrograd, and the comparison of what they did.

A program is a list of steps:

* ``("input", values, dtype, layout, requires_grad)``: a new leaf (``layout``: "contiguous",
  "transposed" (a transposed view made into a leaf) or "sliced" (every other row of a larger
  tensor));
* ``("op", name, operand indices, static kwargs)``: one entry of ``ops.OPS``;
* ``("loss", indices)``: the last step: ``sum((t * w).sum())`` over those values, then
  ``backward(retain_graph=True)`` (leaf ``.grad``, ``retain_grad`` and hooks), ``autograd.grad``
  with ``create_graph=True``, and a second derivative through that.

``generate(ch)`` draws a program from the chooser ``ch`` (hypothesis' ``data`` or a seeded
``random.Random``), running torch as it goes so each op is drawn for its operands' real shapes.
``run(L, program)`` executes it on a library and returns its log; ``compare`` returns the first
mismatch between two logs, as ``(kind, detail)``, or ``None``.
"""
from __future__ import annotations

import math
import random
import warnings

import numpy as np

from ..parity import torch_part
from .ops import BY_NAME, OPS

SPECIAL = (0.0, -0.0, math.inf, -math.inf, math.nan)
NICE = (0.0, 1.0, -1.0, 2.0, -2.0, 0.5, -0.5, 1.5, 3.0, -3.0, 0.25, 0.1, -0.7, 0.3)
GROWING = {"expand", "cat", "stack", "pad", "einsum", "matmul"}
MAX_NUMEL = 60  # operands larger than this only shrink or keep their size (programs stay fast)
# Ops whose result's sign of zero, when +0 and -0 tie, depends on the CPU in torch (SIMD lanes of
# its vectorized reductions: max()/min() of all elements; amax/amin and max/min along a dim keep
# the first tied zero only for slices shorter than a vector; maximum/minimum return the first
# operand on the scalar path and the second on the vector path): zeros from them, and from values
# computed from them, are compared without their sign.
CPU_ZERO_SIGN = {"max", "min", "median", "norm", "maximum", "minimum"}
SHORT_ZERO_SIGN = {"amax", "amin", "max_dim", "min_dim", "median_dim", "sort", "prod", "cumprod"}


# ------------------------------------------------------------------ choosers
class RandomChooser:
    """Draws from a seeded ``random.Random`` (the long run)."""

    def __init__(self, seed: int):
        self.r = random.Random(seed)

    def int(self, lo: int, hi: int) -> int:
        return self.r.randint(lo, hi)

    def pick(self, seq):
        return seq[self.r.randrange(len(seq))]

    def coin(self, p: float = 0.5) -> bool:
        return self.r.random() < p


class HypothesisChooser:
    """Draws from hypothesis' ``data`` so failing programs shrink (towards fewer, plainer steps)."""

    def __init__(self, data):
        from hypothesis import strategies as st
        self.data, self.st = data, st

    def int(self, lo: int, hi: int) -> int:
        return self.data.draw(self.st.integers(lo, hi))

    def pick(self, seq):
        return seq[self.data.draw(self.st.integers(0, len(seq) - 1))]

    def coin(self, p: float = 0.5) -> bool:
        # shrinks towards 0, i.e. towards False (the plainer choice)
        return self.data.draw(self.st.integers(0, 999)) >= 1000 - round(p * 1000)


# ------------------------------------------------------------------ generation
def _shape(ch) -> tuple:
    return tuple(ch.pick((1, 2, 2, 3, 3, 0)) if ch.coin(0.9) else 0 for _ in range(ch.int(0, 3)))


def _input(ch, shape, dtype) -> tuple:
    special = ch.coin(0.4)
    n = int(np.prod(shape)) if shape else 1
    vals = [ch.pick(SPECIAL) if special and ch.coin(0.25) else ch.pick(NICE) for _ in range(n)]
    layout = ch.pick(("contiguous", "contiguous", "transposed", "sliced"))
    return ("input", np.array(vals, dtype=np.float64).reshape(shape), dtype, layout, ch.coin(0.8))


def generate(ch, max_steps: int = 12) -> list:
    """A program of up to ``max_steps`` op steps (plus its inputs and the loss)."""
    import torch
    dtype = ch.pick(("float32", "float64"))
    other = "float64" if dtype == "float32" else "float32"
    program = [_input(ch, _shape(ch), dtype)]
    state = Runner(torch)
    state.step(program[0], 0)
    for _ in range(ch.int(1, max_steps)):
        floats = [i for i, t in enumerate(state.vals)
                  if t is not None and t.dtype.is_floating_point]
        if not floats or (ch.coin(0.08) and len(program) < 20):
            step = _input(ch, _shape(ch), dtype if ch.coin(0.8) else other)
            program.append(step)
            state.step(step, len(program) - 1)
            continue
        for _attempt in range(6):
            op = ch.pick(OPS)
            i = floats[-1] if ch.coin(0.6) else ch.pick(floats)
            x = state.vals[i]
            if op.name in GROWING and x.numel() > MAX_NUMEL:
                continue
            kw = op.make(ch, tuple(x.shape))
            if kw is not None:
                break
        else:
            continue
        idx = (i,)
        if op.arity == 2:
            pshape = op.partner(ch, tuple(x.shape))
            same = [j for j in floats if tuple(state.vals[j].shape) == pshape]
            if same and ch.coin(0.5):
                idx = (i, ch.pick(same))
            else:
                step = _input(ch, pshape, dtype if ch.coin(0.8) else other)
                program.append(step)
                state.step(step, len(program) - 1)
                idx = (i, len(state.vals) - 1)
        step = ("op", op.name, idx, kw)
        program.append(step)
        state.step(step, len(program) - 1)
    grads = [i for i, t in enumerate(state.vals)
             if t is not None and t.dtype.is_floating_point and t.requires_grad]
    if grads:
        roots = (grads[-1],) if ch.coin(0.7) or len(grads) == 1 else (grads[-1], ch.pick(grads[:-1]))
        program.append(("loss", roots))
    return program


# ------------------------------------------------------------------ execution
def _weights(L, t):
    """Loss weights 1, 1.25, 1.5, 1.75, 1, ...: exact in both dtypes, distinct so a wrong
    permutation of gradient entries shows."""
    n = t.numel()
    w = 1 + (L.arange(n, dtype=t.dtype) % 4) * 0.25
    return w.reshape(t.shape)


def _message(e: BaseException) -> str:
    return str(e).replace("retrograd.", "torch.").replace("retrograd", "torch")


class Runner:
    """Executes program steps on library ``L`` and logs what happened."""

    def __init__(self, L):
        self.L = L
        self.vals: list = []      # one entry per produced value (None where a step raised)
        self.depth: list = []     # ops on the longest path from the inputs to each value
        self.signed: list = []    # whether torch's sign of a zero in each value is the same on every CPU
        self.leaves: list = []
        self.marked: list = []    # (step, tensor) for retain_grad
        self.log: list = []
        self.phase = "forward"

    def _desc(self, t, depth, signed: bool = True):
        if not isinstance(t, (self.L.Tensor,)):
            return ("other", repr(t))
        if getattr(t, "_is_zerotensor", lambda: False)():  # torch's ZeroTensor grads have no numpy()
            a = np.zeros(tuple(t.shape), dtype=str(t.dtype).split(".")[-1])
        else:
            a = t.detach().numpy()
        return ("T", tuple(t.shape), tuple(t.stride()), str(t.dtype).split(".")[-1],
                bool(t.requires_grad), np.array(a, copy=True), depth, signed)

    def _hook(self, at: int, scale: bool):
        def hook(g):
            # (a backward pass redoes the forward chain: its values' tolerance as the gradients')
            depth = (3 if self.phase == "grad2" else 2) * max(self.depth, default=0) + 1
            self.log.append(("hook", self.phase, at, self._desc(g, depth)))
            return g * 2 if scale else None
        return hook

    def step(self, step, at: int = 0) -> None:
        """Run one ``input`` or ``op`` step (``at``: its index in the program, for the log)."""
        L = self.L
        if step[0] == "input":
            _, values, dtype, layout, rg = step
            dt = getattr(L, dtype)
            if layout == "transposed" and values.ndim >= 2:
                t = L.tensor(np.ascontiguousarray(values.swapaxes(-1, -2)), dtype=dt).transpose(-1, -2)
            elif layout == "sliced" and values.ndim >= 1:
                big = np.repeat(values, 2, axis=0)
                t = L.tensor(big, dtype=dt)[::2]
            else:
                t = L.tensor(values, dtype=dt)
            t = t.detach().requires_grad_(rg)
            if rg:
                self.leaves.append(t)
            self.vals.append(t)
            self.depth.append(0)
            self.signed.append(True)
            self.log.append(("value", self.phase, at, self._desc(t, 0)))
            return
        _, name, idx, kw = step
        op = BY_NAME[name]
        try:
            args = [self.vals[j] for j in idx]
            if any(a is None for a in args):
                raise LookupError("operand missing (an earlier step raised)")
        except LookupError as e:
            self.log.append(("broken", self.phase, at, str(e)))
            return
        depth = 1 + max(self.depth[j] for j in idx)
        signed = all(self.signed[j] for j in idx) and not (
            name in CPU_ZERO_SIGN or (name in SHORT_ZERO_SIGN and args[0].numel() > 8))
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                if op.mark:
                    x = args[0]
                    if name == "retain_grad":
                        x.retain_grad()
                        self.marked.append((at, x))
                    else:
                        x.register_hook(self._hook(at, name == "hook_scale"))
                    return
                r = op.run(L, *args, **kw)
        except Exception as e:  # noqa: BLE001 - compared with the other library's
            self.log.append(("raise", self.phase, at, type(e).__name__, _message(e)))
            return
        outs = r if isinstance(r, (tuple, list)) else (r,)
        for t in outs:
            self.vals.append(t)
            self.depth.append(depth)
            self.signed.append(signed)
            self.log.append(("value", self.phase, at, self._desc(t, depth, signed)))
        if name in ("contiguous", "reshape", "flatten") and args[0].numel() > 0:
            same = outs[0].untyped_storage().data_ptr() == args[0].untyped_storage().data_ptr()
            self.log.append(("alias", self.phase, at, same))

    def backward(self, roots) -> None:
        L = self.L
        try:
            depth = 2 * max(self.depth[j] for j in roots) + 1
            ts = [self.vals[j] for j in roots]
            loss = sum((t * _weights(L, t)).sum() for t in ts)
        except Exception as e:  # noqa: BLE001
            self.log.append(("raise", "loss", 0, type(e).__name__, _message(e)))
            return
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            self.phase = "backward"
            try:
                loss.backward(retain_graph=True)
                for k, t in enumerate(self.leaves):
                    self.log.append(("grad", self.phase, k, self._desc(t.grad, depth) if t.grad is not None else None))
                for at, t in self.marked:
                    self.log.append(("grad", self.phase, at, self._desc(t.grad, depth) if t.grad is not None else None))
            except Exception as e:  # noqa: BLE001
                self.log.append(("raise", self.phase, 0, type(e).__name__, _message(e)))
            if not self.leaves:
                return
            self.phase = "grad"
            try:
                gs = L.autograd.grad(loss, self.leaves, create_graph=True, allow_unused=True)
                for k, g in enumerate(gs):
                    self.log.append(("grad", self.phase, k, self._desc(g, depth) if g is not None else None))
            except Exception as e:  # noqa: BLE001
                self.log.append(("raise", self.phase, 0, type(e).__name__, _message(e)))
                return
            live = [g for g in gs if g is not None and g.requires_grad]
            if not live:
                return
            self.phase = "grad2"
            try:
                s = sum((g * _weights(L, g)).sum() for g in live)
                g2 = L.autograd.grad(s, self.leaves, allow_unused=True)
                for k, g in enumerate(g2):
                    self.log.append(("grad", self.phase, k,
                                     self._desc(g, 3 * depth) if g is not None else None))
            except Exception as e:  # noqa: BLE001
                self.log.append(("raise", self.phase, 0, type(e).__name__, _message(e)))


def run(L, program) -> list:
    r = Runner(L)
    with np.errstate(all="ignore"):
        for k, step in enumerate(program):
            if step[0] == "loss":
                r.backward(step[1])
            else:
                r.step(step, k)
    return r.log


# ------------------------------------------------------------------ comparison
# Tolerance.  Each op of the program is computed by both libraries from the same formula but
# not with the same roundings (NumPy vs ATen kernels, libm vs SLEEF, fused or unfused
# multiply-adds, pairwise vs blocked summation).  One op rounds its result relative to the
# magnitude of the terms it combines, by a few units of the least precise dtype in the program
# (C_OP); an error already present in an operand passes on multiplied by the op's condition
# number, which for the ops and values drawn here (|values| mostly <= 3, chains of <= 30 ops)
# is bounded by the magnitude of the values involved.  So after ``depth`` ops the difference is
# bounded by  C_OP * depth * eps * (|expected| * (1 + S) + S)  with S the largest finite
# magnitude the torch program produced so far (capped at S_MAX so the bound stays meaningful:
# a program whose values reach 1e30 is compared to 1e3's scale).  Backward passes redo the
# forward chain in reverse, so gradients take twice the forward depth and second derivatives
# three times (Runner.backward).  Non-finite values must match exactly, and zeros match in sign
# for forward values.
C_OP = 4
S_MAX = 1e3
EPS = {"float32": float(np.finfo(np.float32).eps), "float64": float(np.finfo(np.float64).eps),
       "float16": float(np.finfo(np.float16).eps), "bfloat16": 2.0 ** -7}


def _close(a: np.ndarray, e: np.ndarray, depth: int, eps: float, scale: float, signed: bool) -> str | None:
    if a.dtype.kind in "biu" or e.dtype.kind in "biu":
        return None if np.array_equal(a, e) else "integer values differ"
    a64, e64 = a.astype(np.float64), e.astype(np.float64)
    if a64.shape != e64.shape:
        return f"shape {a64.shape} vs torch {e64.shape}"
    nan_a, nan_e = np.isnan(a64), np.isnan(e64)
    if not np.array_equal(nan_a, nan_e):
        return f"NaN at different places: {np.argwhere(nan_a != nan_e)[:3].tolist()}"
    fin = np.isfinite(e64)
    inf = ~fin & ~nan_e
    if not np.array_equal(a64[inf], e64[inf]):
        return "infinities differ"
    if signed:
        z = (e64 == 0) & (a64 == 0)
        if not np.array_equal(np.signbit(a64[z]), np.signbit(e64[z])):
            return "signed zero differs"
    s = min(scale, S_MAX)
    bound = C_OP * max(depth, 1) * eps * (np.abs(e64) * (1 + s) + s)
    diff = np.abs(a64 - e64)
    bad = fin & ~(diff <= bound)
    if bad.any():
        k = np.argwhere(bad)[0]
        return f"value at {k.tolist()}: {a64[tuple(k)]!r} vs torch {e64[tuple(k)]!r}"
    return None


def _kind(entry) -> str:
    tag, phase = entry[0], entry[1]
    if tag == "hook":
        return "hook"
    if tag == "raise":
        return "extra_raise"
    if tag == "alias":
        return "stride"
    return {"forward": "forward", "backward": "grad", "grad": "grad", "grad2": "grad2", "loss": "forward"}[phase]


def compare(mine: list, theirs: list, program=None) -> tuple | None:
    """The first mismatch of retrograd's log ``mine`` against torch's ``theirs``:
    ``(kind, detail)`` with kind one of forward, stride, grad, grad2, hook, exc_type, exc_msg,
    no_raise, extra_raise; or ``None``."""
    eps = max((EPS.get(str(s[2]), 0.0) for s in (program or []) if s[0] == "input"), default=EPS["float32"])
    scale = 1.0
    for k, e in enumerate(theirs):
        a = mine[k] if k < len(mine) else None
        if e[0] == "raise":
            if a is None or a[0] != "raise":
                return "no_raise", f"step {e[2]} ({e[1]}): torch raised {e[3]}: {e[4][:200]}; retrograd: {_short(a)}"
            if a[3] != e[3]:
                return "exc_type", f"step {e[2]}: {a[3]}: {a[4][:200]} vs torch {e[3]}: {e[4][:200]}"
            if torch_part(a[4], e[4]) != e[4]:  # (retrograd may go on after torch's message: where, why)
                return "exc_msg", f"step {e[2]}: {a[4][:300]!r} vs torch {e[4][:300]!r}"
            continue
        if a is None:
            return _kind(e), f"retrograd's log ends before torch's {e[0]} at step {e[2]} ({e[1]})"
        if a[0] == "raise":
            return "extra_raise", f"step {a[2]} ({a[1]}): retrograd raised {a[3]}: {a[4][:300]}"
        if a[0] != e[0] or a[1:3] != e[1:3]:
            return _kind(e), f"log entries differ: {_short(a)} vs torch {_short(e)}"
        kind = _kind(e)
        if e[0] == "alias":
            if a[3] != e[3]:
                return "stride", f"step {e[2]}: result aliases its input: {a[3]} vs torch {e[3]}"
            continue
        if e[0] == "broken":
            continue
        da, de = a[3], e[3]
        if de is None or da is None:
            if (de is None) != (da is None):
                return kind, f"{e[0]} {e[2]} ({e[1]}): {'None' if da is None else 'a tensor'} vs torch's " \
                             f"{'None' if de is None else 'tensor'}"
            continue
        if de[0] != "T" or da[0] != "T":
            if da != de:
                return kind, f"{_short(a)} vs torch {_short(e)}"
            continue
        _, shape, stride, dtype, rg, vals, depth, signed = de
        if da[1] != shape or da[3] != dtype:
            return kind, f"step {e[2]}: shape/dtype {da[1]} {da[3]} vs torch {shape} {dtype}"
        if da[4] != rg:
            return kind, f"step {e[2]} ({e[1]}): requires_grad {da[4]} vs torch {rg}"
        why = _close(da[5], vals, depth, eps, scale, signed=signed and e[1] == "forward" and e[0] == "value")
        if why:
            return kind, f"step {e[2]} ({e[0]}, {e[1]}): {why}"
        if e[0] == "value" and e[1] == "forward" and vals.size:
            fin = np.abs(vals[np.isfinite(vals)]) if vals.dtype.kind == "f" else np.abs(vals)
            if fin.size:
                scale = max(scale, float(fin.max()))
            # strides of dims of size 1 address nothing; a tensor with no elements has no layout
            if vals.size and any(st != sm for st, sm, n in zip(stride, da[2], shape) if n > 1):
                return "stride", f"step {e[2]}: strides {da[2]} vs torch {stride} (shape {shape})"
    if len(mine) > len(theirs):
        a = mine[len(theirs)]
        return _kind(a), f"retrograd logs more: {_short(a)}"
    return None


def _short(entry) -> str:
    if entry is None:
        return "nothing"
    if entry[0] == "raise":
        return f"raised {entry[3]}: {entry[4][:200]}"
    if entry[0] in ("value", "grad", "hook") and entry[3] is not None and entry[3][0] == "T":
        d = entry[3]
        return f"{entry[0]} {entry[1]} step {entry[2]}: shape {d[1]} {d[3]} {d[5].ravel()[:6].tolist()}"
    return repr(entry)[:200]


def describe(program) -> str:
    """The program as readable lines (for failure reports); operands are indices into the values
    produced so far (an input or op result each, two for ops returning values and indices)."""
    lines = []
    for k, step in enumerate(program):
        if step[0] == "input":
            _, v, dt, layout, rg = step
            lines.append(f"{k}: input({v.tolist()!r}, {dt}, {layout}, requires_grad={rg})")
        elif step[0] == "op":
            _, name, idx, kw = step
            lines.append(f"{k}: {name}{tuple(idx)} {kw if kw else ''}")
        else:
            lines.append(f"{k}: loss over values {list(step[1])}")
    return "\n".join(lines)


def check(program):
    """Run ``program`` in both libraries; the first mismatch as ``(kind, detail)``, or None."""
    return check_counted(program)[0]


def check_counted(program):
    """``check``, plus what was compared: op steps, misuse cases (steps where torch raised),
    whether a backward pass and a second derivative ran."""
    import torch

    import retrograd
    mine, theirs = run(retrograd, program), run(torch, program)
    stats = {"steps": sum(s[0] == "op" for s in program),
             "misuse": sum(e[0] == "raise" for e in theirs),
             "backward": int(any(e[1] == "backward" for e in theirs)),
             "grad2": int(any(e[1] == "grad2" for e in theirs))}
    with np.errstate(all="ignore"):
        return compare(mine, theirs, program), stats
