"""Indexing and shape semantics beyond the generic table: views (memory, version counter),
``x[key]`` / ``x[key] = v`` against PyTorch's rules, in-place index ops with autograd, errors.

torch is the oracle: every check runs the same code on both libraries.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import retrograd

torch = pytest.importorskip("torch")

from ._indexing_helpers import LIBS, _base, _np  # noqa: E402
from ._compare_helpers import _both, _raises_like, _same  # noqa: E402


# ---------------------------------------------------------------------------- getitem
GETITEM = [
    lambda lib: (slice(None, None, 2), slice(1, None, 2)),
    lambda lib: (None, 1, None),
    lambda lib: (Ellipsis, 1),
    lambda lib: (-1, -2),
    lambda lib: ([0, 2], [1, 3]),
    lambda lib: lib.tensor([[0, 2], [1, 1]]),
    lambda lib: lib.tensor([True, False, True]),
    lambda lib: (0, slice(None), [1, 2]),
    lambda lib: ([0, 1], slice(None), [1, 2]),
    lambda lib: (slice(None), [0, 1], 2),
    lambda lib: (1, [0, 1], 2),
    lambda lib: ([0, 1], None),
    lambda lib: (slice(None), None, [0, 1]),
    lambda lib: lib.tensor(1),
    lambda lib: (lib.tensor(1), lib.tensor(2)),
    lambda lib: True,
    lambda lib: False,
    lambda lib: lib.tensor(True),
    lambda lib: [[0, 1], [1, 2]],
    lambda lib: [],
    lambda lib: slice(lib.tensor(1), lib.tensor(3)),
    lambda lib: [0, slice(None)],
    lambda lib: (1, lib.tensor([True, False, True, True])),
    lambda lib: lib.tensor([1, 0, 1], dtype=lib.uint8),
    lambda lib: lib.tensor([0, 2], dtype=lib.int32),
    lambda lib: (Ellipsis,),
    lambda lib: (),
    lambda lib: slice(None),
    lambda lib: (slice(None),),
    lambda lib: np.int64(1),
    lambda lib: (slice(1, 100), slice(-100, 2)),
]


@pytest.mark.parametrize("k", range(len(GETITEM)))
def test_getitem_like_torch(k):
    res = []
    for lib in LIBS:
        x = _base(lib, (3, 4, 5), grad=True)
        y = x[GETITEM[k](lib)]
        (y * lib.tensor(np.arange(1., 1. + y.numel()).reshape(tuple(y.shape)))).sum().backward()
        res.append((tuple(y.shape), _np(y), type(y.grad_fn).__name__, _np(x.grad), y._base is not None))
    (s1, v1, n1, g1, b1), (s2, v2, n2, g2, b2) = res
    assert (s1, n1, b1) == (s2, n2, b2)
    np.testing.assert_array_equal(v1, v2)
    np.testing.assert_array_equal(g1, g2)


GETITEM_ERRORS = [
    lambda lib, x: x[3],
    lambda lib, x: x[[0, 3]],
    lambda lib, x: x[0, [5]],
    lambda lib, x: x[[0], [5]],
    lambda lib, x: x[None, [7]],
    lambda lib, x: x[0, 0, 0, 0],
    lambda lib, x: x[1.0],
    lambda lib, x: x[lib.tensor([0.5])],
    lambda lib, x: x[lib.tensor([True, False])],
    lambda lib, x: x[lib.tensor([True, False]), 1],
    lambda lib, x: x[::-1],
    lambda lib, x: lib.tensor(1.)[0],
]


@pytest.mark.parametrize("k", range(len(GETITEM_ERRORS)))
def test_getitem_errors_like_torch(k):
    with pytest.raises(Exception) as theirs:
        GETITEM_ERRORS[k](torch, _base(torch, (3, 4, 5)))
    with pytest.raises(type(theirs.value)) as ours:
        GETITEM_ERRORS[k](retrograd, _base(retrograd, (3, 4, 5)))
    assert str(ours.value) == str(theirs.value)


# ---------------------------------------------------------------------------- setitem
SETITEM = [
    (lambda lib: 1, lambda lib: lib.tensor([1., 2., 3., 4., 5.])),
    (lambda lib: (slice(None), 0), lambda lib: lib.tensor(7.)),
    (lambda lib: (slice(None, None, 2), slice(1, None, 2)), lambda lib: lib.ones(2, 1, 5)),
    (lambda lib: (Ellipsis, 1), lambda lib: lib.arange(12.).reshape(3, 4)),
    (lambda lib: (None, 0), lambda lib: lib.ones(4, 5)),
    (lambda lib: [0, 2], lambda lib: lib.arange(40.).reshape(2, 4, 5)),
    (lambda lib: (0, slice(None), [1, 0]), lambda lib: lib.arange(8.).reshape(4, 2)),
    (lambda lib: (slice(1, None), [0, 2]), lambda lib: lib.arange(20.).reshape(2, 2, 5)),
    (lambda lib: (slice(None), [0, 2]), lambda lib: lib.tensor(3.)),
    (lambda lib: lib.tensor([True, False, True]), lambda lib: lib.tensor(2.)),
    (lambda lib: _base(lib, (3, 4, 5)) > 20, lambda lib: lib.arange(34.)),
    (lambda lib: lib.tensor(1), lambda lib: lib.ones(1, 1, 4, 5)),
    (lambda lib: [[0, 1], [1, 2]], lambda lib: lib.tensor([1., 2., 3., 4., 5.])),
    (lambda lib: ([0, 2],), lambda lib: lib.ones(1, 1, 4, 5)),
    (lambda lib: (1, [0, 1], 2), lambda lib: lib.tensor([8., 9.])),
    (lambda lib: ..., lambda lib: 2.5),
    (lambda lib: slice(None), lambda lib: lib.ones(5)),
    (lambda lib: (0, 0), lambda lib: 3),
]


@pytest.mark.parametrize("k", range(len(SETITEM)))
def test_setitem_like_torch(k):
    key, value = SETITEM[k]
    res = []
    for lib in LIBS:
        x = _base(lib, (3, 4, 5), grad=True)
        v = value(lib)
        if isinstance(v, lib.Tensor):
            v = v.double().requires_grad_()
        y = x * 1
        y[key(lib)] = v
        w = lib.tensor(np.arange(1., 61.).reshape(3, 4, 5))
        leaves = [x] + ([v] if isinstance(v, lib.Tensor) else [])
        grads = lib.autograd.grad((y * w).sum(), leaves)
        res.append((_np(y), type(y.grad_fn).__name__, [_np(g) for g in grads], y._version))
    (y1, n1, g1, v1), (y2, n2, g2, v2) = res
    np.testing.assert_array_equal(y1, y2)
    assert n1 == n2
    assert v1 == v2 == 1
    for a, b in zip(g1, g2):
        np.testing.assert_array_equal(a, b)


def test_setitem_on_a_view_updates_the_base():
    res = []
    for lib in LIBS:
        x = _base(lib, (3, 4), grad=True)
        b = x * 1
        v = b[1:]
        v[0, [1, 3]] = lib.tensor([10., 20.], dtype=lib.float64)
        (b * lib.tensor(np.arange(12.).reshape(3, 4))).sum().backward()
        res.append((_np(b), _np(x.grad), b._version))
    np.testing.assert_array_equal(res[0][0], res[1][0])
    np.testing.assert_array_equal(res[0][1], res[1][1])


def test_setitem_integer_tensor_casts_like_torch():
    for lib in LIBS:
        z = lib.zeros(3, dtype=lib.int64)
        z[0] = 2.7
        z[1:] = lib.tensor([1.9, -1.5])
        assert z.tolist() == [2, 1, -1]


SETITEM_ERRORS = [
    lambda lib, x: x.__setitem__((0, slice(None), [1, 2]), lib.ones(2, 4)),
    lambda lib, x: x.__setitem__([0, 1], lib.ones(3, 4, 5)),
    lambda lib, x: x.__setitem__(0, lib.ones(3, 4, 5)),
    lambda lib, x: x.__setitem__(0, lib.ones(2, 1, 4, 5)),
    lambda lib, x: x.__setitem__(0, lib.ones(3)),
    lambda lib, x: x.__setitem__([0], lib.ones(5, dtype=lib.int64)),
    lambda lib, x: x.__setitem__(slice(None, None, -1), 1.0),
    lambda lib, x: x.__setitem__((0, 0, 0, 0), 1.0),
    lambda lib, x: x.__setitem__(5, 1.0),
    lambda lib, x: x.__setitem__([5], 1.0),
]


@pytest.mark.parametrize("k", range(len(SETITEM_ERRORS)))
def test_setitem_errors_like_torch(k):
    with pytest.raises(Exception) as theirs:
        SETITEM_ERRORS[k](torch, _base(torch, (3, 4, 5)))
    with pytest.raises(type(theirs.value)) as ours:
        SETITEM_ERRORS[k](retrograd, _base(retrograd, (3, 4, 5)))
    assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("key", [0, [0], (0, [1]), ..., slice(None), (slice(1, None), [0])])
def test_setitem_on_a_leaf_that_requires_grad(key):
    msgs = []
    for lib in LIBS:
        x = _base(lib, (3, 4), grad=True)
        with pytest.raises(RuntimeError) as e:
            x[key] = 1.0
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]


# ---------------------------------------------------------------------------- errors of the shape/index ops
ERRORS = [
    lambda lib, x: lib.cat([]),
    lambda lib, x: lib.cat([x, x[0]]),
    lambda lib, x: lib.cat([x, x[:, :2]]),
    lambda lib, x: lib.cat([x, x[:2]], 1),
    lambda lib, x: lib.cat([x[0, 0], x[0, 1]]),
    lambda lib, x: lib.cat([x, x], 2),
    lambda lib, x: lib.stack([]),
    lambda lib, x: lib.stack([x, x[0]]),
    lambda lib, x: lib.stack([x, x], 3),
    lambda lib, x: x.split(0),
    lambda lib, x: x.split([1, 1]),
    lambda lib, x: x.chunk(0),
    lambda lib, x: x.unflatten(1, (3, 2)),
    lambda lib, x: x.unflatten(1, ()),
    lambda lib, x: x.roll(1, (0, 1)),
    lambda lib, x: x.roll((1, 2), 0),
    lambda lib, x: x.rot90(1, (0, 0)),
    lambda lib, x: x.rot90(1, (0, 1, 2)),
    lambda lib, x: x[0].rot90(),
    lambda lib, x: x.repeat(2),
    lambda lib, x: x[0].fliplr(),
    lambda lib, x: x[0, 0].flipud(),
    lambda lib, x: x[0].tril(),
    lambda lib, x: x.diagonal(0, 1, 1),
    lambda lib, x: lib.diag(x.reshape(1, 3, 4)),
    lambda lib, x: x.broadcast_to(2, 4),
    lambda lib, x: lib.broadcast_shapes((2, 3), (3, 1)),
    lambda lib, x: lib.broadcast_tensors(x, x[:, :2]),
    lambda lib, x: x.repeat_interleave(lib.tensor([1, 2]), 0),
    lambda lib, x: x.gather(0, lib.tensor([0, 1])),
    lambda lib, x: x.gather(0, lib.tensor([[0, 1, 1, 1, 1]])),
    lambda lib, x: x.gather(0, lib.tensor([[0, 5]])),
    lambda lib, x: x.gather(0, lib.tensor([[-1]])),
    lambda lib, x: x.gather(2, lib.tensor([[0]])),
    lambda lib, x: x.scatter(0, lib.tensor([[0, 1]]), lib.ones(1, 1, dtype=lib.float64)),
    lambda lib, x: x.scatter(0, lib.tensor([[0, 1]]), 1.0, reduce="foo"),
    lambda lib, x: x.scatter_reduce(0, lib.tensor([[0, 1]]), x, "foo"),
    lambda lib, x: x.index_select(0, lib.tensor([[0, 1]])),
    lambda lib, x: x.index_select(0, lib.tensor([0., 1.])),
    lambda lib, x: x.index_select(0, lib.tensor([5])),
    lambda lib, x: x.index_select(0, lib.tensor([-1])),
    lambda lib, x: x.index_add(0, lib.tensor([0, 1]), x),
    lambda lib, x: x.index_add(0, lib.tensor([0, 1]), x[:2, :3]),
    lambda lib, x: x.index_add(0, lib.tensor([0, 7]), x[:2]),
    lambda lib, x: x.index_copy(0, lib.tensor([0, 1]), x),
    lambda lib, x: x.index_copy(1, lib.tensor([7]), x[:, :1]),
    lambda lib, x: x.index_fill(0, lib.tensor([0, 7]), 1.0),
    lambda lib, x: x.index_fill(0, lib.tensor([0, 1]), lib.tensor([1.])),
    lambda lib, x: x.masked_fill(lib.tensor([1, 0, 1, 0]), 1.0),
    lambda lib, x: x.masked_fill(lib.tensor([True, False]), 1.0),
    lambda lib, x: x.masked_fill(lib.tensor([True, False, True, True]), lib.tensor([1., 2.])),
    lambda lib, x: x.masked_fill_(lib.ones(2, 3, 4, dtype=lib.bool), 1.0),
    lambda lib, x: x.masked_scatter(lib.ones(3, 4, dtype=lib.bool), lib.ones(5, dtype=lib.float64)),
    lambda lib, x: x.take(lib.tensor([12])),
    lambda lib, x: x.take_along_dim(lib.tensor([[0], [1]]), 1),
    lambda lib, x: lib.searchsorted(lib.tensor([[1, 3, 5], [2, 4, 6]]), lib.tensor([3, 3])),
    lambda lib, x: lib.searchsorted(lib.tensor([1, 3]), lib.tensor([3]), right=True, side="left"),
    lambda lib, x: lib.bucketize(lib.tensor([3.5]), lib.tensor([[1, 3, 5]])),
    lambda lib, x: lib.tensor(1.).unbind(),
]


@pytest.mark.parametrize("k", range(len(ERRORS)))
def test_errors_like_torch(k):
    with pytest.raises(Exception) as theirs:
        ERRORS[k](torch, _base(torch))
    with pytest.raises(type(theirs.value)) as ours:
        ERRORS[k](retrograd, _base(retrograd))
    assert str(ours.value) == str(theirs.value)


# ---------------------------------------------------------------------------- odd corners
def test_ops_without_derivatives_say_so():
    msgs = []
    for lib in LIBS:
        x = _base(lib, grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            outs = (lib.unique(x), lib.unique(x, dim=0), x.unique_consecutive(),
                    x.scatter(0, lib.tensor([[0, 1]]), 2.0, reduce="multiply"))
        for y in outs:
            assert y.requires_grad
            with pytest.raises((NotImplementedError, RuntimeError)) as e:
                y.sum().backward()
            msgs.append((type(e.value), str(e.value)))
    assert msgs[:4] == msgs[4:]


def test_nonzero_and_argwhere_corner_cases():
    for fn in (lambda lib: lib.nonzero(lib.tensor(5)), lambda lib: lib.nonzero(lib.tensor(0)),
               lambda lib: lib.tensor(5).nonzero(as_tuple=True), lambda lib: lib.tensor(0.).nonzero(as_tuple=True),
               lambda lib: lib.argwhere(lib.tensor(3)), lambda lib: lib.tensor([[0, 1], [2, 0]]).nonzero(as_tuple=True),
               lambda lib: lib.zeros(2, 0).nonzero()):
        a, b = fn(retrograd), fn(torch)
        for u, v in zip(a if isinstance(a, tuple) else (a,), b if isinstance(b, tuple) else (b,)):
            assert tuple(u.shape) == tuple(v.shape) and str(u.dtype)[-5:] == str(v.dtype)[-5:]
            np.testing.assert_array_equal(_np(u), _np(v))


def test_index_helpers():
    i = _both(np.array([[0, 5], [11, -12]]))
    ours, theirs = retrograd.unravel_index(i[0], (3, 4)), torch.unravel_index(i[1], (3, 4))
    assert len(ours) == len(theirs)
    for o, t in zip(ours, theirs):
        _same(o, t)
    w = _both(np.array([12, -13, 23]))  # torch wraps out-of-range indices
    for o, t in zip(retrograd.unravel_index(w[0], (3, 4)), torch.unravel_index(w[1], (3, 4))):
        _same(o, t)
    _same(retrograd.tril_indices(3, 4, dtype=retrograd.int32), torch.tril_indices(3, 4, dtype=torch.int32))
    _same(retrograd.triu_indices(0, 3), torch.triu_indices(0, 3))
    v = _both(np.array([1.0, 2.0, 3.0]))
    _same(retrograd.combinations(v[0], 0), torch.combinations(v[1], 0))
    _same(retrograd.combinations(v[0], 4), torch.combinations(v[1], 4))
    _same(retrograd.cartesian_prod(v[0]), torch.cartesian_prod(v[1]))
    _same(retrograd.isin(2, retrograd.tensor([1, 2])), torch.isin(2, torch.tensor([1, 2])))
    _same(retrograd.block_diag(retrograd.ones(2, 0), retrograd.ones(1, 2)),
          torch.block_diag(torch.ones(2, 0), torch.ones(1, 2)))
    _raises_like(lambda L: L.block_diag(L.ones(1, 1, 1)))
    _same(retrograd.block_diag(retrograd.tensor([1, 2]), retrograd.tensor([[0.5]])),
          torch.block_diag(torch.tensor([1, 2]), torch.tensor([[0.5]])))


def test_put_and_inplace_comparisons_and_aliases():
    x = retrograd.zeros(2, 3)
    x.put_(retrograd.tensor([0, -1, 0]), retrograd.tensor([1., 2., 3.]), accumulate=True)
    assert x.tolist() == [[4., 0., 0.], [0., 0., 2.]]
    y = retrograd.tensor([1., 2., 3.])
    assert y.ge_(2).tolist() == [0., 1., 1.] and y.dtype == retrograd.float32
    z = retrograd.tensor([-2., 3.])
    z.negative_().absolute_().square_()
    assert z.tolist() == [4., 9.]
    assert retrograd.clamp_min(retrograd.tensor([-1., 1.]), 0).tolist() == [0., 1.]
    assert retrograd.tensor([-1., 1.]).clamp_max_(0).tolist() == [-1., 0.]
