"""Forward-mode transforms (jvp, linearize, jacfwd, hessian, autograd.functional's forward mode)
against torch.func / torch.autograd.functional: values, structures, errors, and that they run
on dual numbers (a custom Function's ``jvp`` is what they call)."""
import numpy as np
import pytest

import retrograd
import retrograd.func as rfunc

torch = pytest.importorskip("torch")

import torch.func as tfunc  # noqa: E402

from tests.func.test_func import assert_tree_close, pair, same_error  # noqa: E402


def _dual_only(lib):
    """exp as a custom Function whose backward refuses: only forward mode can differentiate it."""
    class Exp(lib.autograd.Function):
        @staticmethod
        def forward(x):
            return x.exp()

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_forward(output)

        @staticmethod
        def backward(ctx, g):
            raise RuntimeError("reverse mode used")

        @staticmethod
        def jvp(ctx, t):
            return t * ctx.saved_tensors[0]

    return Exp


def test_jvp_values_structures_and_aux():
    (rx, tx), (ry, ty), (rt, tt), (ru, tu) = pair((3,)), pair((2, 3)), pair((3,)), pair((2, 3))

    def f(lib, x, y):
        return {"a": (x.sin() * y).sum(0), "b": (y.exp(), x * 2)}

    r = rfunc.jvp(lambda x, y: f(retrograd, x, y), (rx, ry), (rt, ru))
    t = tfunc.jvp(lambda x, y: f(torch, x, y), (tx, ty), (tt, tu))
    assert_tree_close(r, t)
    r = rfunc.jvp(lambda x: (x.tanh(), {"aux": x.cos()}), (rx,), (rt,), has_aux=True)
    t = tfunc.jvp(lambda x: (x.tanh(), {"aux": x.cos()}), (tx,), (tt,), has_aux=True)
    assert_tree_close(r, t)
    # an output independent of the input: zero tangent (strict=True refuses, as torch)
    assert_tree_close(rfunc.jvp(lambda x: (x * 2, retrograd.ones(2, dtype=retrograd.float64)), (rx,), (rt,)),
                      tfunc.jvp(lambda x: (x * 2, torch.ones(2, dtype=torch.float64)), (tx,), (tt,)))
    same_error(lambda lib, fn: fn.jvp(lambda x: lib.ones(2), (lib.ones(2),), (lib.ones(2),), strict=True))


def test_jvp_runs_forward_mode():
    x = retrograd.tensor([0.5, 1.0], dtype=retrograd.float64)
    Exp = _dual_only(retrograd)
    out, tan = rfunc.jvp(Exp.apply, (x,), (retrograd.ones(2, dtype=retrograd.float64),))
    np.testing.assert_allclose(tan.numpy(), np.exp([0.5, 1.0]))
    jac = rfunc.jacfwd(Exp.apply)(x)
    np.testing.assert_allclose(jac.numpy(), np.diag(np.exp([0.5, 1.0])))
    _, lin = rfunc.linearize(Exp.apply, x)
    np.testing.assert_allclose(lin(retrograd.ones(2, dtype=retrograd.float64)).numpy(), np.exp([0.5, 1.0]))
    _, jv = retrograd.autograd.functional.jvp(Exp.apply, x, retrograd.ones(2, dtype=retrograd.float64))
    np.testing.assert_allclose(jv.numpy(), np.exp([0.5, 1.0]))
    with pytest.raises(RuntimeError, match="reverse mode used"):
        rfunc.jacrev(Exp.apply)(x)


def test_jvp_errors():
    same_error(lambda lib, fn: fn.jvp(lib.sin, [lib.ones(2)], (lib.ones(2),)))
    same_error(lambda lib, fn: fn.jvp(lib.sin, (lib.ones(2),), (lib.ones(3),)))
    same_error(lambda lib, fn: fn.jvp(lib.sin, (lib.ones(2),), [lib.ones(2)]))
    same_error(lambda lib, fn: fn.jvp(lib.sin, (lib.ones(2),), (1.0,)))
    same_error(lambda lib, fn: fn.jvp(lambda x: 3, (lib.ones(2),), (lib.ones(2),)))
    same_error(lambda lib, fn: fn.jvp(lambda x: x, (lib.ones(2),), (lib.ones(2),), has_aux=True))


def test_jvp_keeps_outer_graph():
    rx, tx = pair((3,), requires_grad=True)
    (rt, tt) = pair((3,))
    r = rfunc.jvp(lambda x: x ** 3, (rx,), (rt,))[1]
    t = tfunc.jvp(lambda x: x ** 3, (tx,), (tt,))[1]
    assert r.requires_grad and t.requires_grad
    assert_tree_close(retrograd.autograd.grad(r.sum(), rx), torch.autograd.grad(t.sum(), tx))


def test_nested_forward_transforms():
    (rx, tx), (rt, tt) = pair((3,)), pair((3,))

    def f(lib, x):
        return x.sin() * x.prod() + x.exp().sum() * x.tanh()

    for outer in ("jacfwd", "jacrev"):
        for inner in ("jacfwd", "jacrev"):
            r = getattr(rfunc, outer)(getattr(rfunc, inner)(lambda x: f(retrograd, x)))(rx)
            t = getattr(tfunc, outer)(getattr(tfunc, inner)(lambda x: f(torch, x)))(tx)
            assert_tree_close(r, t, rtol=1e-9, atol=1e-9)
    r = rfunc.jvp(lambda x: rfunc.jvp(lambda y: f(retrograd, y), (x,), (rt,))[1], (rx,), (rt,))
    t = tfunc.jvp(lambda x: tfunc.jvp(lambda y: f(torch, y), (x,), (tt,))[1], (tx,), (tt,))
    assert_tree_close(r, t, rtol=1e-9, atol=1e-9)


def test_hessian_forward_over_reverse_saved_outputs():
    # exp/tanh/sigmoid/prod save their output: its tangent must reach the reverse rules
    (rx, tx) = pair((4,))
    for name in ("exp", "tanh", "sigmoid", "prod"):
        r = rfunc.hessian(lambda x: getattr(x, name)().sum() * x.sum())(rx)
        t = tfunc.hessian(lambda x: getattr(x, name)().sum() * x.sum())(tx)
        assert_tree_close(r, t, rtol=1e-9, atol=1e-9)


def test_jacfwd_structures_and_errors():
    (rx, tx), (ry, ty) = pair((3,)), pair((2, 2))
    r = rfunc.jacfwd(lambda x, y: {"a": x * y.sum(), "b": (y ** 2, x.sum())}, argnums=(0, 1))(rx, ry)
    t = tfunc.jacfwd(lambda x, y: {"a": x * y.sum(), "b": (y ** 2, x.sum())}, argnums=(0, 1))(tx, ty)
    assert_tree_close(r, t)
    r = rfunc.jacfwd(lambda x, y: (x.sum() * y[0], x.cos()), argnums=1, has_aux=True)(rx, ry)
    t = tfunc.jacfwd(lambda x, y: (x.sum() * y[0], x.cos()), argnums=1, has_aux=True)(tx, ty)
    assert_tree_close(r, t)
    r = rfunc.jacfwd(lambda x: x * 3)(retrograd.tensor(2.0))
    t = tfunc.jacfwd(lambda x: x * 3)(torch.tensor(2.0))
    assert_tree_close(r, t)
    same_error(lambda lib, fn: fn.jacfwd(lib.sin, argnums=2)(lib.ones(2)))
    same_error(lambda lib, fn: fn.jacfwd(lib.sin, randomness="x")(lib.ones(2)))


def test_linearize():
    (rx, tx), (rt, tt) = pair((3,)), pair((3,))
    r_out, r_fn = rfunc.linearize(lambda x: (x.sin() * x, x.exp()), rx)
    t_out, t_fn = tfunc.linearize(lambda x: (x.sin() * x, x.exp()), tx)
    assert_tree_close(r_out, t_out)
    assert_tree_close(r_fn(rt), t_fn(tt))


def test_autograd_functional_forward_mode():
    AF_r, AF_t = retrograd.autograd.functional, torch.autograd.functional
    (rx, tx), (ry, ty), (rv, tv) = pair((3,)), pair((3,)), pair((3,))

    def f(lib, x, y):
        return (x * y.sin(), (x ** 2).sum())

    r = AF_r.jacobian(lambda x, y: f(retrograd, x, y), (rx, ry), strategy="forward-mode", vectorize=True)
    t = AF_t.jacobian(lambda x, y: f(torch, x, y), (tx, ty), strategy="forward-mode", vectorize=True)
    assert_tree_close(r, t)
    r = AF_r.jacobian(lambda x: x.exp(), rx, strategy="forward-mode", vectorize=True)
    t = AF_t.jacobian(lambda x: x.exp(), tx, strategy="forward-mode", vectorize=True)
    assert_tree_close(r, t)
    for cg in (False, True):
        r = AF_r.jvp(lambda x, y: f(retrograd, x, y), (rx, ry), (rv, rv), create_graph=cg)
        t = AF_t.jvp(lambda x, y: f(torch, x, y), (tx, ty), (tv, tv), create_graph=cg)
        assert_tree_close(r, t)
    r = AF_r.hessian(lambda x: (x.sin() * x).sum(), rx, outer_jacobian_strategy="forward-mode", vectorize=True)
    t = AF_t.hessian(lambda x: (x.sin() * x).sum(), tx, outer_jacobian_strategy="forward-mode", vectorize=True)
    assert_tree_close(r.detach(), t.detach())
