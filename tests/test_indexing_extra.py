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

LIBS = (retrograd, torch)


def _np(t):
    return t.detach().numpy() if hasattr(t, "detach") else np.asarray(t)


def _base(lib, shape=(3, 4), grad=False):
    n = int(np.prod(shape))
    x = lib.tensor(np.arange(n, dtype=np.float64).reshape(shape) - 5.0)
    return x.requires_grad_() if grad else x


# ---------------------------------------------------------------------------- views
VIEWS = {
    "diagonal": lambda lib, x: x.diagonal(),
    "diagonal_offset": lambda lib, x: x.diagonal(1),
    "unbind": lambda lib, x: x.unbind()[1],
    "unbind_dim1": lambda lib, x: x.unbind(1)[2],
    "split": lambda lib, x: x.split(2)[1],
    "split_sizes": lambda lib, x: x.split([1, 3], 1)[1],
    "chunk": lambda lib, x: x.chunk(2, 1)[0],
    "tensor_split": lambda lib, x: x.tensor_split(2)[1],
    "unflatten": lambda lib, x: x.unflatten(1, (2, 2)),
    "ravel": lambda lib, x: x.ravel(),
    "broadcast_to": lambda lib, x: x[0].broadcast_to(2, 4),
    "broadcast_tensors": lambda lib, x: lib.broadcast_tensors(x[:, :1], x)[0],
    "meshgrid": lambda lib, x: lib.meshgrid(x[0], x[1], indexing="ij")[0],
    "atleast_3d": lambda lib, x: lib.atleast_3d(x),
    "ellipsis": lambda lib, x: x[...],
    "none": lambda lib, x: x[None, 1],
    "slice_step": lambda lib, x: x[::2, 1::2],
}


@pytest.mark.parametrize("name", sorted(VIEWS))
def test_views_share_memory_and_version_counter(name):
    seen = []
    for lib in LIBS:
        x = _base(lib)
        v = VIEWS[name](lib, x)
        root = x if name not in ("broadcast_to", "broadcast_tensors", "meshgrid", "none") else x
        assert v._base is root, f"{lib.__name__}: {name} is not a view of its input"
        before = v._version
        x.add_(1)
        assert v._version == x._version == before + 1
        seen.append(_np(v).copy())
    np.testing.assert_array_equal(seen[0], seen[1])


@pytest.mark.parametrize("name", ["diagonal", "diagonal_offset", "unflatten", "ravel", "tensor_split", "ellipsis",
                                  "slice_step"])
def test_writes_through_views_reach_the_base(name):
    res = []
    for lib in LIBS:
        x = _base(lib)
        VIEWS[name](lib, x).mul_(-2)
        res.append(_np(x).copy())
    np.testing.assert_array_equal(res[0], res[1])


def test_copies_are_not_views():
    for fn in (lambda x: x.flip(0), lambda x: x.roll(1), lambda x: x.rot90(), lambda x: x.diag(),
               lambda x: x.repeat(2, 1), lambda x: x.tril(), lambda x: x.t().ravel()._base):
        y = fn(_base(retrograd))
        x = _base(retrograd)
        assert y is None or not np.shares_memory(_np(y), _np(x))


@pytest.mark.parametrize("fn", [lambda x: x.unbind(), lambda x: x.split(2), lambda x: x.chunk(2, 1),
                                lambda x: x.split([1, 2])])
def test_multi_output_views_are_marked(fn):
    x = _base(retrograd, grad=True)
    outs = fn(x * 1)
    assert all(o.__dict__.get("_view_meta") == "multi" for o in outs)
    assert all(o._base is not None for o in outs)
    # made in grad mode they are marked even without grad (as torch: copying a tensor that requires
    # grad into one is refused), yet a plain in-place write stays allowed
    plain = fn(_base(retrograd))
    assert all(o.__dict__.get("_view_meta") == "multi" for o in plain)
    plain[0].add_(1)
    # torch refuses in-place writes to these outputs when they require grad
    with pytest.raises(RuntimeError, match="output of a function that returns multiple views"):
        fn(_base(torch, grad=True) * 1)[0].add_(1)


def test_multi_output_view_grads():
    res = []
    for lib in LIBS:
        x = _base(lib, grad=True)
        a, b, c = x.unbind(0)
        p, q = x.split([3, 1], 1)
        ((a * 2).sum() + c.sum() + (p * p).sum() + q.sum()).backward()
        res.append(_np(x.grad))
        assert type(a.grad_fn).__name__ == "UnbindBackward0" and a.grad_fn is c.grad_fn
        assert type(p.grad_fn).__name__ == "SplitWithSizesBackward0" and p.output_nr == 0 and q.output_nr == 1
    np.testing.assert_array_equal(res[0], res[1])


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
        res.append((_np(y), type(y.grad_fn).__name__, gx, gv))
    (y1, n1, gx1, gv1), (y2, n2, gx2, gv2) = res
    np.testing.assert_allclose(y1, y2)
    assert n1 == n2
    for a, b in ((gx1, gx2), (gv1, gv2)):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(_np(a), _np(b))


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


def test_scatter_with_reduce_values():
    res = []
    for lib in LIBS:
        x = _base(lib)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            a = x.scatter(0, lib.tensor([[0, 1, 0]]), 2.0, reduce="add")
            b = x.scatter(1, lib.tensor([[0, 0], [1, 1]]), x[:2, :2] + 1, reduce="multiply")
        res.append((_np(a), _np(b)))
    np.testing.assert_array_equal(res[0][0], res[1][0])
    np.testing.assert_array_equal(res[0][1], res[1][1])


def test_nonzero_and_argwhere_corner_cases():
    for fn in (lambda lib: lib.nonzero(lib.tensor(5)), lambda lib: lib.nonzero(lib.tensor(0)),
               lambda lib: lib.tensor(5).nonzero(as_tuple=True), lambda lib: lib.tensor(0.).nonzero(as_tuple=True),
               lambda lib: lib.argwhere(lib.tensor(3)), lambda lib: lib.tensor([[0, 1], [2, 0]]).nonzero(as_tuple=True),
               lambda lib: lib.zeros(2, 0).nonzero()):
        a, b = fn(retrograd), fn(torch)
        for u, v in zip(a if isinstance(a, tuple) else (a,), b if isinstance(b, tuple) else (b,)):
            assert tuple(u.shape) == tuple(v.shape) and str(u.dtype)[-5:] == str(v.dtype)[-5:]
            np.testing.assert_array_equal(_np(u), _np(v))


def test_cat_skips_legacy_empty_tensors_and_promotes():
    res = []
    for lib in LIBS:
        x = _base(lib, grad=True)
        e = lib.zeros(0, dtype=lib.float64, requires_grad=True)
        y = lib.cat([x, e, lib.ones(1, 4, dtype=lib.int64)])
        y.sum().backward()
        res.append((_np(y), str(y.dtype)[-7:], _np(x.grad), tuple(e.grad.shape)))
    assert res[0][1] == res[1][1] and res[0][3] == res[1][3]
    np.testing.assert_array_equal(res[0][0], res[1][0])
    np.testing.assert_array_equal(res[0][2], res[1][2])


def test_repeat_interleave_forms():
    for fn in (lambda lib: lib.repeat_interleave(lib.tensor([1, 2, 0])),
               lambda lib: lib.tensor([[1, 2], [3, 4]]).repeat_interleave(2),
               lambda lib: lib.tensor([[1, 2], [3, 4]]).repeat_interleave(lib.tensor(2), dim=1),
               lambda lib: lib.tensor(3.).repeat_interleave(3)):
        np.testing.assert_array_equal(_np(fn(retrograd)), _np(fn(torch)))


def test_meshgrid_warns_without_indexing():
    for lib in LIBS:
        with pytest.warns(UserWarning, match="torch.meshgrid: in an upcoming release, it will be required to pass "
                                             "the indexing argument."):
            lib.meshgrid(lib.zeros(2), lib.zeros(3))


def test_scatter_reduce_ties_and_zeros_like_torch():
    res = []
    for lib in LIBS:
        x = lib.tensor([[2., 0., 3.], [1., 5., 5.]], requires_grad=True)
        src = lib.tensor([[2., 0., 3.], [0., 5., 1.]], requires_grad=True)
        idx = lib.tensor([[0, 0, 0], [0, 1, 1]])
        ys = [x.scatter_reduce(0, idx, src, r, include_self=s) for r in ("amax", "amin", "prod", "mean")
              for s in (True, False)]
        gx, gs = lib.autograd.grad(sum((y * lib.tensor([[1., 2., 3.], [4., 5., 6.]])).sum() for y in ys), (x, src))
        res.append(([_np(y) for y in ys], _np(gx), _np(gs)))
    for a, b in zip(res[0][0], res[1][0]):
        np.testing.assert_allclose(a, b)
    np.testing.assert_allclose(res[0][1], res[1][1])
    np.testing.assert_allclose(res[0][2], res[1][2])
