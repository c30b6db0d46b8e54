"""retrograd.func (grad, vjp, jvp, jacrev, jacfwd, hessian, linearize, vmap, functional_call)
against torch.func: values, composed transforms, pytrees, per-sample gradients, errors."""
import warnings

import numpy as np
import pytest

import retrograd
import retrograd as rg
import retrograd.func as rfunc
from retrograd.nn.utils import stateless as rstateless

torch = pytest.importorskip("torch")

import torch.func as tfunc  # noqa: E402

rng = np.random.default_rng(0)


# ---------------------------------------------------------------------- helpers
def _n(x):
    if isinstance(x, retrograd.Tensor):
        return x.detach().numpy()
    if isinstance(x, torch.Tensor):
        return x.detach().numpy()
    return np.asarray(x)


def assert_tree_close(r, t, rtol=1e-10, atol=1e-12):
    """Same pytree structure, same values (and dtypes for tensors)."""
    if isinstance(t, torch.Tensor):
        assert isinstance(r, retrograd.Tensor), type(r)
        assert tuple(r.shape) == tuple(t.shape)
        assert str(r.dtype).replace("retrograd.", "torch.") == str(t.dtype)
        np.testing.assert_allclose(_n(r), _n(t), rtol=rtol, atol=atol)
    elif isinstance(t, dict):
        assert isinstance(r, dict) and list(r) == list(t)
        for k in t:
            assert_tree_close(r[k], t[k], rtol, atol)
    elif isinstance(t, (tuple, list)):
        assert type(r) is type(t) and len(r) == len(t), (type(r), type(t))
        for a, b in zip(r, t):
            assert_tree_close(a, b, rtol, atol)
    else:
        assert r == t


def pair(shape, requires_grad=False):
    """The same random float64 data as a retrograd and a torch tensor."""
    a = rng.standard_normal(shape)
    return (retrograd.tensor(a, requires_grad=requires_grad), torch.tensor(a, requires_grad=requires_grad))


def same_error(run):
    """``run(lib, func_mod)`` raises the same exception type and message in torch and retrograd."""
    with pytest.raises(Exception) as te:
        run(torch, tfunc)
    with pytest.raises(Exception) as re_:
        run(retrograd, rfunc)
    assert type(re_.value).__name__ == type(te.value).__name__, (re_.value, te.value)
    # (retrograd spells dtypes and sizes retrograd.float32, retrograd.Size)
    assert str(re_.value).replace("retrograd.", "torch.") == str(te.value)


# ---------------------------------------------------------------------- grad / grad_and_value
def test_grad_values_argnums_and_pytrees():
    (rx, tx), (ry, ty) = pair((3,)), pair((3,))

    def f(lib, x, y):
        return (lib.sin(x) * y ** 2).sum()

    for argnums in (0, 1, (0, 1), (1, 0), -1, (-2,)):
        r = rfunc.grad(lambda x, y: f(retrograd, x, y), argnums=argnums)(rx, ry)
        t = tfunc.grad(lambda x, y: f(torch, x, y), argnums=argnums)(tx, ty)
        assert_tree_close(r, t)
    # dict and list arguments; gradients keep their structure
    r = rfunc.grad(lambda d: (d["a"] * d["b"].exp()).sum())({"a": rx, "b": ry})
    t = tfunc.grad(lambda d: (d["a"] * d["b"].exp()).sum())({"a": tx, "b": ty})
    assert_tree_close(r, t)
    r = rfunc.grad(lambda l: (l[0] * l[1]).sum())([rx, ry])
    t = tfunc.grad(lambda l: (l[0] * l[1]).sum())([tx, ty])
    assert_tree_close(r, t)
    # keyword arguments are passed through, not differentiated; unused input -> zeros
    r = rfunc.grad(lambda x, y, k=1.0: (x * k).sum())(rx, ry, k=retrograd.tensor(2.0, dtype=retrograd.float64))
    t = tfunc.grad(lambda x, y, k=1.0: (x * k).sum())(tx, ty, k=torch.tensor(2.0, dtype=torch.float64))
    assert_tree_close(r, t)
    assert_tree_close(rfunc.grad(lambda x, y: y.sum(), argnums=0)(rx, ry),
                      tfunc.grad(lambda x, y: y.sum(), argnums=0)(tx, ty))
    # an integer output has a zero gradient in torch too
    assert_tree_close(rfunc.grad(lambda x: x.sum().long())(rx), tfunc.grad(lambda x: x.sum().long())(tx))


def test_grad_has_aux_and_grad_and_value():
    rx, tx = pair((4,))

    def f(lib, x):
        y = lib.tanh(x)
        return (y * y).sum(), {"y": y, "pair": (x * 2, y.mean())}

    assert_tree_close(rfunc.grad(lambda x: f(retrograd, x), has_aux=True)(rx),
                      tfunc.grad(lambda x: f(torch, x), has_aux=True)(tx))
    assert_tree_close(rfunc.grad_and_value(lambda x: f(retrograd, x), has_aux=True)(rx),
                      tfunc.grad_and_value(lambda x: f(torch, x), has_aux=True)(tx))
    assert_tree_close(rfunc.grad_and_value(lambda x: f(retrograd, x)[0])(rx),
                      tfunc.grad_and_value(lambda x: f(torch, x)[0])(tx))
    g, (v, aux) = rfunc.grad_and_value(lambda x: f(retrograd, x), has_aux=True)(rx)
    assert not g.requires_grad and not v.requires_grad and not aux["y"].requires_grad


def test_grad_does_not_leak_requires_grad_and_leaves_inputs_alone():
    rx, tx = pair((3,))
    r = rfunc.grad(lambda x: (x ** 3).sum())(rx)
    t = tfunc.grad(lambda x: (x ** 3).sum())(tx)
    assert r.requires_grad is t.requires_grad is False
    assert r.grad_fn is None
    assert not rx.requires_grad and rx.grad is None and rx.is_leaf
    # a closed-over tensor that requires grad, but the gradient does not depend on it
    rw, tw = pair((3,), requires_grad=True)
    r = rfunc.grad(lambda x: (rw + x ** 2).sum())(rx)
    t = tfunc.grad(lambda x: (tw + x ** 2).sum())(tx)
    assert r.requires_grad is t.requires_grad is False
    # ... and one that it does depend on: the result is part of the outer graph
    r = rfunc.grad(lambda x: (rw * x).sum())(rx)
    t = tfunc.grad(lambda x: (tw * x).sum())(tx)
    assert r.requires_grad and t.requires_grad
    (r * rx).sum().backward()
    (t * tx).sum().backward()
    np.testing.assert_allclose(_n(rw.grad), _n(tw.grad))
    # under an outer no_grad the result never requires grad
    rxr, txr = pair((3,), requires_grad=True)
    with retrograd.no_grad():
        r = rfunc.grad(lambda x: (x ** 3).sum())(rxr)
    with torch.no_grad():
        t = tfunc.grad(lambda x: (x ** 3).sum())(txr)
    assert r.requires_grad is t.requires_grad is False
    assert_tree_close(r, t)
    assert rxr.grad is None


def test_grad_composes_with_outer_autograd():
    rx, tx = pair((3,), requires_grad=True)
    r = rfunc.grad(lambda x: (x.sin() * x).sum())(rx)
    t = tfunc.grad(lambda x: (x.sin() * x).sum())(tx)
    assert r.requires_grad and t.requires_grad
    assert_tree_close(r, t)
    assert_tree_close(retrograd.autograd.grad(r.sum(), rx), torch.autograd.grad(t.sum(), tx))
    # a linear function's gradient is a constant: detached in torch, and here
    r = rfunc.grad(lambda x: (x * 2).sum())(rx)
    t = tfunc.grad(lambda x: (x * 2).sum())(tx)
    assert r.requires_grad is t.requires_grad is False


def test_grad_of_grad_and_third_order():
    rx, tx = pair(())
    for k in (1, 2, 3):
        rf, tf = (lambda x: x.sin() * x ** 3), (lambda x: x.sin() * x ** 3)
        for _ in range(k):
            rf, tf = rfunc.grad(rf), tfunc.grad(tf)
        r, t = rf(rx), tf(tx)
        assert_tree_close(r, t)
        assert not r.requires_grad
    # grad of a function of a gradient of a vector function
    rv, tv = pair((4,))
    r = rfunc.grad(lambda x: rfunc.grad(lambda y: (y.exp() * y).sum())(x).pow(2).sum())(rv)
    t = tfunc.grad(lambda x: tfunc.grad(lambda y: (y.exp() * y).sum())(x).pow(2).sum())(tv)
    assert_tree_close(r, t)
    # the inner transform closes over the outer variable
    r = rfunc.grad(lambda x: rfunc.grad(lambda y: (x * y).sin())(x))(rx)
    t = tfunc.grad(lambda x: tfunc.grad(lambda y: (x * y).sin())(x))(tx)
    assert_tree_close(r, t)


@pytest.mark.parametrize("case", [
    ("nonscalar", lambda L, F, x: F.grad(lambda x: x * 2)(x)),
    ("one-element", lambda L, F, x: F.grad(lambda x: x.sum().reshape(1))(x)),
    ("float out", lambda L, F, x: F.grad(lambda x: 3.0)(x)),
    ("tuple out", lambda L, F, x: F.grad(lambda x: (x.sum(), x.sum()))(x)),
    ("aux not tuple", lambda L, F, x: F.grad(lambda x: x.sum(), has_aux=True)(x)),
    ("aux len 3", lambda L, F, x: F.grad(lambda x: (x.sum(), 1, 2), has_aux=True)(x)),
    ("aux not tensor", lambda L, F, x: F.grad(lambda x: (x.sum(), 3), has_aux=True)(x)),
    ("argnum oob", lambda L, F, x: F.grad(lambda x: x.sum(), argnums=1)(x)),
    ("argnum neg oob", lambda L, F, x: F.grad(lambda x: x.sum(), argnums=-2)(x)),
    ("argnums float", lambda L, F, x: F.grad(lambda x: x.sum(), argnums=1.0)(x)),
    ("argnums list", lambda L, F, x: F.grad(lambda x, y: x.sum(), argnums=[0, 1])(x, x)),
    ("argnums empty", lambda L, F, x: F.grad(lambda x: x.sum(), argnums=())(x)),
    ("argnums dup", lambda L, F, x: F.grad(lambda x, y: x.sum(), argnums=(0, -2))(x, x)),
    ("argnums elem", lambda L, F, x: F.grad(lambda x, y: x.sum(), argnums=(0, "a"))(x, x)),
    ("no args", lambda L, F, x: F.grad(lambda: L.ones(()))()),
    ("float input", lambda L, F, x: F.grad(lambda x: x)(3.0)),
    ("int input", lambda L, F, x: F.grad(lambda x: x.sum())(L.arange(3))),
    ("gav nonscalar", lambda L, F, x: F.grad_and_value(lambda x: x)(x)),
], ids=lambda c: c[0])
def test_grad_errors_match_torch(case):
    _, run = case
    same_error(lambda L, F: run(L, F, L.ones(3)))


# ---------------------------------------------------------------------- vjp
def test_vjp_values_pytrees_aux_and_reuse():
    (rx, tx), (ry, ty) = pair((3,)), pair((2,))
    rout, rfn = rfunc.vjp(lambda x, y: (x.sum() * y.exp(), x ** 2), rx, ry)
    tout, tfn = tfunc.vjp(lambda x, y: (x.sum() * y.exp(), x ** 2), tx, ty)
    assert_tree_close(rout, tout)
    (rc1, tc1), (rc2, tc2) = pair((2,)), pair((3,))
    assert_tree_close(rfn((rc1, rc2)), tfn((tc1, tc2)))
    assert_tree_close(rfn((rc1, rc2)), tfn((tc1, tc2)))  # callable again (graph retained)
    assert not rout[0].requires_grad and not rfn((rc1, rc2))[0].requires_grad
    # dict primal and output
    r = rfunc.vjp(lambda d: {"o": d["a"] * 2}, {"a": rx})[1]({"o": retrograd.ones(3, dtype=retrograd.float64)})
    t = tfunc.vjp(lambda d: {"o": d["a"] * 2}, {"a": tx})[1]({"o": torch.ones(3, dtype=torch.float64)})
    assert_tree_close(r, t)
    # aux
    r = rfunc.vjp(lambda x: (x.sin(), {"c": x.cos()}), rx, has_aux=True)
    t = tfunc.vjp(lambda x: (x.sin(), {"c": x.cos()}), tx, has_aux=True)
    assert_tree_close((r[0], r[2]), (t[0], t[2]))
    assert_tree_close(r[1](rc2), t[1](tc2))


def test_vjp_composes():
    # grad of a vjp w.r.t. the cotangent and the primal
    (rx, tx), (rv, tv) = pair((3,)), pair((3,))
    r = rfunc.grad(lambda x, v: rfunc.vjp(lambda y: y.sin() * y, x)[1](v)[0].pow(2).sum(), argnums=(0, 1))(rx, rv)
    t = tfunc.grad(lambda x, v: tfunc.vjp(lambda y: y.sin() * y, x)[1](v)[0].pow(2).sum(), argnums=(0, 1))(tx, tv)
    assert_tree_close(r, t)


@pytest.mark.parametrize("case", [
    ("aux bad", lambda L, F, x: F.vjp(lambda x: x ** 2, x, has_aux=True)),
    ("nontensor out", lambda L, F, x: F.vjp(lambda x: 3, x)),
    ("none out", lambda L, F, x: F.vjp(lambda x: None, x)),
    ("empty out", lambda L, F, x: F.vjp(lambda x: (), x)),
    ("int out", lambda L, F, x: F.vjp(lambda x: x.long(), x)),
    ("nontensor in", lambda L, F, x: F.vjp(lambda x: x, 3.0)),
    ("ct shape", lambda L, F, x: F.vjp(lambda x: x ** 2, x)[1](L.ones(2))),
    ("ct struct", lambda L, F, x: F.vjp(lambda x: x ** 2, x)[1]((L.ones(3),))),
    ("ct struct 2", lambda L, F, x: F.vjp(lambda x: (x ** 2, x), x)[1](L.ones(3))),
    ("ct dict", lambda L, F, x: F.vjp(lambda x: {"a": x, "b": x}, x)[1]({"b": x, "a": x})),
    ("ct type", lambda L, F, x: F.vjp(lambda x: x ** 2, x)[1](3.0)),
], ids=lambda c: c[0])
def test_vjp_errors_match_torch(case):
    _, run = case
    same_error(lambda L, F: run(L, F, L.ones(3)))


# ---------------------------------------------------------------------- jvp / linearize
def test_jvp_values():
    (rx, tx), (ry, ty) = pair((3,)), pair((2,))
    (rt1, tt1), (rt2, tt2) = pair((3,)), pair((2,))

    def f(lib, x, y):
        return {"a": x.sin() * y.sum(), "b": (x.exp().sum() + y ** 3, y)}

    r = rfunc.jvp(lambda x, y: f(retrograd, x, y), (rx, ry), (rt1, rt2))
    t = tfunc.jvp(lambda x, y: f(torch, x, y), (tx, ty), (tt1, tt2))
    assert_tree_close(r, t)
    assert not r[1]["a"].requires_grad
    # aux; an output that does not depend on the primals gets zero tangent
    r = rfunc.jvp(lambda x: (x ** 2, {"a": x}), (rx,), (rt1,), has_aux=True)
    t = tfunc.jvp(lambda x: (x ** 2, {"a": x}), (tx,), (tt1,), has_aux=True)
    assert_tree_close(r, t)
    assert_tree_close(rfunc.jvp(lambda x: retrograd.ones(2, dtype=retrograd.float64), (rx,), (rt1,)),
                      tfunc.jvp(lambda x: torch.ones(2, dtype=torch.float64), (tx,), (tt1,)))
    # pytree primals
    r = rfunc.jvp(lambda d: d["a"] ** 2 * d["b"].sum(), ({"a": rx, "b": ry},), ({"a": rt1, "b": rt2},))
    t = tfunc.jvp(lambda d: d["a"] ** 2 * d["b"].sum(), ({"a": tx, "b": ty},), ({"a": tt1, "b": tt2},))
    assert_tree_close(r, t)
    # functions with non-smooth pieces: relu, abs, max
    r = rfunc.jvp(lambda x: (retrograd.relu(x) + x.abs() * x.max(), x.clamp(-0.5, 0.5)), (rx,), (rt1,))
    t = tfunc.jvp(lambda x: (torch.relu(x) + x.abs() * x.max(), x.clamp(-0.5, 0.5)), (tx,), (tt1,))
    assert_tree_close(r, t)


def test_jvp_composes_with_grad():
    (rx, tx), (rv, tv) = pair((3,)), pair((3,))
    # forward-over-reverse Hessian-vector product
    r = rfunc.jvp(rfunc.grad(lambda x: (x.sin() * x.sum()).sum()), (rx,), (rv,))
    t = tfunc.jvp(tfunc.grad(lambda x: (x.sin() * x.sum()).sum()), (tx,), (tv,))
    assert_tree_close(r, t)
    # grad through a jvp (w.r.t. the primal and the tangent)
    r = rfunc.grad(lambda x, v: rfunc.jvp(lambda y: y.exp() * y, (x,), (v,))[1].sum(), argnums=(0, 1))(rx, rv)
    t = tfunc.grad(lambda x, v: tfunc.jvp(lambda y: y.exp() * y, (x,), (v,))[1].sum(), argnums=(0, 1))(tx, tv)
    assert_tree_close(r, t)


@pytest.mark.parametrize("case", [
    ("primals not tuple", lambda L, F, x: F.jvp(lambda x: x ** 2, x, (x,))),
    ("primals list", lambda L, F, x: F.jvp(lambda x: x ** 2, [x], [x])),
    ("tangents not tuple", lambda L, F, x: F.jvp(lambda x: x ** 2, (x,), x)),
    ("length", lambda L, F, x: F.jvp(lambda x: x ** 2, (x,), (x, x))),
    ("dict keys", lambda L, F, x: F.jvp(lambda d: d["a"], ({"a": x},), ({"b": x},))),
    ("empty", lambda L, F, x: F.jvp(lambda: x, (), ())),
    ("shape", lambda L, F, x: F.jvp(lambda x: x ** 2, (x,), (L.ones(2),))),
    ("int primal", lambda L, F, x: F.jvp(lambda x: x * 2, (L.arange(3),), (x,))),
    ("nontensor primal", lambda L, F, x: F.jvp(lambda x: x, (3.0,), (x,))),
    ("aux bad", lambda L, F, x: F.jvp(lambda x: x ** 2, (x,), (x,), has_aux=True)),
    ("nontensor out", lambda L, F, x: F.jvp(lambda x: 3.0, (x,), (x,))),
    ("strict", lambda L, F, x: F.jvp(lambda x: L.ones(2), (x,), (x,), strict=True)),
], ids=lambda c: c[0])
def test_jvp_errors_match_torch(case):
    _, run = case
    same_error(lambda L, F: run(L, F, L.ones(3)))


def test_linearize():
    (rx, tx), (rt, tt) = pair((3,)), pair((3,))
    rout, rfn = rfunc.linearize(lambda x: x.sin() * x, rx)
    tout, tfn = tfunc.linearize(lambda x: x.sin() * x, tx)
    assert_tree_close(rout, tout)
    assert_tree_close(rfn(rt), tfn(tt))
    assert_tree_close(rfn(rt * 2), tfn(tt * 2))


# ---------------------------------------------------------------------- jacrev / jacfwd / hessian
@pytest.mark.parametrize("jac", ["jacrev", "jacfwd"])
def test_jacobians(jac):
    rj, tj = getattr(rfunc, jac), getattr(tfunc, jac)
    (rx, tx), (ry, ty) = pair((3,)), pair((2, 2))
    assert_tree_close(rj(lambda x: x.sin() * x.sum())(rx), tj(lambda x: x.sin() * x.sum())(tx))
    assert_tree_close(rj(lambda x: (x ** 2).sum())(rx), tj(lambda x: (x ** 2).sum())(tx))  # scalar output
    assert_tree_close(rj(lambda x, y: x.sum() * y, argnums=(0, 1))(rx, ry),
                      tj(lambda x, y: x.sum() * y, argnums=(0, 1))(tx, ty))
    # dict output, tuple argnums: {out: (d/dx, d/dy)}; dict input
    assert_tree_close(rj(lambda x, y: {"a": x * 2, "b": y.sum()}, argnums=(0, 1))(rx, ry),
                      tj(lambda x, y: {"a": x * 2, "b": y.sum()}, argnums=(0, 1))(tx, ty))
    assert_tree_close(rj(lambda d: d["a"].exp() * d["b"].sum())({"a": rx, "b": ry}),
                      tj(lambda d: d["a"].exp() * d["b"].sum())({"a": tx, "b": ty}))
    assert_tree_close(rj(lambda x: (x * 2, x.cos()), has_aux=True)(rx),
                      tj(lambda x: (x * 2, x.cos()), has_aux=True)(tx))
    # output independent of the input; empty output
    assert_tree_close(rj(lambda x: retrograd.ones(2, dtype=retrograd.float64))(rx),
                      tj(lambda x: torch.ones(2, dtype=torch.float64))(tx))
    assert_tree_close(rj(lambda x: x[:0])(rx), tj(lambda x: x[:0])(tx))
    # nested
    assert_tree_close(rj(rj(lambda x: x.sin() * x.prod()))(rx), tj(tj(lambda x: x.sin() * x.prod()))(tx))


def test_jacrev_keeps_outer_graph():
    rx, tx = pair((3,), requires_grad=True)
    r = rfunc.jacrev(lambda x: x ** 3)(rx)
    t = tfunc.jacrev(lambda x: x ** 3)(tx)
    assert r.requires_grad and t.requires_grad
    assert_tree_close(retrograd.autograd.grad(r.sum(), rx), torch.autograd.grad(t.sum(), tx))


def test_hessian():
    (rx, tx), (ry, ty) = pair((3,)), pair((2,))

    def f(lib, x, y):
        return (x ** 3).sum() * y.exp().sum() + (x.sin() * x).sum()

    assert_tree_close(rfunc.hessian(lambda x, y: f(retrograd, x, y))(rx, ry),
                      tfunc.hessian(lambda x, y: f(torch, x, y))(tx, ty))
    assert_tree_close(rfunc.hessian(lambda x, y: f(retrograd, x, y), argnums=(0, 1))(rx, ry),
                      tfunc.hessian(lambda x, y: f(torch, x, y), argnums=(0, 1))(tx, ty))
    # the autograd.functional hessian agrees
    np.testing.assert_allclose(_n(rfunc.hessian(lambda x: f(retrograd, x, ry))(rx)),
                               _n(retrograd.autograd.functional.hessian(lambda x: f(retrograd, x, ry), rx)))


@pytest.mark.parametrize("case", [
    ("rev nontensor out", lambda L, F, x: F.jacrev(lambda x: 3)(x)),
    ("rev none out", lambda L, F, x: F.jacrev(lambda x: None)(x)),
    ("rev nontensor in", lambda L, F, x: F.jacrev(lambda x: x)(3.0)),
    ("rev int in", lambda L, F, x: F.jacrev(lambda x: x * 2)(L.arange(3))),
    ("rev int out", lambda L, F, x: F.jacrev(lambda x: x.long())(x)),
    ("rev argnums", lambda L, F, x: F.jacrev(lambda x: x, argnums=2)(x)),
    ("rev chunk", lambda L, F, x: F.jacrev(lambda x: x, chunk_size=0)),
    ("rev aux", lambda L, F, x: F.jacrev(lambda x: x, has_aux=True)(x)),
    ("fwd nontensor out", lambda L, F, x: F.jacfwd(lambda x: 3)(x)),
    ("fwd nontensor in", lambda L, F, x: F.jacfwd(lambda x: x)(3.0)),
    ("fwd int in", lambda L, F, x: F.jacfwd(lambda x: x * 2)(L.arange(3))),
    ("fwd argnums", lambda L, F, x: F.jacfwd(lambda x: x, argnums=(0, 0))(x)),
    ("fwd randomness", lambda L, F, x: F.jacfwd(lambda x: x, randomness="bad")(x)),
    ("fwd aux", lambda L, F, x: F.jacfwd(lambda x: x, has_aux=True)(x)),
    ("hessian argnums", lambda L, F, x: F.hessian(lambda x: x.sum(), argnums=3)(x)),
], ids=lambda c: c[0])
def test_jacobian_errors_match_torch(case):
    _, run = case
    same_error(lambda L, F: run(L, F, L.ones(3)))


# ---------------------------------------------------------------------- vmap
def test_vmap_values_in_dims_out_dims():
    (rx, tx), (ry, ty) = pair((2, 3)), pair((3,))
    cases = [
        (lambda L: L.sum, {}),
        (lambda L: L.sum, {"in_dims": 1}),
        (lambda L: (lambda a: a * 2), {"in_dims": -1}),
        (lambda L: (lambda a: a.exp()), {"out_dims": 1}),
        (lambda L: (lambda a: (a, a.sum())), {"out_dims": (1, 0)}),
        (lambda L: (lambda a: [a, a.cos()]), {}),
        (lambda L: (lambda a: {"s": a.sum(), "p": a}), {}),
    ]
    for mk, kw in cases:
        assert_tree_close(rfunc.vmap(mk(retrograd), **kw)(rx), tfunc.vmap(mk(torch), **kw)(tx))
    # an unmapped argument, a pytree argument, keyword arguments (never mapped)
    assert_tree_close(rfunc.vmap(lambda a, b: a * b, in_dims=(0, None))(rx, ry),
                      tfunc.vmap(lambda a, b: a * b, in_dims=(0, None))(tx, ty))
    assert_tree_close(rfunc.vmap(lambda a, b: a * b, in_dims=(1, 0))(rx, ry),
                      tfunc.vmap(lambda a, b: a * b, in_dims=(1, 0))(tx, ty))
    assert_tree_close(rfunc.vmap(lambda d: d["a"] + d["b"], in_dims=({"a": 0, "b": None},))({"a": rx, "b": ry}),
                      tfunc.vmap(lambda d: d["a"] + d["b"], in_dims=({"a": 0, "b": None},))({"a": tx, "b": ty}))
    assert_tree_close(rfunc.vmap(lambda a, scale=1.0: a * scale)(rx, scale=ry),
                      tfunc.vmap(lambda a, scale=1.0: a * scale)(tx, scale=ty))
    assert_tree_close(rfunc.vmap(lambda a, b: a * b, in_dims=(0, None))(rx, 3.0),
                      tfunc.vmap(lambda a, b: a * b, in_dims=(0, None))(tx, 3.0))
    # unmapped outputs: broadcast with out_dims=0, returned as is with out_dims=None
    assert_tree_close(rfunc.vmap(lambda a: ry)(rx), tfunc.vmap(lambda a: ty)(tx))
    assert_tree_close(rfunc.vmap(lambda a: (a, ry), out_dims=(0, None))(rx),
                      tfunc.vmap(lambda a: (a, ty), out_dims=(0, None))(tx))
    assert rfunc.vmap(lambda a: 3, out_dims=None)(rx) == 3
    # integer data and an empty batch
    ri, ti = retrograd.arange(6).reshape(2, 3), torch.arange(6).reshape(2, 3)
    assert_tree_close(rfunc.vmap(lambda a: a * 2)(ri), tfunc.vmap(lambda a: a * 2)(ti))
    assert_tree_close(rfunc.vmap(lambda a: (a * 2, a.sum()))(retrograd.ones(0, 3)),
                      tfunc.vmap(lambda a: (a * 2, a.sum()))(torch.ones(0, 3)))


def test_vmap_nested_and_matmul():
    (rx, tx), (ry, ty) = pair((2, 3, 4)), pair((4, 5))
    assert_tree_close(rfunc.vmap(rfunc.vmap(lambda a, b: a @ b, in_dims=(0, None)), in_dims=(0, None))(rx, ry),
                      tfunc.vmap(tfunc.vmap(lambda a, b: a @ b, in_dims=(0, None)), in_dims=(0, None))(tx, ty))
    assert_tree_close(rfunc.vmap(rfunc.vmap(retrograd.dot, in_dims=(0, None)), in_dims=(None, 1))(rx[0], ry),
                      tfunc.vmap(tfunc.vmap(torch.dot, in_dims=(0, None)), in_dims=(None, 1))(tx[0], ty))


def test_gradients_flow_through_vmap():
    (rx, tx), (rw, tw) = pair((4, 3), requires_grad=True), pair((3,), requires_grad=True)
    r = rfunc.vmap(lambda a, w: (a * w).tanh().sum(), in_dims=(0, None))(rx, rw)
    t = tfunc.vmap(lambda a, w: (a * w).tanh().sum(), in_dims=(0, None))(tx, tw)
    assert_tree_close(r, t)
    assert r.requires_grad
    (r ** 2).sum().backward()
    (t ** 2).sum().backward()
    np.testing.assert_allclose(_n(rx.grad), _n(tx.grad), rtol=1e-10)
    np.testing.assert_allclose(_n(rw.grad), _n(tw.grad), rtol=1e-10)


def test_vmap_of_grad_jacrev_and_hessian():
    (rx, tx), (ry, ty) = pair((5, 3)), pair((3,))

    def f(lib):
        return lambda x, y: (x.sin() * y).sum() ** 2

    assert_tree_close(rfunc.vmap(rfunc.grad(f(retrograd)), in_dims=(0, None))(rx, ry),
                      tfunc.vmap(tfunc.grad(f(torch)), in_dims=(0, None))(tx, ty))
    assert_tree_close(rfunc.vmap(rfunc.jacrev(lambda x: x.exp() * x.sum()))(rx),
                      tfunc.vmap(tfunc.jacrev(lambda x: x.exp() * x.sum()))(tx))
    assert_tree_close(rfunc.vmap(rfunc.hessian(lambda x: (x ** 3).sum()))(rx),
                      tfunc.vmap(tfunc.hessian(lambda x: (x ** 3).sum()))(tx))
    # grad of a vmapped function
    assert_tree_close(rfunc.grad(lambda y: rfunc.vmap(f(retrograd), in_dims=(0, None))(rx, y).sum())(ry),
                      tfunc.grad(lambda y: tfunc.vmap(f(torch), in_dims=(0, None))(tx, y).sum())(ty))


def test_vmap_randomness():
    x = retrograd.ones(3, 2)
    retrograd.manual_seed(0)
    same = rfunc.vmap(lambda a: a * retrograd.rand(2), randomness="same")(x)
    assert np.array_equal(_n(same[0]), _n(same[1])) and np.array_equal(_n(same[1]), _n(same[2]))
    diff = rfunc.vmap(lambda a: a * retrograd.rand(2), randomness="different")(x)
    assert not np.array_equal(_n(diff[0]), _n(diff[1]))
    state = retrograd.get_rng_state()
    same_error(lambda L, F: F.vmap(lambda a: a + L.rand(2))(L.ones(3, 2)))
    assert np.array_equal(_n(retrograd.get_rng_state()), _n(state))  # error mode drew nothing
    # dropout in training mode is random
    same_error(lambda L, F: F.vmap(lambda a: L.nn.functional.dropout(a, 0.5))(L.ones(3, 2)))


@pytest.mark.parametrize("case", [
    ("sizes", lambda L, F, x: F.vmap(lambda a, b: a + b)(x, L.ones(3))),
    ("sizes 3", lambda L, F, x: F.vmap(lambda a, b, c: a)(x, L.ones(3), L.ones(4, 1))),
    ("in_dim oob", lambda L, F, x: F.vmap(lambda a: a, in_dims=2)(x)),
    ("in_dim neg oob", lambda L, F, x: F.vmap(lambda a: a, in_dims=-3)(x)),
    ("scalar input", lambda L, F, x: F.vmap(lambda a: a)(L.tensor(1.0))),
    ("in_dims None", lambda L, F, x: F.vmap(lambda a: a, in_dims=None)(x)),
    ("all unmapped", lambda L, F, x: F.vmap(lambda a: a, in_dims=(None,))(x)),
    ("no inputs", lambda L, F, x: F.vmap(lambda: L.ones(1))()),
    ("in_dims length", lambda L, F, x: F.vmap(lambda a, b: a, in_dims=(0,))(x, x)),
    ("in_dims str", lambda L, F, x: F.vmap(lambda a: a, in_dims="a")(x)),
    ("in_dims list", lambda L, F, x: F.vmap(lambda a, b: a, in_dims=[0, None])(x, x)),
    ("in_dim float", lambda L, F, x: F.vmap(lambda a: a, in_dims=(0.5,))(x)),
    ("in_dims nested", lambda L, F, x: F.vmap(lambda a: a, in_dims=((0, 0),))(x)),
    ("in_dims dict", lambda L, F, x: F.vmap(lambda d: d["a"], in_dims=({"c": 0},))({"a": x})),
    ("non-tensor mapped", lambda L, F, x: F.vmap(lambda a, b: a * b)(x, 3.0)),
    ("out int", lambda L, F, x: F.vmap(lambda a: 3)(x)),
    ("out None", lambda L, F, x: F.vmap(lambda a: (a, None))(x)),
    ("out_dims batched None", lambda L, F, x: F.vmap(lambda a: a * 2, out_dims=None)(x.cumsum(0))),
    ("out_dims length", lambda L, F, x: F.vmap(lambda a: (a, a), out_dims=(0, 0, 0))(x)),
    ("out_dims str", lambda L, F, x: F.vmap(lambda a: a, out_dims="x")(x)),
    ("out_dims oob", lambda L, F, x: F.vmap(lambda a: a, out_dims=2)(x)),
    ("randomness", lambda L, F, x: F.vmap(lambda a: a, randomness="bad")),
    ("chunk 0", lambda L, F, x: F.vmap(lambda a: a, chunk_size=0)),
    ("chunk neg", lambda L, F, x: F.vmap(lambda a: a, chunk_size=-1)),
], ids=lambda c: c[0])
def test_vmap_errors_match_torch(case):
    _, run = case
    same_error(lambda L, F: run(L, F, L.ones(2, 3)))


# ---------------------------------------------------------------------- functional_call, per-sample grads
def _mlp_pair():
    tm = torch.nn.Sequential(torch.nn.Linear(4, 6), torch.nn.Tanh(), torch.nn.Linear(6, 3)).double()
    rm = retrograd.nn.Sequential(retrograd.nn.Linear(4, 6), retrograd.nn.Tanh(), retrograd.nn.Linear(6, 3)).double()
    with retrograd.no_grad():
        for (_, rp), (_, tp) in zip(rm.named_parameters(), tm.named_parameters()):
            rp.copy_(retrograd.tensor(tp.detach().numpy()))
    return rm, tm


def test_per_sample_gradients():
    rm, tm = _mlp_pair()
    x = rng.standard_normal((5, 4))
    y = rng.integers(0, 3, 5)

    def per_sample(lib, func, model):
        params = {k: v.detach() for k, v in model.named_parameters()}

        def loss(p, xi, yi):
            out = func.functional_call(model, p, (xi.unsqueeze(0),))
            return lib.nn.functional.cross_entropy(out, yi.unsqueeze(0))

        return func.vmap(func.grad(loss), in_dims=(None, 0, 0))(params, lib.tensor(x), lib.tensor(y))

    r = per_sample(retrograd, rfunc, rm)
    t = per_sample(torch, tfunc, tm)
    assert_tree_close(r, t)
    assert all(not g.requires_grad for g in r.values())
    # the same as one backward per sample
    for i in range(5):
        rm.zero_grad()
        retrograd.nn.functional.cross_entropy(rm(retrograd.tensor(x[i:i + 1])), retrograd.tensor(y[i:i + 1])).backward()
        for k, p in rm.named_parameters():
            np.testing.assert_allclose(_n(r[k][i]), _n(p.grad), rtol=1e-10)
    # and the module is untouched
    for (_, rp), (_, tp) in zip(rm.named_parameters(), tm.named_parameters()):
        np.testing.assert_allclose(_n(rp), _n(tp))
        assert isinstance(rp, retrograd.nn.Parameter)


def test_functional_call_dicts_and_restore():
    rm, tm = _mlp_pair()
    x = rng.standard_normal((2, 4))
    new = {"0.weight": rng.standard_normal((6, 4)), "2.bias": rng.standard_normal(3)}
    rnew = {k: retrograd.tensor(v) for k, v in new.items()}
    tnew = {k: torch.tensor(v) for k, v in new.items()}
    assert_tree_close(rfunc.functional_call(rm, rnew, retrograd.tensor(x)),
                      tfunc.functional_call(tm, tnew, torch.tensor(x)))
    # a tuple of dicts, kwargs
    r = rfunc.functional_call(rm, ({"0.weight": rnew["0.weight"]}, {"2.bias": rnew["2.bias"]}),
                              args=(), kwargs={"input": retrograd.tensor(x)})
    t = tfunc.functional_call(tm, ({"0.weight": tnew["0.weight"]}, {"2.bias": tnew["2.bias"]}),
                              args=(), kwargs={"input": torch.tensor(x)})
    assert_tree_close(r, t)
    # restored, also after an error inside the call
    before = _n(rm[0].weight).copy()
    with pytest.raises(RuntimeError):
        rfunc.functional_call(rm, rnew, retrograd.ones(2, 5, dtype=retrograd.float64))
    np.testing.assert_array_equal(_n(rm[0].weight), before)
    assert isinstance(rm[0].weight, retrograd.nn.Parameter) and rm[0].weight.requires_grad
    # gradients reach the tensors passed in, not the module's parameters
    w = retrograd.tensor(new["0.weight"], requires_grad=True)
    rfunc.functional_call(rm, {"0.weight": w}, (retrograd.tensor(x),)).sum().backward()
    assert w.grad is not None and rm[0].weight.grad is None


def test_functional_call_buffers_write_back_and_ties():
    def build(L):
        class M(L.nn.Module):
            def __init__(self):
                super().__init__()
                self.register_buffer("count", L.zeros(()))
                self.lin = L.nn.Linear(2, 2, bias=False)
                self.other = L.nn.Linear(2, 2, bias=False)
                self.other.weight = self.lin.weight  # one weight under two names

            def forward(self, x):
                self.count = self.count + 1
                return self.other(x) + self.lin(x)
        return M()

    for L, F in ((retrograd, rfunc), (torch, tfunc)):
        m = build(L)
        given = {"count": L.tensor(5.0)}
        F.functional_call(m, given, (L.ones(1, 2),))
        assert float(given["count"]) == 6.0 and float(m.count) == 0.0
        out = F.functional_call(m, {"lin.weight": L.eye(2)}, (L.ones(1, 2),))
        np.testing.assert_allclose(_n(out), [[2.0, 2.0]])
        out = F.functional_call(m, {"lin.weight": L.eye(2)}, (L.ones(1, 2),), tie_weights=False)
        assert not np.allclose(_n(out), [[2.0, 2.0]])

    same_error(lambda L, F: F.functional_call(build(L), {"lin.weight": L.eye(2), "other.weight": L.ones(2, 2)},
                                              (L.ones(1, 2),)))


@pytest.mark.parametrize("case", [
    ("strict missing", lambda L, F, m: F.functional_call(m, {"0.weight": L.ones(6, 4)}, (L.ones(1, 4),),
                                                          strict=True)),
    ("strict unexpected", lambda L, F, m: F.functional_call(
        m, {**{k: v.detach() for k, v in m.named_parameters()}, "zz": L.ones(1)}, (L.ones(1, 4),), strict=True)),
    ("strict both", lambda L, F, m: F.functional_call(m, {"zz": L.ones(1), "a.b": L.ones(1)}, (L.ones(1, 4),),
                                                       strict=True)),
    ("repeated", lambda L, F, m: F.functional_call(m, ({"0.bias": L.ones(6)}, {"0.bias": L.ones(6)}),
                                                    (L.ones(1, 4),))),
    ("not dicts", lambda L, F, m: F.functional_call(m, ({"0.bias": L.ones(6)}, 3), (L.ones(1, 4),))),
    ("not a dict", lambda L, F, m: F.functional_call(m, 3, (L.ones(1, 4),))),
], ids=lambda c: c[0])
def test_functional_call_errors_match_torch(case):
    _, run = case
    rm, tm = _mlp_pair()
    same_error(lambda L, F: run(L, F, rm if L is retrograd else tm))


def test_stateless_functional_call_is_deprecated_alias():
    rm, tm = _mlp_pair()
    x = rng.standard_normal((2, 4))
    new = {"2.weight": rng.standard_normal((3, 6))}
    with warnings.catch_warnings(record=True) as tw:
        warnings.simplefilter("always")
        t = torch.nn.utils.stateless.functional_call(tm, {k: torch.tensor(v) for k, v in new.items()},
                                                     torch.tensor(x))
    with warnings.catch_warnings(record=True) as rw:
        warnings.simplefilter("always")
        r = rstateless.functional_call(rm, {k: retrograd.tensor(v) for k, v in new.items()}, retrograd.tensor(x))
    assert_tree_close(r, t)
    assert [str(w.message) for w in rw] == [str(w.message) for w in tw]
    assert [w.category for w in rw] == [w.category for w in tw] == [FutureWarning]


def test_more_compositions_and_options():
    (rx, tx), (ry, ty) = pair((4, 3), requires_grad=True), pair((3,))
    # vmap(grad) of an input that requires grad stays in the outer graph
    r = rfunc.vmap(rfunc.grad(lambda a: (a ** 3).sum()))(rx)
    t = tfunc.vmap(tfunc.grad(lambda a: (a ** 3).sum()))(tx)
    assert r.requires_grad and t.requires_grad
    assert_tree_close(retrograd.autograd.grad(r.sum(), rx), torch.autograd.grad(t.sum(), tx))
    # vmap over a module; chunk_size gives the same result
    rm, tm = _mlp_pair()
    rz, tz = pair((5, 4))
    assert_tree_close(rfunc.vmap(rm, chunk_size=2)(rz), tfunc.vmap(tm, chunk_size=2)(tz))
    # vjp_fn of a function closing over a tensor that requires grad keeps the graph to it
    rw, tw = pair((3,), requires_grad=True)
    r = rfunc.vjp(lambda y: (y * rw).sin(), ry)[1](retrograd.ones(3, dtype=retrograd.float64))[0]
    t = tfunc.vjp(lambda y: (y * tw).sin(), ty)[1](torch.ones(3, dtype=torch.float64))[0]
    assert r.requires_grad and t.requires_grad
    assert_tree_close(retrograd.autograd.grad(r.sum(), rw), torch.autograd.grad(t.sum(), tw))
    # jacrev with tuple argnums and aux; jacfwd of a two-output function
    r = rfunc.jacrev(lambda a, b: ((a * b).sum(0), b.exp()), argnums=(0, 1), has_aux=True)(rx.detach(), ry)
    t = tfunc.jacrev(lambda a, b: ((a * b).sum(0), b.exp()), argnums=(0, 1), has_aux=True)(tx.detach(), ty)
    assert_tree_close(r, t)
    r = rfunc.jacfwd(lambda b: (b.sin(), b.sum()))(ry)
    t = tfunc.jacfwd(lambda b: (b.sin(), b.sum()))(ty)
    assert_tree_close(r, t)
    # float32 stays float32
    r32, t32 = retrograd.tensor([1.0, 2.0]), torch.tensor([1.0, 2.0])
    assert_tree_close(rfunc.hessian(lambda a: (a ** 3).sum())(r32), tfunc.hessian(lambda a: (a ** 3).sum())(t32),
                      rtol=1e-6)


def _outcome(f, T):
    try:
        return "ok", f(T)
    except Exception as exc:  # noqa: BLE001 - type and text compared with torch's
        return type(exc).__name__, str(exc)


def test_old_style_function_is_refused_inside_func_transforms():
    def run(T):
        class MyExp(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                y = x.exp()
                ctx.save_for_backward(y)
                return y

            @staticmethod
            def backward(ctx, g):
                y, = ctx.saved_tensors
                return g * y

        return (_outcome(lambda _: T.vmap(MyExp.apply)(T.ones(2, 3)), T),
                _outcome(lambda _: T.func.grad(lambda x: MyExp.apply(x).sum())(T.ones(2)), T),
                [round(v, 5) for v in MyExp.apply(T.ones(2)).tolist()])  # (outside a transform it is fine)

    assert run(rg) == run(torch)
