"""Tests of the copies ops (src/retrograd/_ops/copies.py), checked against PyTorch."""

import retrograd


def test_copies_are_fresh_and_contiguous():
    x = retrograd.arange(6.).reshape(2, 3)
    y = retrograd.t_copy(x)
    y[0, 0] = 100.
    assert x[0, 0].item() == 0.0 and y.is_contiguous()
    z = retrograd.view_copy(x, (3, 2))
    z.fill_(1.)
    assert x.sum().item() == 15.0
    assert all(p._base is None for p in retrograd.split_copy(x, 1))
