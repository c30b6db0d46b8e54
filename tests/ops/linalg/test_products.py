"""Tests of the products ops (src/retrograd/_ops/linalg/products.py), checked against PyTorch."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import retrograd
import retrograd as rg

torch = pytest.importorskip("torch")

from .._reduce_shape_helpers import _grads_match  # noqa: E402
from parity import same_error  # noqa: E402


torch.set_default_dtype(torch.float32)


def test_cross_without_dim_warns_like_torch():
    a = np.arange(12.).reshape(4, 3)
    with pytest.warns(UserWarning, match="Using torch.cross without specifying the dim arg is deprecated"):
        r = retrograd.cross(retrograd.tensor(a), retrograd.tensor(a[::-1].copy()))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = torch.cross(torch.tensor(a), torch.tensor(a[::-1].copy()))
    np.testing.assert_array_equal(r.numpy(), t.numpy())


@pytest.mark.parametrize("shapes,grad", [(((3,), (2, 3, 4)), (True, False)), (((2, 3, 4), (4,)), (False, True)),
                                         (((2, 3), (2, 3, 2)), (True, True)), (((2, 3), (2, 3, 2)), (False, True)),
                                         (((2, 1, 2, 3), (3, 3, 2)), (True, True))])
def test_matmul_batched_dispatch_matches_torch(shapes, grad):
    """grad_fn names and values of the >= 3-d matmul paths (folded mm / mv, bmm)."""
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(s) for s in shapes]
    res = []
    for lib in (retrograd, torch):
        xs = [lib.tensor(a, requires_grad=g) for a, g in zip(arrays, grad)]
        out = lib.matmul(*xs)
        out.backward(lib.ones(tuple(out.shape), dtype=out.dtype))
        res.append((type(out.grad_fn).__name__, out.detach().numpy(), [x.grad for x in xs]))
    assert res[0][0] == res[1][0]
    np.testing.assert_allclose(res[0][1], res[1][1], atol=1e-12)
    for a, b in zip(res[0][2], res[1][2]):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(a.numpy(), b.numpy(), atol=1e-12)


@pytest.mark.parametrize("a,b", [((5, 5, 0), (0, 5)), ((0, 0), (5, 0, 0)), ((0,), (2, 0, 3)),
                                 ((2, 0), (3, 0, 4)), ((3, 0, 2), (2,))])
def test_matmul_empty(a, b):
    res = []
    for lib in (torch, rg):
        x = lib.zeros(a, requires_grad=True)
        y = lib.zeros(b, requires_grad=True)
        r = x @ y
        r.sum().backward()
        res.append((tuple(r.shape), type(r.grad_fn).__name__, tuple(x.grad.shape), tuple(y.grad.shape)))
    assert res[0] == res[1]


def test_matmul_with_empty_batched_operands():
    for a, b in [((5, 5, 0), (0, 5)), ((0, 0), (5, 0, 0)), ((2, 0, 3), (3, 4))]:
        _grads_match(lambda lib, x, y: lib.matmul(x, y), np.zeros(a), np.zeros(b))


def _outcome(fn):
    """(kind, payload) of calling fn: its value as nested lists + dtype name, or the exception."""
    try:
        r = fn()
    except Exception as e:  # noqa: BLE001 (the exception itself is compared)
        return ("exc", type(e).__name__, str(e))
    if hasattr(r, "dtype") and hasattr(r, "tolist"):
        return ("tensor", str(r.dtype).split(".")[-1], r.tolist())
    return ("value", r)


# ---------------------------------------------------------------- 3. out=
def _out_cases(T):
    a, b, v = T.ones(2, 3), T.arange(6.).reshape(3, 2), T.arange(3.)
    return {
        "matmul": (T.matmul, (a, b)), "mm": (T.mm, (a, b)), "bmm": (T.bmm, (a[None], b[None])),
        "mv": (T.mv, (a, v)), "dot": (T.dot, (v, v)),
        "matmul 3d@2d": (T.matmul, (T.ones(4, 2, 3), b)), "matmul 1d@2d": (T.matmul, (v, b)),
        "matmul 1d@3d": (T.matmul, (T.ones(2), T.ones(4, 2, 3))), "matmul 1d@1d": (T.matmul, (v, v)),
    }


@pytest.mark.parametrize("name", list(_out_cases(torch)))
@pytest.mark.parametrize("out_kind", ["empty", "right", "wrong shape", "float64", "int64", "list", "arg grad",
                                      "out grad", "arg grad no_grad"])
def test_matrix_products_out_like_torch(name, out_kind):
    def run(T):
        fn, args = _out_cases(T)[name]
        expected = fn(*args)
        if out_kind in ("arg grad", "arg grad no_grad"):
            args = (args[0].clone().requires_grad_(), *args[1:])
        out = {"empty": lambda: T.empty(0), "right": lambda: T.empty(expected.shape),
               "wrong shape": lambda: T.empty(7), "float64": lambda: T.empty(0, dtype=T.float64),
               "int64": lambda: T.empty(0, dtype=T.int64), "list": lambda: [1],
               "out grad": lambda: T.empty(0, requires_grad=True)}.get(out_kind, lambda: T.empty(0))()
        warned = []

        def call():
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                if out_kind == "arg grad no_grad":
                    with T.no_grad():
                        r = fn(*args, out=out)
                else:
                    r = fn(*args, out=out)
            warned.extend(str(x.message).split(" (Triggered internally")[0] for x in w)
            assert r is out
            return r
        return _outcome(call), warned
    assert run(rg) == run(torch)


def test_matmul_out_writes_into_a_view():
    def run(T):
        base = T.zeros(3, 2)
        T.matmul(T.ones(2, 3), T.arange(6.).reshape(3, 2), out=base[:2])
        return base.tolist()
    assert run(rg) == run(torch)


MATMUL_OPERANDS = {"list": [1., 1.], "tuple": (1., 1.), "None": None, "str": "ab", "int": 2, "float": 2.0,
                   "numpy float": np.float64(2.), "bool": True, "object": object()}


@pytest.mark.parametrize("operand", list(MATMUL_OPERANDS))
def test_matmul_operator_with_non_tensors_like_torch(operand):
    def run(T):
        other = MATMUL_OPERANDS[operand]
        m = T.ones(2, 2)
        return _outcome(lambda: m @ other), _outcome(lambda: other @ m)
    ours, theirs = run(rg), run(torch)
    assert ours == theirs
    assert ours[0][:2] == ("exc", "TypeError") and "unsupported operand type(s) for @" in ours[0][2]


def test_matmul_operator_with_tensors_and_ndarrays_like_torch():
    def run(T):
        m = T.arange(4.).reshape(2, 2)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = m @ np.ones(2)
        return (m @ m).tolist(), type(r).__name__, str(r.dtype).split(".")[-1], r.tolist()
    assert run(rg) == run(torch)
    with pytest.raises(TypeError, match="must be Tensor, not list"):
        rg.ones(2, 2).matmul([1., 1.])


# ---- found by the differential fuzzer (tests/fuzz)
def test_dot_of_negative_zero_products_is_positive_zero():
    for a, b in (([-0.0], [1.0]), ([-0.0, -0.0], [1.0, 2.0]), ([0.0], [-1.0])):
        r = rg.dot(rg.tensor(a), rg.tensor(b))
        t = torch.dot(torch.tensor(a), torch.tensor(b))
        assert (r.item(), bool(np.signbit(r.item()))) == (t.item(), bool(torch.signbit(t)))


@pytest.mark.parametrize("shapes", [((2, 3, 4), (5, 4)), ((2, 3, 4), (5,)), ((1, 1, 3), (4, 2))])
def test_batched_matmul_with_a_matrix_or_vector_folds_and_reports_mm_mv_errors(shapes):
    same_error(lambda L: L.zeros(shapes[0]) @ L.zeros(shapes[1]))
    same_error(lambda L: L.zeros(shapes[0]) @ L.zeros(shapes[1], dtype=L.float64))
