"""Regressions from running torch's OpInfo samples (reductions, shape / index / creation ops)
through retrograd: values, dtypes, shapes, grads and errors against torch 2.13."""
from __future__ import annotations

import numpy as np
import pytest

import retrograd as rg

torch = pytest.importorskip("torch")
import pickle
import warnings
import retrograd
import retrograd as R


def _np(t):
    return t.detach().numpy() if isinstance(t, (torch.Tensor, rg.Tensor)) else np.asarray(t)


def _dt(t) -> str:
    return str(t.dtype).split(".")[-1]


def _same(a, b, *, tol=1e-12):
    """a: retrograd result, b: torch result (tensors, or tuples of them)."""
    if isinstance(b, (tuple, list)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y, tol=tol)
        return
    assert tuple(a.shape) == tuple(b.shape)
    assert _dt(a) == _dt(b)
    np.testing.assert_allclose(_np(a), _np(b), rtol=tol, atol=tol, equal_nan=True)


def _both(fn, *arrays, grad=True):
    """fn(lib, *tensors) on retrograd and torch (float64 leaves requiring grad); returns both results
    and both lists of input tensors."""
    outs, ins = [], []
    for lib in (rg, torch):
        ts = [lib.tensor(np.asarray(a), requires_grad=grad and np.asarray(a).dtype.kind == "f") for a in arrays]
        outs.append(fn(lib, *ts))
        ins.append(ts)
    return outs, ins


def _grads_match(fn, *arrays, second=True):
    """Values, first grads (weighted sum) and, with ``second``, grads of the grads' sum."""
    (r, t), (ri, ti) = _both(fn, *arrays)
    _same(r, t)
    w = np.random.default_rng(0).normal(size=tuple(t.shape))
    gr = rg.autograd.grad((r * rg.tensor(w)).sum(), ri, create_graph=second, allow_unused=True)
    gt = torch.autograd.grad((t * torch.tensor(w)).sum(), ti, create_graph=second, allow_unused=True)
    for a, b in zip(gr, gt):
        assert (a is None) == (b is None)
        if b is not None:
            _same(a, b, tol=1e-10)
    if second:
        hr = [g for g in gr if g is not None and g.requires_grad]
        ht = [g for g in gt if g is not None and g.requires_grad]
        assert len(hr) == len(ht)
        if ht:
            g2r = rg.autograd.grad(sum(g.sum() for g in hr), ri, allow_unused=True)
            g2t = torch.autograd.grad(sum(g.sum() for g in ht), ti, allow_unused=True)
            for a, b in zip(g2r, g2t):
                if b is None or b._is_zerotensor():
                    assert a is None or not _np(a).any()
                else:
                    _same(a, b, tol=1e-10)
    return r, t


def _raises_same(fn):
    errs = []
    for lib in (rg, torch):
        with pytest.raises(Exception) as e:
            fn(lib)
        errs.append((type(e.value).__name__, str(e.value).replace("torch.", "").replace("retrograd.", "")))
    assert errs[0] == errs[1]


# ------------------------------------------------------------------ reductions on 0-d tensors
@pytest.mark.parametrize("name", ["all", "any"])
@pytest.mark.parametrize("dim,keepdim", [(0, True), (-1, False), ((), False)])
def test_logical_reductions_accept_dim_0_of_a_scalar(name, dim, keepdim):
    for v in (2.5, 0.0):
        r = getattr(rg, name)(rg.tensor(v), dim=dim, keepdim=keepdim)
        t = getattr(torch, name)(torch.tensor(v), dim=dim, keepdim=keepdim)
        _same(r, t)
    _raises_same(lambda lib: getattr(lib, name)(lib.tensor(1.0), 1))


@pytest.mark.parametrize("ord", [2, 1, 0, 6, float("inf"), -float("inf")])
def test_vector_norm_of_a_scalar_over_dim_0(ord):
    _grads_match(lambda lib, x: lib.linalg.vector_norm(x, ord, dim=0, keepdim=True), -4.5)
    _grads_match(lambda lib, x: lib.linalg.vector_norm(x, ord, dim=-1), 3.0)


def test_vector_norm_half_accumulates_in_float():
    x = np.array([-8.4765625, -1.765625])
    for ord in (6, 2, 4):
        r = rg.linalg.vector_norm(rg.tensor(x, dtype=rg.float16), ord)
        t = torch.linalg.vector_norm(torch.tensor(x, dtype=torch.float16), ord)
        assert np.isfinite(_np(r)).all()
        _same(r, t, tol=1e-3)


# ------------------------------------------------------------------ dtype= on accumulating ops
@pytest.mark.parametrize("call", [
    lambda lib, x: lib.sum(x, dtype=lib.int8),
    lambda lib, x: lib.sum(x, 1, dtype=lib.int16),
    lambda lib, x: lib.prod(x, dtype=lib.int8),
    lambda lib, x: lib.prod(x, 1, dtype=lib.int32),
    lambda lib, x: lib.cumsum(x, 1, dtype=lib.int8),
    lambda lib, x: lib.cumprod(x, 0, dtype=lib.int8),
    lambda lib, x: lib.nansum(x, dtype=lib.int32),
    lambda lib, x: x.sum(0, dtype=lib.int32),
])
def test_integer_dtype_argument_is_the_result_dtype(call):
    a = np.array([[100, 100, 3], [7, -100, 100]])
    _same(call(rg, rg.tensor(a)), call(torch, torch.tensor(a)))


def test_bool_dtype_argument():
    a = np.array([[True, True, False], [True, True, True]])
    for call in (lambda lib, x: lib.prod(x, 1, dtype=lib.bool), lambda lib, x: lib.sum(x, dtype=lib.bool),
                 lambda lib, x: lib.prod(x.double(), dtype=lib.bool), lambda lib, x: lib.prod(x, 0)):
        _same(call(rg, rg.tensor(a)), call(torch, torch.tensor(a)))
    for name in ("cumsum", "cumprod"):
        _raises_same(lambda lib: getattr(lib, name)(lib.tensor(a), 1, dtype=lib.bool))


LIBS = (retrograd, torch)


def _np_reduce(t):
    return t.detach().numpy() if hasattr(t, "detach") else np.asarray(t)


def _both_reduce(fn, values, dtype="float64"):
    """fn(lib, x) for both libraries on a leaf ``x`` built from ``values``; returns the pairs."""
    res = []
    for lib in LIBS:
        x = lib.tensor(values, dtype=getattr(lib, dtype), requires_grad=dtype.startswith("float"))
        res.append((x, fn(lib, x)))
    return res


# ---------------------------------------------------------------------------- NaN
NAN = [[1., float("nan"), 2.], [3., 0.5, 4.]]


@pytest.mark.parametrize("fn", [
    lambda lib, x: x.max(), lambda lib, x: x.max(1), lambda lib, x: x.amin(1), lambda lib, x: x.argmax(1),
    lambda lib, x: x.median(), lambda lib, x: x.median(1), lambda lib, x: x.nanmedian(),
    lambda lib, x: x.nanmedian(1), lambda lib, x: x.sort(1, descending=True), lambda lib, x: x.topk(2),
    lambda lib, x: x.kthvalue(3), lambda lib, x: x.cummax(1), lambda lib, x: x.cummin(1),
    lambda lib, x: x.nansum(1), lambda lib, x: x.nanmean(), lambda lib, x: lib.aminmax(x, dim=1),
    lambda lib, x: lib.logsumexp(x, 1)])
def test_nan_handling_like_torch(fn):
    (_, a), (_, b) = _both_reduce(fn, NAN)
    for u, v in zip(a if isinstance(a, tuple) else (a,), b if isinstance(b, tuple) else (b,)):
        np.testing.assert_allclose(_np_reduce(u), _np_reduce(v), equal_nan=True)


# ---------------------------------------------------------------------------- named tuples
@pytest.mark.parametrize("name,call", [
    ("max", lambda lib, x: x.max(1)), ("min", lambda lib, x: lib.min(x, 0)),
    ("median", lambda lib, x: x.median(1)), ("nanmedian", lambda lib, x: x.nanmedian(0)),
    ("mode", lambda lib, x: x.mode()), ("sort", lambda lib, x: lib.sort(x)),
    ("topk", lambda lib, x: x.topk(1)), ("kthvalue", lambda lib, x: x.kthvalue(1)),
    ("cummax", lambda lib, x: x.cummax(1)), ("cummin", lambda lib, x: x.cummin(0)),
    ("aminmax", lambda lib, x: lib.aminmax(x))])
def test_named_tuple_results(name, call):
    data = [[1., 5., 3.], [4., 2., 6.]]
    ours = call(retrograd, retrograd.tensor(data))
    theirs = call(torch, torch.tensor(data))
    assert type(ours).__name__ == name and type(ours).__module__ == "retrograd.return_types"
    assert isinstance(ours, tuple) and len(ours) == 2
    assert repr(ours) == repr(theirs)
    fields = ("min", "max") if name == "aminmax" else ("values", "indices")
    for k, f in enumerate(fields):
        assert getattr(ours, f) is ours[k]
        np.testing.assert_array_equal(_np_reduce(getattr(ours, f)), _np_reduce(getattr(theirs, f)))
    a, b = ours
    assert a is ours[0] and b is ours[1]
    assert ours.n_fields == theirs.n_fields
    back = pickle.loads(pickle.dumps(ours))
    assert type(back) is type(ours)
    assert str(ours) == repr(ours)


def test_return_types_module():
    rt = retrograd.return_types
    r = rt.max((1, 2))
    assert (r.values, r.indices) == (1, 2) and r == (1, 2)
    with pytest.raises(TypeError, match=r"torch.return_types.max\(\) takes a 2-sequence \(1-sequence given\)"):
        rt.max((1,))
    assert rt.linalg_slogdet((1, 2)).logabsdet == 2
    assert rt.svd((1, 2, 3)).V == 3
    assert set(t.__name__ for t in torch.return_types.all_return_types) <= set(t.__name__ for t in rt.all_return_types)


def test_plain_tuples_where_torch_has_them():
    x = retrograd.tensor([[1., 2.], [3., 5.]])
    assert type(retrograd.var_mean(x)) is tuple and type(retrograd.std_mean(x, 1)) is tuple
    assert type(retrograd.unique(x, return_counts=True)) is tuple


# ---------------------------------------------------------------------------- dtypes
@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8", "bool"])
@pytest.mark.parametrize("fn", [
    lambda lib, x: x.prod(), lambda lib, x: x.prod(0), lambda lib, x: x.cumsum(0), lambda lib, x: x.cumprod(0),
    lambda lib, x: x.amax(), lambda lib, x: x.max(), lambda lib, x: x.all(), lambda lib, x: x.any(0),
    lambda lib, x: x.nansum(), lambda lib, x: x.count_nonzero(), lambda lib, x: x.sort().values,
    lambda lib, x: x.cummax(0).values, lambda lib, x: lib.aminmax(x).max, lambda lib, x: x.logsumexp(0),
    lambda lib, x: x.mode().values])
def test_integer_and_bool_result_dtypes(fn, dtype):
    (_, a), (_, b) = _both_reduce(fn, [1, 0, 1, 1], dtype)
    assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]
    np.testing.assert_allclose(_np_reduce(a).astype(float), _np_reduce(b).astype(float), rtol=1e-6)


def test_dtype_keyword():
    for lib in LIBS:
        x = lib.tensor([1, 2, 3])
        assert x.cumsum(0, dtype=lib.float64).dtype == lib.float64
        assert x.prod(dtype=lib.float32).dtype == lib.float32
        assert lib.tensor([1., 2.]).norm(dtype=lib.float64).dtype == lib.float64


# ---------------------------------------------------------------------------- errors
ERRORS = [
    lambda lib: lib.zeros(0).max(),
    lambda lib: lib.zeros(0).amax(),
    lambda lib: lib.zeros(0, 3).max(0),
    lambda lib: lib.zeros(0).argmax(),
    lambda lib: lib.tensor([True, False]).argmax(),
    lambda lib: lib.zeros(2, 3).kthvalue(4),
    lambda lib: lib.zeros(2, 3).topk(4),
    lambda lib: lib.tensor([1, 2]).var(),
    lambda lib: lib.tensor([1, 2]).std(),
    lambda lib: lib.tensor([1, 2]).norm(),
    lambda lib: lib.tensor([1, 2]).nanmean(),
    lambda lib: lib.zeros(2, 3).norm(p="abc"),
    lambda lib: lib.zeros(2, 3).sum(2),
    lambda lib: lib.zeros(2, 3).amax(-3),
    lambda lib: lib.zeros(2, 3).max(2),
    lambda lib: lib.zeros(2, 3).cumsum(5),
    lambda lib: lib.zeros(2, 3).prod((0, 1)),
    lambda lib: lib.max(lib.zeros(2, 3), 1.0),
    lambda lib: lib.zeros(2, 3).max(keepdim=True),
    lambda lib: lib.max(lib.zeros(2, 3), lib.zeros(3, 2)),
    lambda lib: lib.zeros(2, 3).amax((0, 0)),
]


@pytest.mark.parametrize("k", range(len(ERRORS)))
def test_errors_match_torch(k):
    with pytest.raises(Exception) as theirs:
        ERRORS[k](torch)
    with pytest.raises(type(theirs.value)) as ours:
        ERRORS[k](retrograd)
    if not isinstance(theirs.value, TypeError):
        assert str(ours.value) == str(theirs.value)


# ---------------------------------------------------------------------------- signatures and odd corners
@pytest.mark.parametrize("fn", [
    lambda lib, x: x.var(False), lambda lib, x: x.var(1, True, True), lambda lib, x: x.std(dim=(0, 1)),
    lambda lib, x: lib.var(x, 0, correction=2), lambda lib, x: x.sum(()), lambda lib, x: x.mean(()),
    lambda lib, x: x.amax(()), lambda lib, x: x.all(()), lambda lib, x: x.argmax(keepdim=True),
    lambda lib, x: x.argmin(1, True), lambda lib, x: lib.norm(x, None), lambda lib, x: x.norm(2, 1, True),
    lambda lib, x: lib.aminmax(x, keepdim=True), lambda lib, x: x.count_nonzero(()),
    lambda lib, x: lib.tensor(3.).max(0), lambda lib, x: lib.tensor(3.).sort(), lambda lib, x: lib.tensor(3.).topk(1),
    lambda lib, x: lib.tensor(3.).median(0, True), lambda lib, x: lib.tensor(3.).kthvalue(1),
    lambda lib, x: lib.tensor(3.).cumsum(0), lambda lib, x: lib.tensor(3.).logsumexp(0)])
def test_call_forms_like_torch(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        (_, a), (_, b) = _both_reduce(fn, [[1., -2., 3.], [0.5, 4., -1.]])
    a = a if isinstance(a, tuple) else (a,)
    b = b if isinstance(b, tuple) else (b,)
    for u, v in zip(a, b):
        assert tuple(u.shape) == tuple(v.shape)
        np.testing.assert_allclose(_np_reduce(u), _np_reduce(v), equal_nan=True)


SPECIAL = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 1.0, 2.0])


def _inputs(seed: int, count: int):
    """(array, non_contiguous) pairs: 0-d to 3-d, ints and floats full of ties, some with NaN / inf / -0."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(count):
        nd = i % 4
        shape = tuple(int(rng.choice([1, 2, 3, 5, 17, 20, 40, 70])) for _ in range(nd))
        if nd and i % 7 == 0:
            shape = shape[:-1] + (0,)
        kind = i % 3
        if kind == 0:
            a = rng.integers(0, 3, size=shape).astype(rng.choice([np.int64, np.int32, np.uint8]))
        elif kind == 1:
            a = rng.choice(SPECIAL, size=shape).astype(rng.choice([np.float32, np.float64]))
        else:
            a = rng.integers(-1, 2, size=shape).astype(np.float32)
        out.append((np.asarray(a), nd >= 2 and i % 2 == 0))
    return out


CASES = _inputs(0, 36)


def _pair(a: np.ndarray, nc: bool):
    """The same tensor in both libraries; ``nc`` gives a transposed (non-contiguous) view."""
    if nc:
        base = np.ascontiguousarray(np.swapaxes(a, 0, -1))
        return torch.tensor(base).transpose(0, -1), R.tensor(base).transpose(0, -1)
    return torch.tensor(a), R.tensor(a)


def _same_ties(r, t, what=""):
    if isinstance(t, (tuple, list)):
        assert len(r) == len(t), what
        for x, y in zip(r, t):
            _same_ties(x, y, what)
        return
    assert tuple(r.shape) == tuple(t.shape), what
    assert str(r.dtype).split(".")[-1] == str(t.dtype).split(".")[-1], what
    rn, tn = r.detach().numpy(), t.detach().numpy()
    if tn.dtype.kind == "f":
        ok = ((rn == tn) & (np.signbit(rn) == np.signbit(tn))) | (np.isnan(rn) & np.isnan(tn))
        assert ok.all(), (what, rn, tn)
    else:
        np.testing.assert_array_equal(rn, tn, err_msg=what)


def _both_ties(fn, a, nc, what=""):
    ta, ra = _pair(a, nc)
    try:
        want = fn(torch, ta)
    except Exception as e:  # the same exception type and first line of message
        with pytest.raises(type(e)) as info:
            fn(R, ra)
        assert str(info.value).split("\n")[0] == str(e).split("\n")[0]
        return
    _same_ties(fn(R, ra), want, what)


def _dims(a):
    return range(-max(a.ndim, 1), max(a.ndim, 1))


# ---------------------------------------------------------------- max / min / argmax / argmin / cummax
@pytest.mark.parametrize("case", range(len(CASES)))
def test_extrema(case):
    a, nc = CASES[case]
    for f in ("max", "min", "argmax", "argmin"):
        _both_ties(lambda L, x: getattr(L, f)(x), a, nc, f)
    for d in _dims(a):
        for keepdim in (False, True):
            for f in ("max", "min", "argmax", "argmin"):
                _both_ties(lambda L, x: getattr(L, f)(x, d, keepdim), a, nc, (f, d))
        for f in ("cummax", "cummin"):
            _both_ties(lambda L, x: getattr(L, f)(x, d), a, nc, (f, d))


def _outcome(fn):
    """(kind, payload) of calling fn: its value as nested lists + dtype name, or the exception."""
    try:
        r = fn()
    except Exception as e:  # noqa: BLE001 (the exception itself is compared)
        return ("exc", type(e).__name__, str(e))
    if hasattr(r, "dtype") and hasattr(r, "tolist"):
        return ("tensor", str(r.dtype).split(".")[-1], r.tolist())
    return ("value", r)


# ---------------------------------------------------------------- 6. empty reductions are silent
EMPTY_REDUCTIONS = {
    "mean all": lambda T: T.tensor([]).mean(),
    "mean dim 0": lambda T: T.zeros(0, 3).mean(0),
    "mean dim 1": lambda T: T.zeros(0, 3).mean(1),
    "mean keepdim f64": lambda T: T.zeros(0, 3, dtype=T.float64).mean(0, keepdim=True),
    "var": lambda T: T.tensor([]).var(),
    "std": lambda T: T.tensor([]).std(),
    "var dim": lambda T: T.zeros(0, 3).var(0),
    "std dim 1": lambda T: T.zeros(0, 3).std(1),
    "var_mean": lambda T: T.var_mean(T.tensor([]))[1],
    "std_mean dim": lambda T: T.std_mean(T.zeros(0, 2), 0)[1],
    "mean grad": lambda T: (lambda x: (x.mean(0).sum().backward(), x.grad)[1])(T.zeros(0, 3, requires_grad=True)),
}


@pytest.mark.parametrize("case", list(EMPTY_REDUCTIONS))
def test_empty_reductions_are_nan_without_numpy_warnings(case):
    fn = EMPTY_REDUCTIONS[case]
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        ours = _outcome(lambda: fn(rg))
    assert [str(x.message) for x in w if x.category is RuntimeWarning] == []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = _outcome(lambda: fn(torch))
    assert str(ours).replace("nan", "NaN") == str(theirs).replace("nan", "NaN")


def _pair_expr(make):
    return make(torch), make(retrograd)


def _same_error(fn_src):
    """Run ``fn_src`` (an expression in ``T``) in both libraries: same exception type and text."""
    errs = []
    for lib in (torch, retrograd):
        try:
            eval(fn_src, {"T": lib})
        except Exception as e:  # noqa: BLE001 - we compare whatever each raises
            errs.append((type(e), str(e)))
        else:
            errs.append(None)
    assert errs[0] is not None, f"torch did not raise for {fn_src}"
    assert errs[1] is not None, f"retrograd did not raise for {fn_src}"
    assert errs[0][0] is errs[1][0], (fn_src, errs)
    assert errs[0][1] == errs[1][1], (fn_src, errs)


I = "T.tensor([1, -2, 2])"


F = "T.tensor([1., 2.])"


FG = "T.tensor([1., 2.], requires_grad=True)"


# ---------------------------------------------------------------- 3. integer dtype= with autograd
@pytest.mark.parametrize("src", [
    f"T.sum({FG}, dtype=T.int64)", f"T.sum({FG}, 0, dtype=T.int64)", f"T.sum({FG}, dtype=T.bool)",
    f"T.prod({FG}, dtype=T.int64)", f"T.prod({FG}, 0, dtype=T.int32)", f"T.nansum({FG}, dtype=T.int64)",
    f"T.cumsum({FG}, 0, dtype=T.int64)", f"T.cumprod({FG}, 0, dtype=T.int64)",
    f"T.nanmean({FG}, dtype=T.int64)", f"T.nanmean({F}, dtype=T.int64)", f"T.nanmean({FG}, 0, dtype=T.int64)",
    f"{FG}.sum(dtype=T.int64)",
])
def test_grad_dtype_errors(src):
    _same_error(src)


def test_integer_dtype_without_grad_still_works():
    for src in (f"T.sum({F}, dtype=T.int64)", f"T.cumsum({FG}.detach(), 0, dtype=T.int64)"):
        t = eval(src, {"T": torch})
        r = eval(src, {"T": retrograd})
        assert str(r.dtype).endswith("int64") and not r.requires_grad
        np.testing.assert_array_equal(r.numpy(), t.numpy())
    with retrograd.no_grad():
        r = retrograd.sum(retrograd.tensor([1.5, 2.], requires_grad=True), dtype=retrograd.int64)
    assert r.item() == 3


def test_float_dtype_with_grad_keeps_graph():
    for lib in (torch, retrograd):
        x = lib.tensor([1., 2., 3.], requires_grad=True)
        y = lib.cumprod(x, 0, dtype=lib.float64)
        g, = lib.autograd.grad(y.sum(), x)
        np.testing.assert_allclose(g.numpy(), [1 + 2 + 6, 1 + 3, 2])
        assert type(y.grad_fn).__name__ == "CumprodBackward0"


# ---------------------------------------------------------------- 4. keepdim without dim
@pytest.mark.parametrize("name,src", [
    ("sum", f"{F}.sum(keepdim=True)"), ("mean", f"{F}.mean(keepdim=True)"), ("prod", f"{F}.prod(keepdim=True)"),
    ("mean", f"{I}.mean(keepdim=True)"), ("sum", f"T.sum({F}, keepdim=True)"),
    ("mean", f"T.mean({F}, keepdim=True)"), ("prod", f"T.prod({F}, keepdim=True)"),
])
def test_keepdim_without_dim(name, src):
    with pytest.raises(TypeError) as et:
        eval(src, {"T": torch})
    with pytest.raises(TypeError) as er:
        eval(src, {"T": retrograd})
    assert str(et.value).startswith(f"{name}() received an invalid combination of arguments")
    assert str(er.value).startswith(f"{name}() received an invalid combination of arguments")


def test_keepdim_with_dim_still_works():
    t, r = _pair_expr(lambda L: L.tensor([[1., 2.], [3., 4.]]).mean(1, keepdim=True))
    assert tuple(r.shape) == tuple(t.shape) == (2, 1)
    np.testing.assert_allclose(r.numpy(), t.numpy())
