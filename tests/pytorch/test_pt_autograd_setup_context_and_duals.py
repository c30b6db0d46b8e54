"""Regression tests for what the second half of PyTorch's test_autograd.py pinned down.

Each test runs the same code under retrograd and real torch (the oracle) and compares values,
flags and error messages.
"""
from __future__ import annotations

import numpy as np
import pytest

import retrograd as rg
import retrograd.autograd.forward_ad as rfwAD

torch = pytest.importorskip("torch")
import torch.autograd.forward_ad as tfwAD  # noqa: E402


def _np(t):
    return t.detach().numpy() if hasattr(t, "detach") else np.asarray(t)


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 (we compare the type and text)
        return type(e), str(e)
    return None


# ---------------------------------------------------------------- Function.setup_context
def _pow_fn(lib, classmethod_style: bool):
    Function = lib.autograd.Function
    if classmethod_style:
        class Pow(Function):
            @classmethod
            def forward(cls, x, y=3):
                return lib.pow(x, y)

            @classmethod
            def setup_context(cls, ctx, inputs, output):
                x, y = inputs
                ctx.save_for_backward(x)
                ctx.y = y

            @classmethod
            def backward(cls, ctx, gO):
                (x,) = ctx.saved_tensors
                return gO * ctx.y * lib.pow(x, ctx.y - 1), None
    else:
        class Pow(Function):
            @staticmethod
            def forward(x, y=3):
                return lib.pow(x, y)

            @staticmethod
            def setup_context(ctx, inputs, output):
                x, y = inputs
                ctx.save_for_backward(x)
                ctx.y = y

            @staticmethod
            def backward(ctx, gO):
                (x,) = ctx.saved_tensors
                return gO * ctx.y * lib.pow(x, ctx.y - 1), None
    return Pow


@pytest.mark.parametrize("classmethod_style", [False, True])
def test_setup_context_sees_forward_defaults(classmethod_style):
    res = []
    for lib in (rg, torch):
        Pow = _pow_fn(lib, classmethod_style)
        x = lib.tensor(2.0, dtype=lib.float64, requires_grad=True)
        y = Pow.apply(x)
        (g,) = lib.autograd.grad(y, x)
        res.append((float(y), float(g)))
    assert res[0] == res[1] == (8.0, 12.0)


def test_setup_context_varargs_forward():
    for lib in (rg, torch):
        class Sum(lib.autograd.Function):
            @staticmethod
            def forward(x, *rest):
                return (x + sum(rest)) * 2.0 if rest else x * 2.0

            @staticmethod
            def setup_context(ctx, inputs, output):
                ctx.n = len(inputs)

            @staticmethod
            def backward(ctx, g):
                return (g * 2.0,) + (None,) * (ctx.n - 1)

        x = lib.ones(2, dtype=lib.float64, requires_grad=True)
        Sum.apply(x).sum().backward()
        assert _np(x.grad).tolist() == [2.0, 2.0]
        y = lib.ones(2, dtype=lib.float64, requires_grad=True)
        Sum.apply(y, lib.ones(2, dtype=lib.float64)).sum().backward()
        assert _np(y.grad).tolist() == [2.0, 2.0]


# ---------------------------------------------------------------- forward-grad switch
def test_fwd_grad_switch_matches_torch():
    for lib, fw in ((rg, rfwAD), (torch, tfwAD)):
        assert fw._is_fwd_grad_enabled()
        try:
            lib._C._set_fwd_grad_enabled(False)
            assert not fw._is_fwd_grad_enabled()
            with fw._set_fwd_grad_enabled(True):
                assert fw._is_fwd_grad_enabled()
            assert not fw._is_fwd_grad_enabled()
        finally:
            lib._C._set_fwd_grad_enabled(True)
        assert fw._is_fwd_grad_enabled()


def test_fwd_grad_switch_stops_tangents():
    outs = []
    for lib, fw in ((rg, rfwAD), (torch, tfwAD)):
        with fw.dual_level():
            d = fw.make_dual(lib.ones(2, dtype=lib.float64), lib.ones(2, dtype=lib.float64))
            with fw._set_fwd_grad_enabled(False):
                off = fw.unpack_dual(d * 3).tangent
            on = fw.unpack_dual(d * 3).tangent
        outs.append((off is None, _np(on).tolist()))
    assert outs[0] == outs[1] == (True, [3.0, 3.0])


# ---------------------------------------------------------------- make_dual
def test_make_dual_tangent_with_its_own_tangent_raises():
    errs = []
    for lib, fw in ((rg, rfwAD), (torch, tfwAD)):
        with fw.dual_level():
            dual = fw.make_dual(lib.rand(2), lib.rand(2))
            errs.append(_error(lambda: fw.make_dual(lib.rand(2), dual)))
    assert errs[0] is not None and errs[0] == errs[1]


@pytest.mark.parametrize("case", ["prefix", "suffix", "transposed", "same"])
def test_make_dual_copies_tangent_to_primal_layout(case):
    res = []
    for lib, fw in ((rg, rfwAD), (torch, tfwAD)):
        base = lib.arange(12, dtype=lib.float64)
        if case == "prefix":
            primal, tangent = base[:4].detach(), lib.arange(4, dtype=lib.float64)
        elif case == "suffix":
            primal, tangent = base[2:6].detach(), lib.arange(4, dtype=lib.float64)
        elif case == "transposed":
            primal, tangent = base.view(3, 4).t().detach(), lib.arange(12, dtype=lib.float64).view(4, 3)
        else:
            primal, tangent = base.clone(), lib.arange(12, dtype=lib.float64)
        with fw.dual_level():
            dual = fw.make_dual(primal, tangent)
            t = fw.unpack_dual(dual).tangent
            row = [t is tangent, t.stride(), t.storage_offset(), len(t.untyped_storage()) // 8, _np(t).tolist()]
            t2 = t.clone()
            t.mul_(2)
            row.append(bool((tangent == t2).all()))  # the caller's tangent is untouched when copied
            if case == "prefix":  # the dual may address its whole storage
                row.append(tuple(dual.as_strided((5,), (1,), 0).shape))
        res.append(row)
    assert res[0] == res[1]


# ---------------------------------------------------------------- storage offsets / as_strided
def test_detached_slice_storage_offset_and_as_strided():
    res = []
    for lib in (rg, torch):
        p = lib.arange(6, dtype=lib.float64)[2:5].detach()
        res.append((p.storage_offset(), _np(p.as_strided((2,), (1,))).tolist(),
                    _np(p.as_strided((6,), (1,), 0)).tolist(), p._base is None))
    assert res[0] == res[1]
    with pytest.raises(RuntimeError, match="out of bounds for storage"):
        rg.arange(6.)[2:5].detach().as_strided((7,), (1,), 0)


def test_as_strided_of_grad_view_still_differentiable():
    res = []
    for lib in (rg, torch):
        x = lib.arange(6, dtype=lib.float64, requires_grad=True)
        v = x.clone()[1:]
        out = v.as_strided((2, 2), (1, 2))
        out.sum().backward()
        res.append((v.storage_offset(), _np(out).tolist(), _np(x.grad).tolist(), type(out.grad_fn).__name__))
    assert res[0] == res[1]


# ---------------------------------------------------------------- resize_ in inference mode
def test_resize_requires_grad_in_inference_mode():
    res = []
    for lib in (rg, torch):
        with lib.inference_mode():
            c = lib.ones(1, 2, 3, requires_grad=True)
            c.resize_(1, 2)
            d = lib.ones(1, 2, 3, requires_grad=True)
            d.resize_as_(lib.ones(1, 2))
        outside = _error(lambda: lib.ones(2, requires_grad=True).resize_(1))
        with lib.no_grad():
            nograd = _error(lambda: lib.ones(2, requires_grad=True).resize_(1))
        res.append((tuple(c.shape), c.requires_grad, tuple(d.shape), outside, nograd))
    assert res[0] == res[1]
