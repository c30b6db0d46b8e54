"""Tests of the index dim ops (src/retrograd/_ops/index_dim.py), checked against PyTorch."""
from __future__ import annotations

import numpy as np
import pytest

import retrograd

torch = pytest.importorskip("torch")

from ._reduce_shape_helpers import _grads_match  # noqa: E402
from ._indexing_helpers import LIBS, _np as _np_indexing  # noqa: E402
from parity import same_error  # noqa: E402


def test_index_fill_value_grad_counts_each_slice_once():
    x = np.arange(6.0).reshape(2, 3)
    for idx in ([2, 1, 1, 2, 0], [0], [1, 1], [0, 0, 2]):
        _grads_match(lambda lib, a, v: lib.index_fill(a, -1, lib.tensor(idx), v), x, 2.0)


@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_index_reduce_of_a_scalar(reduce, include_self):
    r, t = _grads_match(lambda lib, a, s: lib.index_reduce(a, 0, lib.tensor([0]), s, reduce,
                                                             include_self=include_self), 7.0, -5.0, second=False)
    assert type(r.grad_fn).__name__ == type(t.grad_fn).__name__


@pytest.mark.parametrize("include_self", [True, False])
def test_index_reduce_prod_gradient_with_zeros(include_self):
    a = [[0.0, 13.0], [0.0, 0.0], [15.0, 19.0]]
    s = [[2.0, 0.0], [0.0, 0.0], [2.0, 3.0], [2.0, 2.0]]
    _grads_match(lambda lib, x, y: lib.index_reduce(x, 0, lib.tensor([0, 1, 2, 0]), y, "prod",
                                                    include_self=include_self), a, s, second=False)


# ---------------------------------------------------------------------------- in-place index ops under autograd
INPLACE = [
    lambda lib, y, v: y.scatter_(1, lib.tensor([[0], [3], [2]]), v[:, :1]),
    lambda lib, y, v: y.scatter_(0, lib.tensor([[0, 1, 2, 1]]), 2.5),
    lambda lib, y, v: y.scatter_add_(0, lib.tensor([[0, 1, 2, 0], [0, 0, 1, 2]]), v[:2]),
    lambda lib, y, v: y.scatter_reduce_(0, lib.tensor([[0, 1, 2, 0], [0, 0, 1, 2]]), v[:2], "amax",
                                        include_self=False),
    lambda lib, y, v: y.scatter_reduce_(0, lib.tensor([[0, 1, 2, 0], [0, 0, 1, 2]]), v[:2], "prod"),
    lambda lib, y, v: y.index_add_(0, lib.tensor([0, 2, 0]), v, alpha=0.5),
    lambda lib, y, v: y.index_copy_(1, lib.tensor([3, 0]), v[:, :2]),
    lambda lib, y, v: y.index_fill_(1, lib.tensor([0, -1]), -1.0),
    lambda lib, y, v: y.index_fill_(0, lib.tensor([1]), v[0, 0]),
    lambda lib, y, v: y.masked_fill_(y > 0, 0.5),
    lambda lib, y, v: y.masked_fill_(lib.tensor([True, False, False, True]), v[1, 1]),
    lambda lib, y, v: y.masked_scatter_(y > 0, v),
    lambda lib, y, v: y.tril_(1),
    lambda lib, y, v: y.triu_(),
    lambda lib, y, v: y.index_put_((lib.tensor([0, 2]), lib.tensor([1, 1])), v[0, :2], accumulate=True),
]


@pytest.mark.parametrize("k", range(len(INPLACE)))
def test_inplace_index_ops_under_autograd(k):
    res = []
    for lib in LIBS:
        x = lib.tensor(np.linspace(-1.3, 1.7, 12).reshape(3, 4), requires_grad=True)
        v = lib.tensor(np.linspace(0.5, 2.0, 12).reshape(3, 4), requires_grad=True)
        y = x * 1
        r = INPLACE[k](lib, y, v)
        assert r is y and y._version == 1
        w = lib.tensor(np.arange(1., 13.).reshape(3, 4))
        gx, gv = lib.autograd.grad((y * y * w).sum(), (x, v), allow_unused=True)
        res.append((_np_indexing(y), type(y.grad_fn).__name__, gx, gv))
    (y1, n1, gx1, gv1), (y2, n2, gx2, gv2) = res
    np.testing.assert_allclose(y1, y2)
    assert n1 == n2
    for a, b in ((gx1, gx2), (gv1, gv2)):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(_np_indexing(a), _np_indexing(b))


@pytest.mark.parametrize("reduce", ["amax", "amin", "mean", "prod"])
@pytest.mark.parametrize("include_self", [True, False])
def test_index_reduce_grads_with_ties(reduce, include_self):
    res = []
    for lib in (retrograd, torch):
        a = lib.tensor([1., 5., 2., 3.], dtype=lib.float64, requires_grad=True)
        s = lib.tensor([5., 3., 5., 1.], dtype=lib.float64, requires_grad=True)
        o = a.index_reduce(0, lib.tensor([1, 1, 0, 0]), s, reduce, include_self=include_self)
        (o * lib.tensor([1., 2., 3., 4.], dtype=lib.float64)).sum().backward()
        res.append([o.detach().numpy(), a.grad.numpy(), s.grad.numpy()])
    for x, y in zip(*res):
        np.testing.assert_allclose(x, y, atol=1e-12)


@pytest.mark.parametrize("shape, dim, index", [((2, 0), 1, [0]), ((0, 3), 0, [1]), ((2, 0), 0, [5, 1]),
                                               ((0,), 0, [0]), ((3, 2), 0, [3]), ((3, 2), 1, [2])])
def test_index_select_out_of_range_and_empty_messages(shape, dim, index):
    same_error(lambda L: L.zeros(shape).index_select(dim, L.tensor(index, dtype=L.int64)))


@pytest.mark.parametrize("shape, dim", [((3, 2), 1), ((2, 3, 2), 1), ((2, 3, 2), 2), ((3, 2), 0), ((2, 3), -1)])
def test_index_select_out_of_range_type_depends_on_the_dim_kernel(shape, dim):
    # PyTorch's kernel for dim 1 raises RuntimeError (INDICES ...), the general one IndexError
    same_error(lambda L: L.zeros(shape).index_select(dim, L.tensor([5])))
