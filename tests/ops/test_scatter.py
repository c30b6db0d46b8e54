"""Tests of the scatter ops (src/retrograd/_ops/scatter.py), checked against PyTorch."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import retrograd
import retrograd as rg

torch = pytest.importorskip("torch")

from ._reduce_shape_helpers import _grads_match, _raises_same, _same  # noqa: E402
from ._indexing_helpers import LIBS, _base, _np as _np_indexing  # noqa: E402
from ._compare_helpers import _raises_like  # noqa: E402
from .._error_compare import _err, _np as _np_api  # noqa: E402
from ._differential_helpers import assert_same_layout  # noqa: E402


def test_select_scatter_of_a_vector():
    _grads_match(lambda lib, x, s: lib.select_scatter(x, s, 0, 2), [-4.8, -7.5, -0.6, -1.5], -4.1)


# ------------------------------------------------------------------ gather / scatter / index ops
def test_gather_scatter_take_empty_indices_of_any_dtype():
    x = np.arange(6.0).reshape(2, 3)
    for dt in ("uint8", "int16", "float32", "bool"):
        calls = [lambda lib, e: lib.gather(lib.tensor(x), 1, e.reshape(1, 0)),
                 lambda lib, e: lib.scatter(lib.tensor(x), 1, e.reshape(1, 0), 1.0),
                 lambda lib, e: lib.scatter_add(lib.tensor(x), 1, e.reshape(1, 0), lib.tensor(x)),
                 lambda lib, e: lib.scatter_reduce(lib.tensor(x), 1, e.reshape(1, 0), lib.tensor(x), "sum"),
                 lambda lib, e: lib.take_along_dim(lib.tensor(x), e),
                 lambda lib, e: lib.gather(lib.arange(5.0), 0, e.reshape(2, 0))]
        for call in calls:
            _same(call(rg, rg.tensor([], dtype=getattr(rg, dt))), call(torch, torch.tensor([], dtype=getattr(torch, dt))))
    _raises_same(lambda lib: lib.gather(lib.arange(5.0), 0, lib.tensor([1], dtype=lib.uint8)))
    _raises_same(lambda lib: lib.take_along_dim(lib.tensor(x), lib.tensor([[1]], dtype=lib.uint8), 1))


def test_gather_and_scatter_with_0d_operands():
    _grads_match(lambda lib, s: lib.gather(s, 0, lib.tensor([0, 0])), 3.0)
    _grads_match(lambda lib, s: lib.gather(s, 0, lib.tensor([], dtype=lib.long)), 3.0)
    _grads_match(lambda lib, x: lib.gather(x, 0, lib.tensor(1)), [0.0, 1.0, 2.0])
    _grads_match(lambda lib, s, v: lib.scatter_add(s, 0, lib.tensor([0, 0]), v), 3.0, [5.0, 6.0])
    _grads_match(lambda lib, s, v: lib.scatter(s, 0, lib.tensor([0]), v), 3.0, [5.0])
    _same(rg.scatter(rg.tensor(3.0), 0, rg.tensor([0, 0]), 7.0), torch.scatter(torch.tensor(3.0), 0,
                                                                                 torch.tensor([0, 0]), 7.0))
    for red in ("sum", "prod", "mean", "amax", "amin"):
        _grads_match(lambda lib, s, v: lib.scatter_reduce(s, 0, lib.tensor([0, 0]), v, red), 3.0, [5.0, 6.0],
                     second=False)
    _raises_same(lambda lib: lib.gather(lib.tensor(3.0), 0, lib.tensor([[0]])))


def test_take_along_dim_wraps_indices_along_a_dim():
    x = np.arange(10.0).reshape(2, 5)
    for idx, dim in [([[-1, -5]], 1), ([[-1], [-2]], 0), ([[-6, 5, 6, -11, -100]], -1)]:
        r, t = _grads_match(lambda lib, a: lib.take_along_dim(a, lib.tensor(idx), dim), x)
        assert type(r.grad_fn).__name__ == type(t.grad_fn).__name__
    _raises_same(lambda lib: lib.take_along_dim(lib.tensor(x), lib.tensor([-1])))  # (flattened: no wrap)


def test_scatter_with_reduce_values():
    res = []
    for lib in LIBS:
        x = _base(lib)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            a = x.scatter(0, lib.tensor([[0, 1, 0]]), 2.0, reduce="add")
            b = x.scatter(1, lib.tensor([[0, 0], [1, 1]]), x[:2, :2] + 1, reduce="multiply")
        res.append((_np_indexing(a), _np_indexing(b)))
    np.testing.assert_array_equal(res[0][0], res[1][0])
    np.testing.assert_array_equal(res[0][1], res[1][1])


def test_scatter_reduce_ties_and_zeros_like_torch():
    res = []
    for lib in LIBS:
        x = lib.tensor([[2., 0., 3.], [1., 5., 5.]], requires_grad=True)
        src = lib.tensor([[2., 0., 3.], [0., 5., 1.]], requires_grad=True)
        idx = lib.tensor([[0, 0, 0], [0, 1, 1]])
        ys = [x.scatter_reduce(0, idx, src, r, include_self=s) for r in ("amax", "amin", "prod", "mean")
              for s in (True, False)]
        gx, gs = lib.autograd.grad(sum((y * lib.tensor([[1., 2., 3.], [4., 5., 6.]])).sum() for y in ys), (x, src))
        res.append(([_np_indexing(y) for y in ys], _np_indexing(gx), _np_indexing(gs)))
    for a, b in zip(res[0][0], res[1][0]):
        np.testing.assert_allclose(a, b)
    np.testing.assert_allclose(res[0][1], res[1][1])
    np.testing.assert_allclose(res[0][2], res[1][2])


def test_scatter_helpers_errors_and_no_aliasing():
    _raises_like(lambda L: L.select_scatter(L.zeros(2, 2), L.ones(3), 0, 0))
    x = retrograd.zeros(2, 2)
    y = retrograd.slice_scatter(x, retrograd.ones(1, 2), 0, 0, 1)
    assert x.sum().item() == 0 and y.sum().item() == 2
    n = retrograd.narrow_copy(x, 0, 0, 1)
    n.add_(1)
    assert x.sum().item() == 0


# ------------------------------------------------------------------ op checks beyond op_db
def test_as_strided_scatter_offset_and_self_grad():
    # torch's own as_strided_scatter backward for self is wrong; the clone + copy_ form is the oracle
    xs = np.random.default_rng(0).standard_normal(6)
    g = np.arange(6.)
    x = retrograd.tensor(xs, requires_grad=True)
    y = retrograd.as_strided_scatter(x, retrograd.ones(3), (3,), (2,), 1)
    tx = torch.tensor(xs, requires_grad=True)
    ty = torch.as_strided_scatter(tx.detach(), torch.ones(3, dtype=torch.float64), (3,), (2,), 1)
    np.testing.assert_allclose(_np_api(y), _np_api(ty))
    y.backward(retrograd.tensor(g))
    z = tx.clone()
    z.as_strided((3,), (2,), 1).copy_(torch.ones(3))
    z.backward(torch.tensor(g))
    np.testing.assert_allclose(_np_api(x.grad), _np_api(tx.grad))
    r, t = _err(lambda: retrograd.as_strided_scatter(retrograd.zeros(4), retrograd.ones(3), (2,), (2,)),
                lambda: torch.as_strided_scatter(torch.zeros(4), torch.ones(3), (2,), (2,)))
    assert r == t


# ---- found by the differential fuzzer (tests/fuzz)
def test_gather_result_is_contiguous_whatever_the_index_layout():
    assert_same_layout(lambda L, x: x.gather(0, L.zeros_like(x, dtype=L.int64)))
