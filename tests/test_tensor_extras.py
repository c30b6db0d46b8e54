"""Tensor extras (src/retrograd/_ops/tensor_extras.py and the tail of _tensor_methods.py):
random fills (seeding, moments, errors), in-place view ops, as_strided, small attributes."""
from __future__ import annotations

import numpy as np
import pytest

import retrograd

torch = pytest.importorskip("torch")

N = 20000
# (method, args, mean, var) of each distribution on a float64 tensor
MOMENTS = [
    ("uniform_", (-1.0, 3.0), 1.0, 16 / 12),
    ("normal_", (2.0, 0.5), 2.0, 0.25),
    ("bernoulli_", (0.3,), 0.3, 0.21),
    ("random_", (2, 6), 3.5, (16 - 1) / 12),
    ("exponential_", (2.0,), 0.5, 0.25),
    ("geometric_", (0.4,), 2.5, 0.6 / 0.16),
    ("log_normal_", (0.0, 0.5), np.exp(0.125), (np.exp(0.25) - 1) * np.exp(0.25)),
]


@pytest.mark.parametrize("name,args,mean,var", MOMENTS, ids=[m[0] for m in MOMENTS])
def test_random_fill_moments(name, args, mean, var):
    x = retrograd.empty(N, dtype=retrograd.float64)
    res = getattr(x, name)(*args)
    assert res is x and x._version == 1
    d = x.numpy()
    assert abs(d.mean() - mean) < 5 * np.sqrt(var / N) + 1e-3
    assert abs(d.var() - var) < 0.15 * var


def test_cauchy_median():
    x = retrograd.empty(N, dtype=retrograd.float64).cauchy_(1.0, 2.0)
    assert abs(np.median(x.numpy()) - 1.0) < 0.1
    q1, q3 = np.percentile(x.numpy(), [25, 75])
    assert abs((q3 - q1) / 2 - 2.0) < 0.2


@pytest.mark.parametrize("name,args", [(m[0], m[1]) for m in MOMENTS] + [("cauchy_", ())])
def test_random_fill_seeded_and_generator(name, args):
    retrograd.manual_seed(123)
    a = getattr(retrograd.empty(5), name)(*args).clone()
    retrograd.manual_seed(123)
    b = getattr(retrograd.empty(5), name)(*args).clone()
    assert np.array_equal(a.numpy(), b.numpy())
    g1, g2 = retrograd.Generator().manual_seed(7), retrograd.Generator().manual_seed(7)
    c = getattr(retrograd.empty(5), name)(*args, generator=g1)
    d = getattr(retrograd.empty(5), name)(*args, generator=g2)
    assert np.array_equal(c.numpy(), d.numpy())
    assert c.dtype == retrograd.float32 and c.shape == (5,)


def test_random_fill_dtypes_and_ranges():
    x = retrograd.zeros(1000, dtype=retrograd.int64).random_(3, 7)
    assert x.dtype == retrograd.int64 and x.min().item() >= 3 and x.max().item() <= 6
    y = retrograd.zeros(1000, dtype=retrograd.int32).random_(4)
    assert set(np.unique(y.numpy())) <= {0, 1, 2, 3}
    b = retrograd.zeros(100, dtype=retrograd.bool).bernoulli_(0.5)
    assert b.dtype == retrograd.bool
    assert retrograd.zeros(3).bernoulli_(retrograd.tensor([0., 1., 0.])).tolist() == [0., 1., 0.]
    w = retrograd.empty(4, 4).uniform_(-0.1, 0.1)
    assert (w.abs() <= 0.1).all()


@pytest.mark.parametrize("call", [
    lambda lib: lib.zeros(3).uniform_(1, 0),
    lambda lib: lib.zeros(3).normal_(0, -1),
    lambda lib: lib.zeros(3).bernoulli_(1.5),
    lambda lib: lib.zeros(3).random_(5, 2),
    lambda lib: lib.zeros(3).exponential_(-1),
    lambda lib: lib.zeros(3).geometric_(0),
    lambda lib: lib.zeros(3).log_normal_(1, -1),
    lambda lib: lib.zeros(3).cauchy_(0, -1),
    lambda lib: lib.zeros(3, dtype=lib.int64).uniform_(),
    lambda lib: lib.randn(2, 3, requires_grad=True).uniform_(),
    lambda lib: lib.randn(2, 3, requires_grad=True).normal_(),
    lambda lib: lib.randn(2, 3, requires_grad=True).t_(),
    lambda lib: lib.randn(2, 3, requires_grad=True).eq_(0.),
    lambda lib: lib.randn(6, requires_grad=True).put_(lib.tensor([0]), lib.tensor([1.])),
    lambda lib: lib.randn(6, requires_grad=True).resize_(2, 3),
    lambda lib: lib.zeros(3).unfold(0, 4, 1),
    lambda lib: lib.zeros(3).unfold(0, 2, 0),
    lambda lib: lib.zeros(3).is_nonzero(),
    lambda lib: lib.zeros(0).is_nonzero(),
    lambda lib: lib.zeros(6).put(lib.tensor([6]), lib.tensor([1.])),
    lambda lib: lib.arange(4.).as_strided((3,), (2,)),
    lambda lib: lib.arange(4.).as_strided((3,), (2, 1)),
    lambda lib: lib.zeros(3).index_reduce(0, lib.tensor([0]), lib.ones(1), "sum"),
])
def test_errors_match_torch(call):
    with pytest.raises(Exception) as theirs:
        call(torch)
    with pytest.raises(type(theirs.value)) as ours:
        call(retrograd)
    assert str(ours.value) == str(theirs.value)


def test_random_fill_no_grad_and_data():
    w = retrograd.randn(3, 4, requires_grad=True)
    with retrograd.no_grad():
        w.uniform_(-0.1, 0.1)
    w.data.normal_(0, 0.01)
    assert w.requires_grad and w.is_leaf and w.grad_fn is None
    # on a non-leaf: the overwritten value gets zero gradient, as torch
    x = retrograd.ones(3, requires_grad=True)
    y = x * 2
    y.uniform_()
    assert type(y.grad_fn).__name__ == "UniformBackward0"
    (y * x).sum().backward()
    assert np.allclose(x.grad.numpy(), y.detach().numpy())


def test_bernoulli_multinomial_methods():
    retrograd.manual_seed(0)
    p = retrograd.full((2, 1000), 0.25)
    assert abs(p.bernoulli().mean().item() - 0.25) < 0.05
    m = retrograd.tensor([0., 1., 3.]).multinomial(200, replacement=True)
    assert m.dtype == retrograd.int64 and set(np.unique(m.numpy())) <= {1, 2}


@pytest.mark.parametrize("name,args", [("t_", ()), ("transpose_", (0, 1)), ("swapaxes_", (1, 0)),
                                       ("swapdims_", (0, 1)), ("unsqueeze_", (1,)), ("squeeze_", ())])
def test_inplace_views_share_memory_and_grads(name, args):
    res = []
    for lib in (retrograd, torch):
        x = lib.tensor(np.arange(6.).reshape(2, 3) if name != "squeeze_" else np.arange(6.).reshape(2, 1, 3),
                       requires_grad=True)
        y = x * 1
        z = getattr(y, name)(*args)
        assert z is y
        (y * lib.tensor(np.arange(6.).reshape(tuple(y.shape)))).sum().backward()
        res.append((tuple(y.shape), y.detach().numpy().copy(), x.grad.numpy().copy()))
    (s1, v1, g1), (s2, v2, g2) = res
    assert s1 == s2 and np.array_equal(v1, v2) and np.array_equal(g1, g2)


def test_as_strided_view_and_grad():
    a = retrograd.arange(6.)
    v = a.as_strided((2, 2), (1, 2), 1)
    assert v.tolist() == [[1., 3.], [2., 4.]] and v._base is a
    v[0, 0] = 10.
    assert a[1].item() == 10.
    assert retrograd.as_strided(a, (3,), (2,)).tolist() == [0., 2., 4.]
    for lib in (retrograd, torch):
        x = lib.arange(6., requires_grad=True)
        lib.as_strided(x, (2, 2), (1, 1)).sum().backward()
        assert x.grad.tolist() == [1., 2., 1., 0., 0., 0.]
    with pytest.raises(RuntimeError):
        retrograd.arange(4.).as_strided((3,), (2,))
    b = retrograd.arange(6.)
    b.as_strided_((3, 2), (1, 3))
    assert b.tolist() == [[0., 3.], [1., 4.], [2., 5.]]


def test_unfold_view_and_overlapping_grad():
    for lib in (retrograd, torch):
        x = lib.arange(5., requires_grad=True)
        u = x.unfold(0, 3, 1)
        assert tuple(u.shape) == (3, 3) and type(u.grad_fn).__name__ == "UnfoldBackward0"
        u.sum().backward()
        assert x.grad.tolist() == [1., 2., 3., 2., 1.]
    base = retrograd.arange(5.)
    base.unfold(0, 2, 2)[1, 0] = -1.
    assert base[2].item() == -1.


def test_small_attributes():
    x = retrograd.arange(6.).reshape(2, 3)
    tx = torch.arange(6.).reshape(2, 3)
    assert x.is_cpu and not x.is_conj() and not x.is_neg()
    assert x.t().dim_order() == tx.t().dim_order() and x.dim_order() == tx.dim_order()
    assert x[1].storage_offset() == tx[1].storage_offset() == 3
    assert x.storage_offset() == 0
    assert x.conj() is x and x.resolve_conj() is x and x.real is x and retrograd.real(x) is x
    assert x.is_same_size(retrograd.zeros(2, 3)) and not x.is_same_size(retrograd.zeros(3, 2))
    assert x.nelement() == 6
    assert retrograd.is_nonzero(retrograd.tensor([3]))


def test_new_and_new_empty_strided():
    x = retrograd.zeros(2, dtype=retrograd.float64)
    tx = torch.zeros(2, dtype=torch.float64)
    for args in [(2, 3), ([1, 2],), ((2, 3),), ()]:
        a, b = x.new(*args), tx.new(*args)
        assert tuple(a.shape) == tuple(b.shape) and a.dtype == retrograd.float64
    assert x.new([1, 2]).tolist() == [1., 2.]
    assert tuple(x.new(retrograd.Size([2, 1])).shape) == (2, 1)
    e = x.new_empty_strided((2, 3), (1, 2))
    assert e.stride() == tx.new_empty_strided((2, 3), (1, 2)).stride() and e.dtype == retrograd.float64


def test_resize():
    for lib in (retrograd, torch):
        x = lib.arange(6.)
        assert x.resize_(2, 2) is x and x.tolist() == [[0., 1.], [2., 3.]]
        x.resize_as_(lib.zeros(3))
        assert tuple(x.shape) == (3,) and x.tolist() == [0., 1., 2.]
        y = lib.arange(2.)
        y.resize_(4)
        assert tuple(y.shape) == (4,) and y[:2].tolist() == [0., 1.]


def test_apply_and_map():
    for lib in (retrograd, torch):
        x = lib.arange(4.)
        assert x.apply_(lambda v: v * v) is x and x.tolist() == [0., 1., 4., 9.]
        x.map_(lib.tensor([1., 1., 1., 1.]), lambda a, b: a + b)
        assert x.tolist() == [1., 2., 5., 10.]


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
