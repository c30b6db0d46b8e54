"""The generic op tests, driven by the test table in tests/op_db/.

For every spec and sample: forward vs torch (float32, float64), first and second
derivatives vs torch, retrograd's gradcheck / gradgradcheck, the grad_fn name,
in-place variants, hypothesis broadcasting for binary ops; plus completeness of the
table against the op families.
"""
from __future__ import annotations

import importlib
import pkgutil
import warnings

import numpy as np
import pytest

import retrograd
from op_db import T, all_specs

torch = pytest.importorskip("torch")
torch.set_default_dtype(torch.float32)

SPECS = all_specs()
CASES = [pytest.param(s, i, id=f"{s.name}-{i}") for s in SPECS for i in range(len(s.samples))]
GRAD_CASES = [pytest.param(s, i, id=f"{s.name}-{i}") for s in SPECS if s.grad for i in range(len(s.samples))]


# ---------------------------------------------------------------------------- materialising samples
def _materialize(spec, i, dtype, seed=0):
    """Sample i as NumPy values (same for both libraries)."""
    rng = np.random.default_rng(1000 * i + seed)
    sample = spec.samples[i]

    def mk(v):
        if isinstance(v, T):
            return ("T", v, v.make(rng, dtype))
        if isinstance(v, list) and v and all(isinstance(x, T) for x in v):
            return ("L", None, [mk(x) for x in v])
        return ("V", None, v)

    return [mk(a) for a in sample.args], {k: mk(v) for k, v in sample.kwargs.items()}


def _to_lib(lib, item, spec, want_grad):
    tag, t, val = item
    if tag == "V":
        return val
    if tag == "L":
        return [_to_lib(lib, x, spec, want_grad) for x in val]
    arr = np.array(val, copy=True)
    x = torch.from_numpy(arr) if lib is torch else retrograd.from_numpy(arr)
    if want_grad and t.grad and t.kind == "float" and arr.dtype.kind == "f":
        x.requires_grad_(True)
    return x


def _call(lib, spec, i, dtype, want_grad, seed=0):
    args, kwargs = _materialize(spec, i, dtype, seed)
    a = [_to_lib(lib, x, spec, want_grad) for x in args]
    k = {n: _to_lib(lib, v, spec, want_grad) for n, v in kwargs.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = spec.invoke(lib, a, k)
    return a, k, out


def _leaves(args, kwargs):
    found = []
    for v in list(args) + list(kwargs.values()):
        for x in (v if isinstance(v, list) else [v]):
            if hasattr(x, "requires_grad") and x.requires_grad:
                found.append(x)
    return found


def _flat(out):
    """Output structure -> list of leaves (tensors as NumPy, others as is)."""
    if isinstance(out, (tuple, list)):
        return [y for o in out for y in _flat(o)]
    return [out]


def _np(x):
    if isinstance(x, torch.Tensor):
        return x.detach().numpy(force=True)
    if isinstance(x, retrograd.Tensor):
        return x.detach().numpy()
    return x


def _assert_same(ours, theirs, atol, rtol, what):
    o, t = _flat(ours), _flat(theirs)
    assert len(o) == len(t), f"{what}: {len(o)} outputs vs torch's {len(t)}"
    for a, b in zip(o, t):
        if isinstance(b, (torch.Tensor, retrograd.Tensor)):
            assert isinstance(a, retrograd.Tensor), f"{what}: got {type(a).__name__}, torch gives a Tensor"
            assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1], f"{what}: dtype {a.dtype} vs {b.dtype}"
            assert tuple(a.shape) == tuple(b.shape), f"{what}: shape {tuple(a.shape)} vs {tuple(b.shape)}"
            np.testing.assert_allclose(_np(a), _np(b), atol=atol, rtol=rtol, equal_nan=True, err_msg=what)
        else:
            if isinstance(b, float):
                assert a == pytest.approx(b, rel=rtol, abs=atol, nan_ok=True), what
            else:
                assert a == b, what


def _tol(spec, dtype):
    if dtype == "float64" and not spec.loose64:
        return 1e-9, 1e-7
    return spec.atol, spec.rtol


# ---------------------------------------------------------------------------- forward
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("spec,i", CASES)
def test_forward_matches_torch(spec, i, dtype):
    _, _, ours = _call(retrograd, spec, i, dtype, want_grad=False)
    _, _, theirs = _call(torch, spec, i, dtype, want_grad=False)
    if spec.nondeterministic:
        for a, b in zip(_flat(ours), _flat(theirs)):
            assert tuple(a.shape) == tuple(b.shape)
        return
    atol, rtol = _tol(spec, dtype)
    _assert_same(ours, theirs, atol, rtol, f"{spec.name} forward")


@pytest.mark.parametrize("spec,i", [c for c in CASES if c.values[0].method])
def test_method_form(spec, i):
    args, kwargs, ours = _call(retrograd, spec, i, "float64", want_grad=False)
    name = spec.name.split(".")[-1]
    via_method = getattr(args[0], name)(*args[1:], **kwargs)
    _assert_same(via_method, ours, 0, 0, f"{spec.name} method vs function")


@pytest.mark.parametrize("spec,i", [c for c in CASES if c.values[0].inplace])
def test_inplace_variant(spec, i):
    for lib in (retrograd, torch):
        args, kwargs, out = _call(lib, spec, i, "float64", want_grad=False)
        x = args[0].clone()
        if tuple(out.shape) != tuple(x.shape):  # a broadcast result cannot be written in place
            with pytest.raises(RuntimeError):
                getattr(x, spec.inplace)(*args[1:], **kwargs)
            continue
        res = getattr(x, spec.inplace)(*args[1:], **kwargs)
        assert res is x
        assert x._version == 1 if lib is retrograd else True
        np.testing.assert_allclose(_np(x), _np(out), atol=1e-12, equal_nan=True)


# ---------------------------------------------------------------------------- derivatives
def _weights(outs, seed=7):
    rng = np.random.default_rng(seed)
    return [rng.uniform(0.5, 1.5, size=tuple(o.shape)) for o in outs]


def _diff_outputs(out, lib):
    return [o for o in _flat(out) if isinstance(o, lib.Tensor) and o.requires_grad]


def _grads(lib, spec, i, order):
    args, kwargs, out = _call(lib, spec, i, "float64", want_grad=True)
    leaves = _leaves(args, kwargs)
    outs = _diff_outputs(out, lib)
    if not outs:
        return None, leaves, out
    ws = _weights(outs)
    loss = sum((o * lib.tensor(w)).sum() for o, w in zip(outs, ws))
    g1 = lib.autograd.grad(loss, leaves, create_graph=(order == 2), allow_unused=True)
    if order == 1:
        return g1, leaves, out
    rng = np.random.default_rng(11)
    terms = [(g * lib.tensor(rng.uniform(0.5, 1.5, size=tuple(g.shape)))).sum()
             for g in g1 if g is not None and g.requires_grad]
    if not terms:
        return [None] * len(leaves), leaves, out
    g2 = lib.autograd.grad(sum(terms), leaves, allow_unused=True)
    return g2, leaves, out


def _assert_grads(ours, theirs, leaves, what):
    for k, (a, b) in enumerate(zip(ours, theirs)):
        shape = tuple(leaves[k].shape)
        a = np.zeros(shape) if a is None else _np(a)
        b = np.zeros(shape) if b is None else _np(b)
        np.testing.assert_allclose(a, b, atol=1e-7, rtol=1e-6, equal_nan=True, err_msg=f"{what} input {k}")


@pytest.mark.parametrize("spec,i", GRAD_CASES)
def test_first_derivative_matches_torch(spec, i):
    ours, leaves, out = _grads(retrograd, spec, i, 1)
    theirs, _, tout = _grads(torch, spec, i, 1)
    assert (ours is None) == (theirs is None), "requires_grad of outputs differs from torch"
    if theirs is None:
        return
    _assert_grads(ours, theirs, leaves, f"{spec.name} d/dx")
    if spec.check_grad_fn:
        o = _diff_outputs(out, retrograd)[0]
        t = _diff_outputs(tout, torch)[0]
        assert type(o.grad_fn).__name__ == type(t.grad_fn).__name__


@pytest.mark.parametrize("spec,i", [c for c in GRAD_CASES if c.values[0].gradgrad])
def test_second_derivative_matches_torch(spec, i):
    ours, leaves, _ = _grads(retrograd, spec, i, 2)
    theirs, _, _ = _grads(torch, spec, i, 2)
    if theirs is None:
        return
    _assert_grads(ours, theirs, leaves, f"{spec.name} d2/dx2")


def _gradcheck_fn(spec, i):
    args, kwargs, _ = _call(retrograd, spec, i, "float64", want_grad=True)
    leaves = _leaves(args, kwargs)

    def fn(*xs):
        # substitute the checked inputs into the call
        mapping = {id(l): x for l, x in zip(leaves, xs)}
        a = [[mapping.get(id(y), y) for y in v] if isinstance(v, list) else mapping.get(id(v), v) for v in args]
        k = {n: mapping.get(id(v), v) for n, v in kwargs.items()}
        out = spec.invoke(retrograd, a, k)
        return tuple(o for o in _flat(out) if isinstance(o, retrograd.Tensor) and o.is_floating_point())
    return fn, tuple(leaves)


@pytest.mark.parametrize("spec,i", GRAD_CASES)
def test_gradcheck(spec, i):
    gradcheck = getattr(retrograd.autograd, "gradcheck", None)
    assert gradcheck is not None, "retrograd.autograd.gradcheck is missing"
    fn, inputs = _gradcheck_fn(spec, i)
    if not inputs:
        return
    assert gradcheck(fn, inputs, eps=1e-6, atol=1e-5, rtol=1e-3)


@pytest.mark.parametrize("spec,i", [c for c in GRAD_CASES if c.values[0].gradgrad])
def test_gradgradcheck(spec, i):
    gradgradcheck = getattr(retrograd.autograd, "gradgradcheck", None)
    assert gradgradcheck is not None, "retrograd.autograd.gradgradcheck is missing"
    fn, inputs = _gradcheck_fn(spec, i)
    if not inputs:
        return
    assert gradgradcheck(fn, inputs, eps=1e-6, atol=1e-5, rtol=1e-3)


# ---------------------------------------------------------------------------- broadcasting
try:
    from hypothesis import given, settings
    from hypothesis.extra.numpy import mutually_broadcastable_shapes
except ImportError:  # pragma: no cover - hypothesis is a test dependency
    given = None

if given is not None:
    BROADCAST = [s for s in SPECS if s.broadcast]

    @pytest.mark.parametrize("spec", BROADCAST, ids=[s.name for s in BROADCAST])
    @settings(max_examples=15, deadline=None)
    @given(shapes=mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=3))
    def test_broadcasting_matches_torch(spec, shapes):
        base = spec.samples[0]
        t0, t1 = base.args[0], base.args[1]
        rng = np.random.default_rng(0)
        a = rng.uniform(t0.low, t0.high, size=shapes.input_shapes[0])
        b = rng.uniform(t1.low, t1.high, size=shapes.input_shapes[1])
        res = []
        for lib in (retrograd, torch):
            x = (torch.from_numpy(a.copy()) if lib is torch else retrograd.from_numpy(a.copy())).requires_grad_()
            y = (torch.from_numpy(b.copy()) if lib is torch else retrograd.from_numpy(b.copy())).requires_grad_()
            out = spec.invoke(lib, [x, y] + list(base.args[2:]), dict(base.kwargs))
            out.sum().backward() if out.requires_grad else None
            res.append((out, x.grad, y.grad))
        (o, gx, gy), (to, tgx, tgy) = res
        np.testing.assert_allclose(_np(o), _np(to), rtol=1e-7, atol=1e-9, equal_nan=True)
        if tgx is not None:
            np.testing.assert_allclose(_np(gx), _np(tgx), rtol=1e-7, atol=1e-9, equal_nan=True)
            np.testing.assert_allclose(_np(gy), _np(tgy), rtol=1e-7, atol=1e-9, equal_nan=True)


# ---------------------------------------------------------------------------- completeness
# Public functions of the op families that are not ops users call directly.
INTERNAL = {"sum_to", "slice_dim", "getitem", "setitem", "zeros_like_grad", "unsqueeze_dims",
            "rebase_history", "region_indices", "regenerate_view", "to_dtype", "copy_", "zero_", "fill_", "index_put_"}


def _family_exports() -> set[str]:
    names = set()
    ops = importlib.import_module("retrograd._ops")
    for info in pkgutil.iter_modules(ops.__path__):
        if info.name.startswith("_"):
            continue
        mod = importlib.import_module(f"retrograd._ops.{info.name}")
        names.update(getattr(mod, "__all__", ()))
    return names


def test_every_op_has_a_spec_and_every_spec_an_op():
    exported = _family_exports()
    spec_names = {s.name.split(".")[-1] for s in SPECS}
    inplace = {s.inplace for s in SPECS if s.inplace}
    aliases = {s.note.split("alias of ")[1] for s in SPECS if s.note.startswith("alias of ")}
    missing = sorted(n for n in exported
                     if n not in spec_names and n not in inplace and n not in INTERNAL and n not in aliases)
    assert not missing, f"ops without a spec in tests/op_db: {missing}"
    for s in SPECS:
        if s.call is None:
            s.resolve(retrograd)  # raises AttributeError when the spec names no op
