"""Tests of the creation ops (src/retrograd/_ops/creation.py), checked against PyTorch."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import retrograd
import retrograd as rg

torch = pytest.importorskip("torch")

from ._reduce_shape_helpers import _raises_same, _same  # noqa: E402
from .._error_compare import _err as _err_api  # noqa: E402


# ------------------------------------------------------------------ creation ops
ARANGE = [(0.0, -8.000001, -4.0), (1.0, 5.000001, 2.0), (-0.9, 2.1, 2.0), (2.1, -2.9, -1.0), (0.1, -7.9, -4.0),
          (-3.5, 3.2, 1.3), (0.5, 3.7, 0.6), (3, 10.5, 1), (0.5, 0.9, -1), (-0.5, 0.5, 0.5), (5, 0, -0.5),
          (2 ** 40 + 0.5, 2 ** 40 + 3, 1), (0, 1, 0), (0, float("inf"), 0.5), (0, 5.5, float("nan"))]


@pytest.mark.parametrize("dtype", ["int64", "int32", "int16", "uint8"])
def test_arange_with_fractional_bounds_in_integer_dtypes(dtype):
    for args in ARANGE:
        outs = []
        for lib in (rg, torch):
            try:
                outs.append(lib.arange(*args, dtype=getattr(lib, dtype)).tolist())
            except Exception as e:  # noqa: BLE001 - compared across libraries
                outs.append((type(e).__name__, str(e)))
        assert outs[0] == outs[1], args


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8"])
def test_linspace_integer_dtypes_truncate_bounds_first(dtype):
    for start, end, steps in [(4.3, -3, 50), (4.3, 0, 50), (4.3, 1, 5), (4.3, -3, 5), (4.3, 10, 5), (-2.7, 9.9, 7),
                              (4.3, -3, 1), (4.3, -3, 0)]:
        if dtype == "uint8" and start < 0:
            _raises_same(lambda lib: lib.linspace(start, end, steps, dtype=lib.uint8))
            continue
        r = rg.linspace(start, end, steps, dtype=getattr(rg, dtype))
        t = torch.linspace(start, end, steps, dtype=getattr(torch, dtype))
        _same(r, t)


def test_scalar_creation_wraps_or_refuses_like_torch():
    for call in (lambda lib: lib.full_like(lib.zeros(3, dtype=lib.uint8), -9),
                 lambda lib: lib.scalar_tensor(-5, dtype=lib.uint8),
                 lambda lib: lib.index_add(lib.zeros(3, dtype=lib.uint8), 0, lib.tensor([0, 1]),
                                           lib.tensor([1, 2], dtype=lib.uint8), alpha=-1),
                 lambda lib: lib.index_add(lib.zeros(3, dtype=lib.uint8), 0, lib.tensor([0, 1]),
                                           lib.tensor([1, 2], dtype=lib.uint8), alpha=2.5)):
        _same(call(rg), call(torch))
    for call in (lambda lib: lib.full_like(lib.zeros(3, dtype=lib.uint8), 300),
                 lambda lib: lib.scalar_tensor(-5.5, dtype=lib.uint8),
                 lambda lib: lib.full_like(lib.zeros(2, dtype=lib.int8), 200)):
        _raises_same(call)


def test_vander_grad_by_gradcheck():
    # torch's own vander backward fails (an in-place cumprod), so check ours numerically
    x = retrograd.tensor([0.5, -1.2, 2.0], dtype=retrograd.float64, requires_grad=True)
    assert retrograd.autograd.gradcheck(lambda x: retrograd.vander(x, 4), (x,))
    assert retrograd.autograd.gradgradcheck(lambda x: retrograd.vander(x, 4, True), (x,))


def test_asarray_shares_memory():
    a = np.zeros(3, dtype=np.float32)
    t = retrograd.asarray(a)
    a[0] = 5
    assert t[0].item() == 5
    assert retrograd.asarray(t) is t
    c = retrograd.asarray(a, copy=True)
    a[1] = 7
    assert c[1].item() == 0
    assert retrograd.asarray([1, 2]).dtype == retrograd.int64
    assert retrograd.asarray([1., 2.], dtype=retrograd.float64).dtype == retrograd.float64


def test_range_inclusive_and_warns():
    with pytest.warns(UserWarning, match="torch.range is deprecated"):
        r = retrograd.range(0, 1, 0.25)
    assert r.tolist() == [0., 0.25, 0.5, 0.75, 1.] and r.dtype == retrograd.float32


def _name(d) -> str:
    return str(d).split(".")[-1]


# ------------------------------------------------------------------ creation dtype inference
def _data(lib):
    """Nested data built with each library's own tensors where needed."""
    t = lib.tensor
    return [
        [1, 2], [1.0, 2], [True, False], [True, 1], [True, 1.5], [[1, 2], [3.0, 4]], [], [[]],
        [np.float32(1.0), 2], [np.float64(1.0), 2], [np.int32(1)], [np.bool_(True)], np.float32(2.0),
        [t(1, dtype=lib.int32), t(2, dtype=lib.int32)], [t(1, dtype=lib.int32), 2], [t(1, dtype=lib.int32), 2.5],
        [t(1.0, dtype=lib.float64), 2], [t(1.0, dtype=lib.float16), 2.0], [t(1, dtype=lib.uint8), t(1, dtype=lib.int8)],
        [[t(1.0), t(2.0)]], [np.ones(2, dtype=np.float32), np.ones(2, dtype=np.float32)], [np.ones(2), [1, 2]],
        range(3), (1, 2.5), 7, 2.5, False,
    ]


def test_tensor_infers_dtype_like_torch():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours, theirs = _data(retrograd), _data(torch)
        for k, (d_ours, d_theirs) in enumerate(zip(ours, theirs)):
            r, t = retrograd.tensor(d_ours), torch.tensor(d_theirs)
            assert _name(r.dtype) == _name(t.dtype), (k, d_theirs)
            np.testing.assert_array_equal(r.numpy(), t.numpy())


def test_tensor_inference_follows_the_default_dtype():
    retrograd.set_default_dtype(retrograd.float64)
    try:
        assert retrograd.tensor([1, 2.5]).dtype is retrograd.float64
        assert retrograd.tensor([np.float32(1.0), 2.5]).dtype is retrograd.float64
    finally:
        retrograd.set_default_dtype(retrograd.float32)


def test_tensor_errors_match_torch():
    for bad in (["a"], None, [None]):
        with pytest.raises(Exception) as ours:
            retrograd.tensor(bad)
        with pytest.raises(Exception) as theirs:
            torch.tensor(bad)
        assert type(ours.value) is type(theirs.value)
        assert str(ours.value) == str(theirs.value)


def test_complex_is_refused_clearly():
    with pytest.raises(TypeError, match="complex"):
        retrograd.tensor([1 + 2j])
    with pytest.raises(TypeError, match="complex"):
        retrograd.from_numpy(np.ones(2, dtype=np.complex128))
    # torch's complex dtypes exist as names (dtype tables, comparisons), but no tensor has one
    assert retrograd.complex64.is_complex and retrograd.cfloat is retrograd.complex64
    with pytest.raises(TypeError, match="complex"):
        retrograd.zeros(2, dtype=retrograd.complex64)


# (np.bool_ fills: torch gives float32, retrograd bool; not covered here)
@pytest.mark.parametrize("fill", [True, 3, 2.5, np.float64(3.0), np.int32(3)])
def test_full_infers_dtype_like_torch(fill):
    r, t = retrograd.full((2, 3), fill), torch.full((2, 3), fill)
    assert _name(r.dtype) == _name(t.dtype)
    np.testing.assert_array_equal(r.numpy(), t.numpy())
    r = retrograd.full((2,), retrograd.tensor(3, dtype=retrograd.int32))
    assert _name(r.dtype) == _name(torch.full((2,), torch.tensor(3, dtype=torch.int32)).dtype)


def test_full_like_and_empty_like_keep_the_input_dtype():
    for name in ("int32", "float64", "bool"):
        x, tx = retrograd.ones(2, 3, dtype=getattr(retrograd, name)), torch.ones(2, 3, dtype=getattr(torch, name))
        for f in ("empty_like", "zeros_like", "ones_like"):
            r, t = getattr(retrograd, f)(x), getattr(torch, f)(tx)
            assert _name(r.dtype) == _name(t.dtype) and tuple(r.shape) == tuple(t.shape)
        assert _name(retrograd.full_like(x, 3).dtype) == _name(torch.full_like(tx, 3).dtype)
        assert retrograd.empty_like(x, dtype=retrograd.float16).dtype is retrograd.float16
    assert retrograd.empty_like(retrograd.ones(2), requires_grad=True).requires_grad


@pytest.mark.parametrize("args", [(0, 2, 3), (0, 3, 4, 2.0), (-1, 1, 7), (0.5, 3.7, 11), (1, 2, 1), (0, 0, 0),
                                  (2, -2, 9, 3.0), (-3.3, 2.1, 17, 7.0), (1.5, 1.5, 4, 2.0)])
@pytest.mark.parametrize("dtype", [None, "float64", "float16", "int64", "int32"])
def test_logspace_matches_torch(args, dtype):
    kw_r = {} if dtype is None else {"dtype": getattr(retrograd, dtype)}
    kw_t = {} if dtype is None else {"dtype": getattr(torch, dtype)}
    r = retrograd.logspace(*args[:3], base=args[3] if len(args) > 3 else 10.0, **kw_r)
    t = torch.logspace(*args[:3], base=args[3] if len(args) > 3 else 10.0, **kw_t)
    assert _name(r.dtype) == _name(t.dtype) and tuple(r.shape) == tuple(t.shape)
    # PyTorch's exponent arithmetic can differ from ours in the last bit
    rtol = {None: 1e-6, "float64": 1e-14, "float16": 3e-3}.get(dtype, 0)
    np.testing.assert_allclose(r.numpy().astype(float), t.numpy().astype(float), rtol=rtol)


def test_logspace_tensor_bounds_and_errors():
    np.testing.assert_allclose(retrograd.logspace(retrograd.tensor(0.), retrograd.tensor(2.), 3).numpy(), [1, 10, 100])
    with pytest.raises(RuntimeError, match="number of steps must be non-negative"):
        retrograd.logspace(0, 1, -1)


def _err(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        return type(e).__name__, str(e).split(" (Triggered")[0]
    return None


@pytest.mark.parametrize("name", ["hann_window", "hamming_window", "blackman_window", "bartlett_window",
                                  "kaiser_window"])
@pytest.mark.parametrize("n", [0, 1, 2, 7, 16])
@pytest.mark.parametrize("periodic", [True, False])
def test_windows(name, n, periodic):
    for rd, td in [(retrograd.float64, torch.float64), (retrograd.float32, torch.float32)]:
        r = getattr(retrograd, name)(n, periodic, dtype=rd)
        t = getattr(torch, name)(n, periodic, dtype=td)
        assert r.dtype == rd and tuple(r.shape) == tuple(t.shape)
        np.testing.assert_allclose(r.numpy(), t.numpy(), atol=1e-6 if rd == retrograd.float32 else 1e-14)
    r = getattr(retrograd, name)(n, periodic, requires_grad=True)
    assert r.requires_grad and r.dtype == retrograd.float32


def test_window_errors():
    assert _err(lambda: retrograd.hann_window(-1)) == _err(lambda: torch.hann_window(-1))
    assert _err(lambda: retrograd.hann_window(3, dtype=retrograd.int64)) == \
        _err(lambda: torch.hann_window(3, dtype=torch.int64))


def test_frombuffer_and_empty_strided():
    buf = bytearray(np.arange(4, dtype=np.int32).tobytes())
    r = retrograd.frombuffer(buf, dtype=retrograd.int32, count=2, offset=4)
    t = torch.frombuffer(bytearray(buf), dtype=torch.int32, count=2, offset=4)
    assert r.tolist() == t.tolist() and r.dtype == retrograd.int32
    assert retrograd.frombuffer(memoryview(buf), dtype=retrograd.float32).shape == (4,)
    for kw in [dict(count=5), dict(offset=16), dict(offset=-1), dict(count=0)]:
        assert _err(lambda: retrograd.frombuffer(buf, dtype=retrograd.int32, **kw)) == \
            _err(lambda: torch.frombuffer(bytearray(buf), dtype=torch.int32, **kw))
    e = retrograd.empty_strided((2, 3), (1, 2), dtype=retrograd.float64)
    assert e.shape == (2, 3) and e.stride() == (1, 2) and e.dtype == retrograd.float64


def test_empty_permuted_strides_and_errors():
    for size, perm in (((2, 3, 4), (0, 2, 1)), ((2, 3, 4), (2, 0, 1)), ((5,), (0,))):
        assert retrograd.empty_permuted(size, perm).stride() == torch.empty_permuted(size, perm).stride()
    r, t = _err_api(lambda: retrograd.empty_permuted((2, 3), (0,)), lambda: torch.empty_permuted((2, 3), (0,)))
    assert r == t


def _outcome(fn):
    """(kind, payload) of calling fn: its value as nested lists + dtype name, or the exception."""
    try:
        r = fn()
    except Exception as e:  # noqa: BLE001 (the exception itself is compared)
        return ("exc", type(e).__name__, str(e))
    if hasattr(r, "dtype") and hasattr(r, "tolist"):
        return ("tensor", str(r.dtype).split(".")[-1], r.tolist())
    return ("value", r)


def _recorded(fn):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        fn()
    return [(x.category.__name__, str(x.message).split(" (Triggered internally")[0]) for x in w]


# ---------------------------------------------------------------- 2. torch.tensor of lists of tensors
TENSOR_LIST_CASES = {
    "one-element 1-d": lambda T: T.tensor([T.tensor([1.]), T.tensor([2.])]),
    "0-d": lambda T: T.tensor([T.tensor(1.), T.tensor(2.)]),
    "0-d int": lambda T: T.tensor([T.tensor(1), T.tensor(2)]),
    "0-d int and float": lambda T: T.tensor([T.tensor(1), 2.5]),
    "one-element 2-d": lambda T: T.tensor([T.ones(1, 1), T.ones(1, 1)]),
    "nested": lambda T: T.tensor([[T.tensor([1.])], [T.tensor([2.])]]),
    "nested mixed": lambda T: T.tensor([[T.tensor(1.)], [2.]]),
    "float64 promotes": lambda T: T.tensor([T.tensor([1.], dtype=T.float64), T.tensor([2.])]),
    "int32 and int16": lambda T: T.tensor([T.tensor(2, dtype=T.int32), T.tensor(3, dtype=T.int16)]),
    "tuple": lambda T: T.tensor((T.tensor([1.]), T.tensor([2.]))),
    "int tensors, float dtype": lambda T: T.tensor([T.tensor([1]), T.tensor([2])], dtype=T.float32),
    "float tensors, int dtype": lambda T: T.tensor([T.tensor([1.]), T.tensor([2.])], dtype=T.int64),
    "multi-element": lambda T: T.tensor([T.tensor([1., 2.]), T.tensor([2., 3.])]),
    "multi-element 2-d": lambda T: T.tensor([T.ones(2, 2)]),
    "empty element": lambda T: T.tensor([T.ones(0)]),
    "ragged": lambda T: T.tensor([[T.tensor(1.)], [T.tensor(2.), 3.]]),
    "ndarrays": lambda T: T.tensor([np.ones(2), np.zeros(2)]),
    "ndarrays nested": lambda T: T.tensor([[np.ones(2)], [np.ones(2)]]),
    "ndarray and list": lambda T: T.tensor([np.ones(2, dtype=np.float32), [1., 2.]]),
    "0-d ndarrays": lambda T: T.tensor([np.array(1.), np.array(2.)]),
    "numpy scalars": lambda T: T.tensor([np.float64(1), np.float64(2)]),
}


@pytest.mark.parametrize("case", list(TENSOR_LIST_CASES))
def test_tensor_of_list_of_tensors_like_torch(case):
    fn = TENSOR_LIST_CASES[case]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert _outcome(lambda: fn(rg)) == _outcome(lambda: fn(torch))


def test_tensor_of_tensors_requiring_grad_warns_and_is_a_leaf():
    a = rg.ones(1, requires_grad=True)
    w = _recorded(lambda: rg.tensor([a, a]))
    assert w == [("UserWarning", "Converting a tensor with requires_grad=True to a scalar may lead to unexpected "
                                 "behavior.\nConsider using tensor.detach() first.")]
    t = rg.tensor([a, a])
    assert t.grad_fn is None and not t.requires_grad


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("out_dtype", ["float32", "float64", "int64"])
def test_range_out_computes_in_out_dtype(out_dtype):
    res = []
    for lib in (torch, retrograd):
        o = lib.empty(0, dtype=getattr(lib, out_dtype))
        assert lib.range(0, 4, out=o) is o
        res.append((str(o.dtype).split(".")[-1], o.double().numpy().tolist()))
    assert res[0] == res[1]


@pytest.mark.parametrize("case", [
    lambda T: (lambda o: (T.zeros(3, out=o) is o, o))(T.empty(2, dtype=T.int64)),   # out's dtype, resized
    lambda T: (lambda o: (T.arange(3, out=o) is o, o))(T.empty(3)),
    lambda T: (lambda o: (T.linspace(0, 1, 3, out=o) is o, o))(T.empty(3, dtype=T.int64)),
    lambda T: (lambda o: (T.eye(2, out=o) is o, o))(T.empty(2, 2)),
    lambda T: (lambda o: (T.full((2,), 3., out=o) is o, o))(T.empty(1)),
    lambda T: T.zeros(2, out=T.empty(2), dtype=T.int64),                              # dtype clash
    lambda T: T.ones(2, out=T.empty(2, requires_grad=True)),
    lambda T: T.full((2,), 2.5, out=T.empty(2, dtype=T.int64)),
    lambda T: T.eye(2, 3, out=T.empty(0, dtype=T.bool)),
    lambda T: T.arange(0, 1, 0.3, out=T.empty(0, dtype=T.int64)),                  # int out: step 0
    lambda T: T.logspace(0, 2, 3, out=T.empty(3, dtype=T.float64)),
    lambda T: (lambda o: (T.ones(3, out=o), o[:1]))(T.empty(3)),                    # same shape: in place
])
def test_factory_functions_out_as_torch(case):
    def run(T):
        try:
            return "ok", repr(case(T))
        except Exception as exc:  # noqa: BLE001 - type and text compared with torch's
            return type(exc).__name__, str(exc)

    assert run(retrograd) == run(torch)
