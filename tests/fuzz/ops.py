"""The fuzzer's op list: what a program step may do, written once for both libraries.

Each entry is ``Op(name, arity, make, run)``:

* ``make(ch, shapes)`` draws the step's static arguments from the chooser ``ch`` for operands
  of the given shapes, or returns ``None`` when the op does not apply (the generator then
  draws another op).  With a small probability it draws arguments torch rejects (a dim out of
  range, incompatible shapes, in-place on a leaf): those steps compare the exception.
* ``run(L, *tensors, **kw)`` runs it on library ``L`` (``torch`` or ``retrograd``): the same
  source text for both, so a difference is a difference between the libraries.

Operand tensors that an op needs beside the first (a matmul's right-hand side, a binary op's
broadcast partner) are produced by the generator as extra inputs of the program (see
``program.py``); the op's ``partner(ch, shape)`` says what shape they have.
"""
from __future__ import annotations

import dataclasses
from typing import Callable

BAD = 0.04  # probability that a drawn argument is one torch rejects (misuse cases)


@dataclasses.dataclass(frozen=True)
class Op:
    name: str
    run: Callable
    make: Callable = lambda ch, shapes: {}
    arity: int = 1
    partner: Callable | None = None  # shape of a fresh second operand, from the first's shape
    inplace: bool = False
    mark: bool = False  # retain_grad / register_hook: marks the operand, returns it


def _dim(ch, shape, *, allow_none: bool = False):
    """A dim of ``shape`` (negative half the time); out of range with probability BAD."""
    n = len(shape)
    if allow_none and ch.coin(0.2):
        return None
    if ch.coin(BAD):
        return ch.pick([n, -n - 1, n + 1])
    if n == 0:
        return ch.pick([0, -1])  # torch accepts dim 0/-1 of a 0-d tensor for most reductions
    d = ch.int(0, n - 1)
    return d - n if ch.coin() else d


def _kd(ch, shape):
    d = _dim(ch, shape, allow_none=True)
    return {"dim": d, "keepdim": ch.coin()} if d is not None else {}


def _need_dim(ch, shape):
    return {"dim": _dim(ch, shape)}


def _broadcast_partner(ch, shape):
    """A shape broadcast-compatible with ``shape``: leading dims dropped, some dims set to 1,
    sometimes a leading dim added; incompatible with probability BAD."""
    s = list(shape)
    if s and ch.coin(0.3):
        s = s[ch.int(0, len(s)):]
    s = [1 if ch.coin(0.25) else d for d in s]
    if len(s) < 3 and ch.coin(0.15):
        s = [ch.pick([1, 2])] + s
    if ch.coin(BAD) and s:
        i = ch.int(0, len(s) - 1)
        s[i] = s[i] + 2
    return tuple(s)


def _same_partner(ch, shape):
    s = list(shape)
    if ch.coin(BAD) and s:
        s[-1] += 1
    return tuple(s)


def _matmul_partner(ch, shape):
    if not shape:
        return (2,)
    k = shape[-1] + (1 if ch.coin(BAD) else 0)
    if ch.coin(0.25):
        return (k,)
    return (k, ch.pick([0, 1, 2, 3]))


def _F(L):
    return L.nn.functional


def _finite(x):
    return x.nan_to_num(0.0, 1e4, -1e4)


UNARY = {
    "neg": lambda L, x: -x, "abs": lambda L, x: x.abs(), "exp": lambda L, x: x.exp(),
    "log": lambda L, x: x.log(), "sqrt": lambda L, x: x.sqrt(), "sin": lambda L, x: x.sin(),
    "tanh": lambda L, x: x.tanh(), "sigmoid": lambda L, x: x.sigmoid(), "relu": lambda L, x: x.relu(),
    "square": lambda L, x: x.square(), "reciprocal": lambda L, x: x.reciprocal(),
    "floor": lambda L, x: x.floor(), "sign": lambda L, x: x.sign(), "rsqrt": lambda L, x: x.rsqrt(),
    "expm1": lambda L, x: x.expm1(), "log1p": lambda L, x: x.log1p(), "atan": lambda L, x: x.atan(),
    "erf": lambda L, x: x.erf(),
    "logsigmoid": lambda L, x: _F(L).logsigmoid(x), "elu": lambda L, x: _F(L).elu(x),
    "softplus": lambda L, x: _F(L).softplus(x),
    # (torch's gelu(+-inf) is +-inf on its vectorized path and NaN on its scalar tail, its
    # hardswish'(NaN) NaN and 1, its hardtanh'(NaN) 0 and g: which one an element gets depends on
    # its position and the CPU's vector width, so these get finite inputs)
    "gelu": lambda L, x: _F(L).gelu(_finite(x)),
    "leaky_relu": lambda L, x: _F(L).leaky_relu(x, 0.1), "silu": lambda L, x: _F(L).silu(x),
    "hardtanh": lambda L, x: _F(L).hardtanh(_finite(x)), "selu": lambda L, x: _F(L).selu(x),
    "celu": lambda L, x: _F(L).celu(x), "mish": lambda L, x: _F(L).mish(x),
    "softsign": lambda L, x: _F(L).softsign(x), "hardswish": lambda L, x: _F(L).hardswish(_finite(x)),
}

BINARY = {
    "add": lambda L, a, b: a + b, "sub": lambda L, a, b: a - b, "mul": lambda L, a, b: a * b,
    "div": lambda L, a, b: a / b, "maximum": lambda L, a, b: L.maximum(a, b),
    "minimum": lambda L, a, b: L.minimum(a, b), "pow": lambda L, a, b: a ** b,
    "atan2": lambda L, a, b: L.atan2(a, b), "where": lambda L, a, b: L.where(a > 0, a, b),
    "hypot": lambda L, a, b: L.hypot(a, b),
}

INPLACE = {
    "add_": lambda L, x, b: x.add_(b), "mul_": lambda L, x, b: x.mul_(b), "sub_": lambda L, x, b: x.sub_(b),
    "div_": lambda L, x, b: x.div_(b), "copy_": lambda L, x, b: x.copy_(b),
}

INPLACE_UNARY = {
    "zero_": lambda L, x: x.zero_(), "sigmoid_": lambda L, x: x.sigmoid_(), "relu_": lambda L, x: x.relu_(),
    "exp_": lambda L, x: x.exp_(), "neg_": lambda L, x: x.neg_(), "fill_": lambda L, x: x.fill_(2.0),
    "clamp_": lambda L, x: x.clamp_(-1.0, 1.0), "tanh_": lambda L, x: x.tanh_(),
    "add_scalar_": lambda L, x: x.add_(1.5), "mul_scalar_": lambda L, x: x.mul_(-2.0),
}


def _reduce(method):
    return lambda L, x, **kw: getattr(x, method)(**kw)


def _values(method):
    def run(L, x, **kw):
        r = getattr(x, method)(**kw)
        return tuple(r) if isinstance(r, tuple) else r
    return run


def _permute(ch, shape):
    order = list(range(len(shape)))
    for i in range(len(order) - 1, 0, -1):  # Fisher-Yates with the chooser
        j = ch.int(0, i)
        order[i], order[j] = order[j], order[i]
    return {"dims": tuple(order)}


def _transpose(ch, shape):
    return {"d0": _dim(ch, shape), "d1": _dim(ch, shape)}


def _slice(ch, shape):
    if not shape:
        return None
    return {"dim": ch.int(0, len(shape) - 1), "start": ch.int(0, 1), "step": ch.pick([1, 2])}


def _slice_run(L, x, dim, start, step):
    return x[(slice(None),) * dim + (slice(start, None, step),)]


def _view(ch, shape):
    """A reshape target: flat, merged last two dims, or split a dim; wrong size with prob. BAD."""
    n = 1
    for d in shape:
        n *= d
    options = [(-1,), (n,), tuple(shape) + (1,)]
    if len(shape) >= 2:
        options.append(tuple(shape[:-2]) + (shape[-2] * shape[-1],))
    if ch.coin(BAD):
        options = [(n + 1,)]
    return {"shape": ch.pick(options)}


def _expand(ch, shape):
    s = [ch.pick([2, 3]) if d == 1 and ch.coin() else d for d in shape]
    if len(s) < 3 and ch.coin(0.4):
        s = [2] + s
    if ch.coin(BAD) and s:
        s[-1] = s[-1] + 1 if s[-1] != 1 else 3
        if shape and shape[-1] == 1:
            s[-1] = 0  # expanding size 1 to 0 is allowed; keep a reject case below
            s = s + [2]
    return {"sizes": tuple(s)}


def _pad(ch, shape):
    mode = ch.pick(["constant", "reflect", "replicate", "circular"])
    pads = (ch.int(0, 2), ch.int(0, 2))
    if ch.coin(0.3):
        pads = pads + (ch.int(0, 1), ch.int(0, 1))
    return {"pad": pads, "mode": mode}


def _pad_run(L, x, pad, mode):
    return _F(L).pad(x, pad, mode=mode)


def _roll(ch, shape):
    if ch.coin(0.2):
        return {"shifts": ch.int(-3, 3), "dims": None}
    return {"shifts": ch.int(-3, 3), "dims": _dim(ch, shape)}


def _tri(ch, shape):
    return {"diagonal": ch.int(-1, 1)} if len(shape) >= 2 or ch.coin(BAD) else None


def _einsum(ch, shape):
    eq = {1: ["i->", "i,i->", "i,j->ij"], 2: ["ij->j", "ij->ji", "ij,jk->ik", "ii->i", "ij,ij->ij"],
          3: ["bij,bjk->bik", "bij->bj", "bij->jib"]}.get(len(shape))
    if not eq:
        return None
    return {"eq": ch.pick(eq)}


def _einsum_run(L, x, eq):
    ins = eq.split("->")[0].split(",")
    if len(ins) == 1:
        return L.einsum(eq, x)
    # the second operand is made from the first so its sizes fit: x itself, transposed where needed
    other = {"i,i->": x, "i,j->ij": x * 2, "ij,jk->ik": x.transpose(0, 1), "ij,ij->ij": x,
             "bij,bjk->bik": x.transpose(1, 2)}[eq]
    return L.einsum(eq, x, other)


def _cat(ch, shape):
    return {"dim": _dim(ch, shape) if shape else ch.pick([0, -1]), "second": ch.pick(["same", "double", "t"])}


def _joined(L, x, second):
    if second == "same":
        return [x, x]
    if second == "t" and x.dim() == 2 and x.shape[0] == x.shape[1]:
        return [x.t(), x.t()]
    return [x, x * 2]


def _index_select(ch, shape):
    if not shape:
        return None
    d = ch.int(0, len(shape) - 1)
    n = shape[d]
    idx = [ch.int(0, n - 1) for _ in range(ch.int(0, 3))] if n else []
    if ch.coin(BAD):
        idx = idx + [n]
    return {"dim": d, "index": tuple(idx)}


def _median_dim(ch, shape):
    return {"dim": _dim(ch, shape), "keepdim": ch.coin()}


def _std(ch, shape):
    kw = _kd(ch, shape)
    kw["correction"] = ch.pick([0, 1])
    return kw


def _clamp(ch, shape):
    lo = ch.pick([None, -1.0, 0.0, 0.5])
    hi = ch.pick([None, 1.0, 0.0, 2.0]) if lo is not None else ch.pick([1.0, 0.0])
    return {"min": lo, "max": hi}


def _powc(ch, shape):
    return {"p": ch.pick([2, 3, 0.5, -1, 0, 1.5, -0.5])}


OPS: list[Op] = []
for _n, _f in UNARY.items():
    OPS.append(Op(_n, _f))
for _n, _f in BINARY.items():
    OPS.append(Op(_n, _f, arity=2, partner=_broadcast_partner))
for _n, _f in INPLACE.items():
    OPS.append(Op(_n, _f, arity=2, partner=_broadcast_partner if _n != "copy_" else _same_partner, inplace=True))
for _n, _f in INPLACE_UNARY.items():
    OPS.append(Op(_n, _f, inplace=True))

OPS += [
    Op("clamp", lambda L, x, **kw: x.clamp(**kw), _clamp),
    Op("pow_scalar", lambda L, x, p: x ** p, _powc),
    Op("sum", _reduce("sum"), _kd), Op("mean", _reduce("mean"), _kd),
    Op("prod", lambda L, x, **kw: x.prod(**kw) if kw else x.prod(),
       lambda ch, s: _kd(ch, s) if ch.coin() else {}),
    Op("amax", _reduce("amax"), _kd), Op("amin", _reduce("amin"), _kd),
    Op("max", lambda L, x: x.max()), Op("min", lambda L, x: x.min()), Op("median", lambda L, x: x.median()),
    Op("max_dim", _values("max"), _median_dim), Op("min_dim", _values("min"), _median_dim),
    Op("median_dim", _values("median"), _median_dim),
    Op("std", _reduce("std"), _std), Op("var", _reduce("var"), _std),
    Op("logsumexp", lambda L, x, dim, keepdim: x.logsumexp(dim, keepdim), _median_dim),
    Op("norm", lambda L, x, p: x.norm(p), lambda ch, s: {"p": ch.pick([1, 2, float("inf")])}),
    Op("cumsum", lambda L, x, dim: x.cumsum(dim), _need_dim),
    Op("cumprod", lambda L, x, dim: x.cumprod(dim), _need_dim),
    Op("softmax", lambda L, x, dim: x.softmax(dim), _need_dim),
    Op("log_softmax", lambda L, x, dim: x.log_softmax(dim), _need_dim),
    Op("sort", _values("sort"), _need_dim),
    Op("reshape", lambda L, x, shape: x.reshape(shape), _view),
    Op("view", lambda L, x, shape: x.view(shape), _view),
    Op("flatten", lambda L, x: x.flatten()),
    Op("transpose", lambda L, x, d0, d1: x.transpose(d0, d1), _transpose),
    Op("t", lambda L, x: x.t()),
    Op("permute", lambda L, x, dims: x.permute(dims), _permute),
    Op("unsqueeze", lambda L, x, dim: x.unsqueeze(dim),
       lambda ch, s: {"dim": _dim(ch, s + (1,))}),
    Op("squeeze", lambda L, x, dim: x.squeeze(dim), _need_dim),
    Op("expand", lambda L, x, sizes: x.expand(*sizes), _expand),
    Op("slice", _slice_run, _slice),
    Op("select", lambda L, x, dim, index: x.select(dim, index),
       lambda ch, s: {"dim": ch.int(0, len(s) - 1), "index": ch.int(-1, 1)} if s else None),
    Op("flip", lambda L, x, dim: x.flip(dim), _need_dim),
    Op("contiguous", lambda L, x: x.contiguous()), Op("clone", lambda L, x: x.clone()),
    Op("detach", lambda L, x: x.detach()),
    Op("roll", lambda L, x, shifts, dims: x.roll(shifts, dims), _roll),
    Op("tril", lambda L, x, diagonal: x.tril(diagonal), _tri),
    Op("triu", lambda L, x, diagonal: x.triu(diagonal), _tri),
    Op("matmul", lambda L, a, b: a @ b, arity=2, partner=_matmul_partner),
    Op("einsum", _einsum_run, _einsum),
    Op("cat", lambda L, x, dim, second: L.cat(_joined(L, x, second), dim), _cat),
    Op("stack", lambda L, x, dim, second: L.stack(_joined(L, x, second), dim),
       lambda ch, s: {"dim": _dim(ch, s + (1,)), "second": ch.pick(["same", "double", "t"])}),
    Op("pad", _pad_run, _pad),
    Op("index_select", lambda L, x, dim, index: x.index_select(dim, L.tensor(index, dtype=L.int64)),
       _index_select),
    Op("masked_fill", lambda L, x, v: x.masked_fill(x > 0, v), lambda ch, s: {"v": ch.pick([0.0, -1.0])}),
    Op("retain_grad", lambda L, x: x, mark=True),
    Op("hook", lambda L, x: x, mark=True),
    Op("hook_scale", lambda L, x: x, mark=True),
]

BY_NAME = {op.name: op for op in OPS}
assert len(BY_NAME) == len(OPS)
