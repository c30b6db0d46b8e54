"""Tests of the strided ops (src/retrograd/_ops/strided.py), checked against PyTorch."""
from __future__ import annotations

import pytest

import retrograd

torch = pytest.importorskip("torch")


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
