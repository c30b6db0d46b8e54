"""Forward-mode AD (``autograd.forward_ad``) against torch 2.13: tangents through ops, views,
in-place writes, custom Functions with ``jvp``, errors, and agreement with reverse mode."""
from __future__ import annotations

import numpy as np
import pytest

import retrograd as rg
import retrograd.autograd.forward_ad as rfw

torch = pytest.importorskip("torch")
import torch.autograd.forward_ad as tfw  # noqa: E402 (after importorskip: skips cleanly without torch)

RNG = np.random.default_rng(0)
TOL = {"rtol": 1e-10, "atol": 1e-12}


def _fw(lib, fn, primals, tangents):
    """fn(lib, *duals) inside a dual level; returns (primal, tangent) arrays of each output."""
    fwAD = lib.autograd.forward_ad
    with fwAD.dual_level():
        duals = [fwAD.make_dual(lib.tensor(p), lib.tensor(t)) if t is not None else lib.tensor(p)
                 for p, t in zip(primals, tangents)]
        out = fn(lib, *duals)
        outs = out if isinstance(out, (tuple, list)) else (out,)
        res = []
        for o in outs:
            u = fwAD.unpack_dual(o)
            res.append((u.primal.detach().numpy().copy(),
                        None if u.tangent is None else u.tangent.detach().numpy().copy()))
        return res


def check(fn, *shapes, tangents=None, positive=False):
    primals = [RNG.standard_normal(s) for s in shapes]
    if positive:
        primals = [np.abs(p) + 0.5 for p in primals]
    if tangents is None:
        tangents = [RNG.standard_normal(s) for s in shapes]
    got = _fw(rg, fn, primals, tangents)
    want = _fw(torch, fn, primals, tangents)
    assert len(got) == len(want)
    for (gp, gt), (wp, wt) in zip(got, want):
        np.testing.assert_allclose(gp, wp, **TOL)
        assert (gt is None) == (wt is None)
        if wt is not None:
            assert gt.dtype == wt.dtype
            np.testing.assert_allclose(gt, wt, **TOL)


POINTWISE = {
    "mul_add": lambda L, x, y: x * y + x,
    "div": lambda L, x, y: x / (y * y + 1),
    "sin_exp": lambda L, x, y: L.sin(x) * L.exp(y),
    "tanh_sigmoid": lambda L, x, y: L.tanh(x) - L.sigmoid(y),
    "pow": lambda L, x, y: (x * x + 1) ** y,
    "where": lambda L, x, y: L.where(x > 0, x * y, y),
    "clamp_abs": lambda L, x, y: L.clamp(x, -0.5, 0.5) + L.abs(y),
    "square_self": lambda L, x, y: x * x,
    "atan2": lambda L, x, y: L.atan2(x, y),
}


@pytest.mark.parametrize("name", sorted(POINTWISE))
def test_pointwise(name):
    check(POINTWISE[name], (3, 4), (3, 4))


def test_broadcasting_and_scalar():
    check(lambda L, x, y: x * y - 2.0 * x + 1, (3, 1), (4,))


def test_only_one_input_dual():
    check(lambda L, x, y: L.sin(x) * y, (2, 3), (2, 3), tangents=[RNG.standard_normal((2, 3)), None])


REDUCTIONS = {
    "sum_dim": lambda L, x: x.sum(1),
    "mean": lambda L, x: x.mean(),
    "prod": lambda L, x: x.prod(0),
    "logsumexp": lambda L, x: L.logsumexp(x, 1),
    "norm": lambda L, x: x.norm(),
    "var": lambda L, x: x.var(0),
    "amax": lambda L, x: x.amax(1),
    "cumsum": lambda L, x: x.cumsum(1),
}


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_reductions(name):
    check(REDUCTIONS[name], (3, 5))


def test_max_dim_multi_output():
    # values get a tangent, indices do not
    check(lambda L, x: tuple(L.max(x, 1)), (3, 4))


def test_matmul_family():
    check(lambda L, a, b: a @ b, (3, 4), (4, 2))
    check(lambda L, a, b: L.bmm(a, b), (2, 3, 4), (2, 4, 5))
    check(lambda L, a, b: L.matmul(a, b), (4,), (2, 4, 3))


VIEWS = {
    "reshape": lambda L, x: x.reshape(6, 2) * 2,
    "transpose": lambda L, x: x.transpose(0, 1),
    "t_matmul": lambda L, x: x.t() @ x,
    "index_basic": lambda L, x: x[1:, ::2],
    "index_int": lambda L, x: x[2],
    "index_advanced": lambda L, x: x[[0, 2, 2]],
    "index_mask": lambda L, x: x[x > 0],
    "expand": lambda L, x: x[:, :1].expand(3, 4),
    "permute_unsqueeze": lambda L, x: x.unsqueeze(0).permute(2, 0, 1),
    "chunk": lambda L, x: x.chunk(2, 1),
    "cat_stack": lambda L, x: L.cat([x, L.stack([x[0], x[1]])]),
}


@pytest.mark.parametrize("name", sorted(VIEWS))
def test_views_and_indexing(name):
    check(VIEWS[name], (3, 4))


NN = {
    "linear": lambda L, x, w, b: L.nn.functional.linear(x, w, b),
    "relu": lambda L, x, w, b: L.nn.functional.relu(x) * w.sum(),
    "softmax": lambda L, x, w, b: L.nn.functional.softmax(x @ w.t() + b, dim=1),
    "log_softmax": lambda L, x, w, b: L.nn.functional.log_softmax(x, dim=0),
    "mse": lambda L, x, w, b: L.nn.functional.mse_loss(x @ w.t(), b.expand(2, 3)),
    "layer_norm": lambda L, x, w, b: L.nn.functional.layer_norm(x, (4,)),
}


@pytest.mark.parametrize("name", sorted(NN))
def test_nn_functional(name):
    check(NN[name], (2, 4), (3, 4), (3,))


def test_conv2d():
    check(lambda L, x, w, b: L.nn.functional.conv2d(x, w, b, padding=1), (2, 3, 5, 5), (4, 3, 3, 3), (4,))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy(reduction):
    target = np.array([0, 2, 1, 2])

    def f(L, x):
        return L.nn.functional.cross_entropy(x, L.tensor(target), reduction=reduction)

    check(f, (4, 3))


def test_cross_entropy_probabilities_and_smoothing():
    p = RNG.random((4, 3))
    p /= p.sum(1, keepdims=True)
    check(lambda L, x: L.nn.functional.cross_entropy(x, L.tensor(p), label_smoothing=0.1), (4, 3))


MORE = {
    "batch_norm": (lambda L, x: L.nn.functional.batch_norm(x, None, None, training=True), [(4, 3)]),
    "embedding": (lambda L, w: L.nn.functional.embedding(L.tensor([0, 2, 2]), w), [(3, 4)]),
    "max_pool2d": (lambda L, x: L.nn.functional.max_pool2d(x, 2), [(1, 2, 4, 4)]),
    "sdpa": (lambda L, q, k: L.nn.functional.scaled_dot_product_attention(q, k, k), [(2, 3, 4), (2, 3, 4)]),
    "einsum": (lambda L, a, b: L.einsum("ij,jk->ik", a, b), [(2, 3), (3, 4)]),
    "gather": (lambda L, x: L.gather(x, 1, L.tensor([[0, 1], [2, 0]])), [(2, 3)]),
    "sort_topk": (lambda L, x: (L.sort(x, 1)[0], L.topk(x, 2)[0]), [(2, 3)]),
    "split_unbind": (lambda L, x: x.split(1, 0) + x.unbind(1), [(2, 3)]),
    "inv_det": (lambda L, x: (L.linalg.inv(x + 3 * L.eye(3, dtype=L.float64)), L.linalg.det(x)), [(3, 3)]),
    "solve": (lambda L, a, b: L.linalg.solve(a + 3 * L.eye(3, dtype=L.float64), b), [(3, 3), (3, 2)]),
    "std_mean_var_mean": (lambda L, x: L.std_mean(x, 0) + L.var_mean(x, 1), [(3, 2)]),
    "masked_fill_scatter_add": (lambda L, x, s: (x.masked_fill(x > 0, 0.0),
                                                 x.scatter_add(0, L.tensor([[0, 1, 0]]), s)), [(2, 3), (1, 3)]),
    "diagonal_unfold": (lambda L, x: (x.diagonal(), x[0].unfold(0, 2, 1)), [(3, 3)]),
    "cumprod_lerp": (lambda L, a, b: (a.cumprod(0), L.lerp(a, b, 0.3)), [(4,), (4,)]),
}


@pytest.mark.parametrize("name", sorted(MORE))
def test_more_ops(name):
    fn, shapes = MORE[name]
    check(fn, *shapes)


def test_setitem_recorded_paths():
    res = []
    for lib, fw in ((rg, rfw), (torch, tfw)):
        with fw.dual_level():
            d = fw.make_dual(lib.tensor([1.0, 2.0]), lib.tensor([3.0, 4.0]))
            p = lib.zeros(3, requires_grad=True).clone()
            p[1:] = d
            q = lib.zeros(3, requires_grad=True).clone()
            q[lib.tensor([0, 2])] = d * 2
            res.append([fw.unpack_dual(z).tangent.numpy().copy() for z in (p, q)])
    for g, w in zip(*res):
        np.testing.assert_allclose(g, w)


def test_hooks_do_not_fire_during_forward():
    for lib, fw in ((rg, rfw), (torch, tfw)):
        calls = []
        p = lib.tensor([1.0, 2.0], requires_grad=True)
        with fw.dual_level():
            d = fw.make_dual(p, lib.ones(2))
            d.register_hook(calls.append)
            y = (d * d).sin()
            assert calls == []
            y.sum().backward()
            assert len(calls) == 1


def test_non_differentiable_results():
    check(lambda L, x: (x > 0, x.argmax(), x.floor(), x.detach(), x.sign()), (3, 4))


def test_clone_and_dtype_conversion():
    check(lambda L, x: (x.clone(), x.float(), x.to(L.float64)), (3,))


def test_tangent_dtype_promotes():
    for lib, fw in ((rg, rfw), (torch, tfw)):
        with fw.dual_level():
            d = fw.make_dual(lib.ones(3), lib.ones(3, dtype=lib.float64))
            assert fw.unpack_dual(d).tangent.dtype == lib.float64
            assert fw.unpack_dual(d.sin()).tangent.dtype == lib.float64
            d = fw.make_dual(lib.ones(3, dtype=lib.float64), lib.ones(3))
            assert fw.unpack_dual(d.exp()).tangent.dtype == lib.float64
            assert fw.unpack_dual(d.float()).tangent.dtype == lib.float32


def test_no_grad_still_propagates_tangents():
    check(lambda L, x: _under_no_grad(L, lambda: x.exp() * 3), (3,))


def _under_no_grad(L, f):
    with L.no_grad():
        return f()


# ---------------------------------------------------------------- make_dual / unpack_dual
def test_make_dual_is_view_with_history():
    for lib, fw in ((rg, rfw), (torch, tfw)):
        x = lib.tensor([1.0, 2.0])
        p = lib.tensor([1.0, 2.0], requires_grad=True)
        t = lib.ones(2)
        with fw.dual_level() as lvl:
            assert lvl == 0
            d = fw.make_dual(x, t)
            assert d is not x and d._base is x and not d.requires_grad
            dp = fw.make_dual(p, t)
            assert type(dp.grad_fn).__name__ == "ViewBackward0" and not dp.is_leaf
            u = fw.unpack_dual(d)
            assert isinstance(u, fw.UnpackedDualTensor) and u._fields == ("primal", "tangent")
            assert u.tangent is t
            assert fw.unpack_dual(u.primal).tangent is None  # the primal is plain
            assert fw.unpack_dual(x).tangent is None
        u = fw.unpack_dual(d)
        assert u.primal is d and u.tangent is None  # outside a level: no tangent


def test_dual_level_as_decorator():
    @rfw.dual_level()
    def f():
        return rfw.unpack_dual(rfw.make_dual(rg.tensor(2.0), rg.tensor(1.0)) ** 3).tangent

    assert f().item() == 12.0
    with pytest.raises(RuntimeError):
        rfw.exit_dual_level()  # closed again


def test_tangents_gone_after_exit_and_reentry():
    with rfw.dual_level():
        d = rfw.make_dual(rg.ones(2), rg.ones(2))
    with rfw.dual_level():
        assert rfw.unpack_dual(d).tangent is None
        assert rfw.unpack_dual(d * 2).tangent is None


def _errors(fn_pair):
    """Run fn(lib, fw) for both libraries; return [(type, message)] for each."""
    out = []
    for lib, fw in ((rg, rfw), (torch, tfw)):
        try:
            fn_pair(lib, fw)
        except Exception as e:  # noqa: BLE001 (the exception itself is under test)
            out.append((type(e).__name__, str(e)))
        else:
            out.append(None)
    return out


def _in_level(f):
    def run(lib, fw):
        with fw.dual_level():
            f(lib, fw)
    return run


ERRORS = {
    "outside_level": lambda L, fw: fw.make_dual(L.ones(3), L.ones(3)),
    "size": _in_level(lambda L, fw: fw.make_dual(L.ones(3), L.ones(4))),
    "size_2d": _in_level(lambda L, fw: fw.make_dual(L.ones(2, 3), L.ones(3, 2))),
    "int_primal": _in_level(lambda L, fw: fw.make_dual(L.arange(3), L.ones(3))),
    "int_tangent": _in_level(lambda L, fw: fw.make_dual(L.ones(3), L.arange(3))),
    "non_tensor_primal": _in_level(lambda L, fw: fw.make_dual(5, L.ones(3))),
    "already_dual": _in_level(lambda L, fw: fw.make_dual(fw.make_dual(L.ones(3), L.ones(3)), L.ones(3))),
    "bad_level": _in_level(lambda L, fw: fw.make_dual(L.ones(3), L.ones(3), level=5)),
    "unpack_bad_level": _in_level(lambda L, fw: fw.unpack_dual(fw.make_dual(L.ones(3), L.ones(3)), level=2)),
    "unpack_non_tensor": _in_level(lambda L, fw: fw.unpack_dual(3)),
    "nested": _in_level(lambda L, fw: fw.dual_level().__enter__()),
    "exit_none_open": lambda L, fw: fw.exit_dual_level(),
    "exit_level_0_none_open": lambda L, fw: fw.exit_dual_level(level=0),
    "exit_wrong_level": _in_level(lambda L, fw: fw.exit_dual_level(level=1)),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_match_torch(name):
    got, want = _errors(ERRORS[name])
    assert want is not None
    assert got == want


# ---------------------------------------------------------------- in-place and views
def test_inplace_updates_tangent_in_place():
    res = []
    for lib, fw in ((rg, rfw), (torch, tfw)):
        with fw.dual_level():
            t = lib.tensor([1.0, 2.0, 3.0])
            d = fw.make_dual(lib.tensor([1.0, -2.0, 0.5]), t)
            v = d[1:]
            d.mul_(fw.make_dual(lib.tensor([2.0, 0.5, -1.0]), lib.tensor([1.0, 1.0, 2.0])))
            # (the new tangent is written into t itself, and seen by the view)
            assert fw.unpack_dual(d).tangent is t
            e = lib.zeros(3)
            e.add_(d.exp())
            c = lib.zeros(3)
            c.copy_(d)
            d.sin_()
            res.append([fw.unpack_dual(z).tangent.numpy().copy() for z in (d, v, e, c)] + [t.numpy().copy()])
    for g, w in zip(*res):
        np.testing.assert_allclose(g, w, rtol=1e-6)


def test_inplace_through_view_updates_base_tangent():
    res = []
    for lib, fw in ((rg, rfw), (torch, tfw)):
        with fw.dual_level():
            d = fw.make_dual(lib.tensor([1.0, 2.0, 3.0, 4.0]), lib.tensor([1.0, 1.0, 1.0, 1.0]))
            w = d.view(2, 2)[0]
            w.mul_(3)  # base tangent's first two entries scale too
            z = lib.zeros(4)
            z[1:].add_(d[:3])  # a plain base gets a (zero elsewhere) tangent
            res.append([fw.unpack_dual(q).tangent.numpy().copy() for q in (d, w, z)])
    for g, w in zip(*res):
        np.testing.assert_allclose(g, w)


def test_view_tangent_follows_base_inplace():
    res = []
    for lib, fw in ((rg, rfw), (torch, tfw)):
        with fw.dual_level():
            d = fw.make_dual(lib.tensor([[1.0, 2.0], [3.0, 4.0]]), lib.ones(2, 2))
            vs = [d.t(), d[1], d.reshape(4), d.unsqueeze(0)]
            d.mul_(2.0)
            res.append([fw.unpack_dual(v).tangent.numpy().copy() for v in vs])
    for g, w in zip(*res):
        np.testing.assert_allclose(g, w)


# ---------------------------------------------------------------- custom Functions
def _make_fns(lib):
    class MulK(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, y, k):
            ctx.seen_tangent = lib.autograd.forward_ad.unpack_dual(x).tangent
            ctx.save_for_forward(x, y)
            ctx.k = k
            return x * y * k, x + 1

        @staticmethod
        def jvp(ctx, tx, ty, tk):
            assert tk is None
            x, y = ctx.saved_tensors
            ctx.jvp_args = (tx, ty)
            return (tx * y + x * ty) * ctx.k, tx

        @staticmethod
        def backward(ctx, g1, g2):
            return None, None, None

    class Exp(lib.autograd.Function):
        @staticmethod
        def forward(x):
            return x.exp()

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_forward(output)

        @staticmethod
        def jvp(ctx, t):
            o, = ctx.saved_tensors
            return o * t

    class NoJvp(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    return MulK, Exp, NoJvp


def test_custom_function_jvp():
    res = []
    for lib, fw in ((rg, rfw), (torch, tfw)):
        MulK, Exp, NoJvp = _make_fns(lib)
        x, y = lib.tensor([1.0, 2.0]), lib.tensor([3.0, 4.0])
        out = []
        with fw.dual_level():
            d = fw.make_dual(x, lib.ones(2))
            dy = fw.make_dual(y, lib.full((2,), 2.0))
            for a, b in ((d, y), (d, dy), (x, dy)):
                o1, o2 = MulK.apply(a, b, 3.0)
                out += [fw.unpack_dual(o1).tangent, fw.unpack_dual(o2).tangent]
            out.append(fw.unpack_dual(Exp.apply(d)).tangent)
            xg = lib.tensor([1.0, 2.0], requires_grad=True)
            o, _ = MulK.apply(fw.make_dual(xg, lib.ones(2)), y, 2.0)  # recorded node and tangent both
            out.append(fw.unpack_dual(o).tangent)
            assert type(o.grad_fn).__name__ == "MulKBackward"
            assert NoJvp.apply(x).requires_grad is False  # no dual input: no jvp needed
        res.append([t.detach().numpy().copy() for t in out])
    for g, w in zip(*res):
        np.testing.assert_allclose(g, w)


def test_custom_function_forward_sees_plain_inputs_and_jvp_gets_zeros():
    MulK, _, _ = _make_fns(rg)
    with rfw.dual_level():
        ctx_holder = {}
        orig = MulK.jvp

        def spy(ctx, *ts):
            ctx_holder["ctx"] = ctx
            return orig(ctx, *ts)

        MulK.jvp = staticmethod(spy)
        try:
            MulK.apply(rfw.make_dual(rg.tensor([1.0]), rg.tensor([5.0])), rg.tensor([2.0]), 1.0)
        finally:
            MulK.jvp = staticmethod(orig)
        ctx = ctx_holder["ctx"]
        assert ctx.seen_tangent is None
        assert ctx.jvp_args[0].tolist() == [5.0] and ctx.jvp_args[1].tolist() == [0.0]


def _bad_fns(lib):
    class NoJvp(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g

    class TooMany(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def jvp(ctx, t):
            return t, t

    class WrongSize(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def jvp(ctx, t):
            return t[:1]

    class NotTensor(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def jvp(ctx, t):
            return 3

    class SaveInt(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_forward(3)
            return x * 2

        @staticmethod
        def jvp(ctx, t):
            return t

    class AsIs(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def jvp(ctx, t):
            return t

    return {"no_jvp": NoJvp, "too_many": TooMany, "wrong_size": WrongSize, "not_tensor": NotTensor, "save_int": SaveInt,
                "as_is": AsIs}


@pytest.mark.parametrize("name", ["no_jvp", "too_many", "wrong_size", "not_tensor", "save_int", "as_is"])
def test_custom_function_errors(name):
    def run(lib, fw):
        fn = _bad_fns(lib)[name]
        with fw.dual_level():
            fn.apply(fw.make_dual(lib.ones(2), lib.ones(2)))

    got, want = _errors(run)
    assert want is not None
    assert got == want


# ---------------------------------------------------------------- agreement with reverse mode
def _model(L, x, w):
    h = L.tanh(x @ w)
    return (h * h).sum(1) + L.nn.functional.softmax(h, dim=1)[:, 0]


def test_agrees_with_functional_jvp_and_jacobian():
    x = rg.tensor(RNG.standard_normal((3, 4)))
    w = rg.tensor(RNG.standard_normal((4, 5)))
    tx = rg.tensor(RNG.standard_normal((3, 4)))
    tw = rg.tensor(RNG.standard_normal((4, 5)))
    with rfw.dual_level():
        fwd = rfw.unpack_dual(_model(rg, rfw.make_dual(x, tx), rfw.make_dual(w, tw))).tangent
    _, ref = rg.autograd.functional.jvp(lambda a, b: _model(rg, a, b), (x, w), (tx, tw))
    np.testing.assert_allclose(fwd.numpy(), ref.numpy(), **TOL)
    jx, jw = rg.autograd.functional.jacobian(lambda a, b: _model(rg, a, b), (x, w))
    by_jac = jx.numpy().reshape(3, -1) @ tx.numpy().ravel() + jw.numpy().reshape(3, -1) @ tw.numpy().ravel()
    np.testing.assert_allclose(fwd.numpy(), by_jac, **TOL)


def test_reverse_mode_unchanged_inside_level():
    res = []
    for lib, fw in ((rg, rfw), (torch, tfw)):
        x = lib.tensor(RNG.standard_normal(0) if False else [[0.1, -0.2], [0.3, 0.4]], requires_grad=True,
                       dtype=lib.float64)
        w = lib.tensor([[1.0, 2.0], [-1.0, 0.5]], requires_grad=True, dtype=lib.float64)
        with fw.dual_level():
            d = fw.make_dual(x, lib.ones(2, 2, dtype=lib.float64))
            y = _model(lib, d, w).sum()
            assert type(y.grad_fn).__name__ == "SumBackward0"
            y.backward()
            res.append((y.item(), x.grad.numpy().copy(), w.grad.numpy().copy()))
    assert res[0][0] == pytest.approx(res[1][0], rel=1e-12)
    np.testing.assert_allclose(res[0][1], res[1][1], **TOL)
    np.testing.assert_allclose(res[0][2], res[1][2], **TOL)


def test_reverse_over_forward():
    res = []
    for lib, fw in ((rg, rfw), (torch, tfw)):
        p = lib.tensor([1.0, 2.0, 3.0], requires_grad=True, dtype=lib.float64)
        w = lib.tensor([0.5, 1.0, 2.0], requires_grad=True, dtype=lib.float64)
        t = lib.tensor([1.0, -1.0, 0.5], requires_grad=True, dtype=lib.float64)
        with fw.dual_level():
            jt = fw.unpack_dual((fw.make_dual(p, t) * w).sin().sum()).tangent
            assert jt.requires_grad
            grads = lib.autograd.grad(jt, (p, w, t))
        res.append([jt.item()] + [g.numpy().copy() for g in grads])
    for g, w in zip(*res):
        np.testing.assert_allclose(g, w, **TOL)


def test_profiler_inside_level_keeps_tangents_flowing():
    with rfw.dual_level():
        d = rfw.make_dual(rg.tensor([1.0, 2.0]), rg.ones(2))
        with rg.autograd.profiler.profile() as prof:
            y = d * d
        assert any(e.key == "aten::mul" for e in prof.key_averages())
        assert rfw.unpack_dual(y).tangent.tolist() == [2.0, 4.0]
        assert rfw.unpack_dual(d * 3).tangent.tolist() == [3.0, 3.0]
    from retrograd._ops import _registry

    assert _registry._SLOW is False  # the hot paths are back to one false test


def test_forward_over_reverse_hvp_with_create_graph():
    res = []
    for lib, fw in ((rg, rfw), (torch, tfw)):
        x = lib.tensor([0.5, -1.0, 2.0], dtype=lib.float64, requires_grad=True)
        v = lib.tensor([1.0, 0.5, -1.0], dtype=lib.float64)
        with fw.dual_level():
            d = fw.make_dual(x, v)
            g, = lib.autograd.grad((d.sin() * d * d).sum() + d[0] * d[1] * d[2], d, create_graph=True)
            res.append(fw.unpack_dual(g).tangent.detach().numpy().copy())  # = H v
    np.testing.assert_allclose(res[0], res[1], **TOL)


def test_inplace_on_recorded_tensor_keeps_reverse_mode():
    res = []
    for lib, fw in ((rg, rfw), (torch, tfw)):
        h = lib.tensor([0.5, -1.0, 2.0], dtype=lib.float64, requires_grad=True)
        with fw.dual_level():
            hh = (h * 1).clone()
            hh.mul_(fw.make_dual(lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64),
                                 lib.tensor([1.0, 0.5, -1.0], dtype=lib.float64)))
            assert type(hh.grad_fn).__name__ == "MulBackward0"
            tangent = fw.unpack_dual(hh).tangent.detach().numpy().copy()
            hh.sum().backward()
        res.append((tangent, h.grad.numpy().copy()))
    for g, w in zip(*res):
        np.testing.assert_allclose(g, w, **TOL)


def test_dual_tensor_printing_and_setitem_tangent_as_torch():
    def run(T):
        fw = T.autograd.forward_ad
        out = []
        with fw.dual_level():
            out.append(repr(fw.make_dual(T.tensor(2.), T.tensor(1.))))  # 0-d tangent prints as a number
            out.append(repr(fw.make_dual(T.tensor([2., 3.], requires_grad=True), T.tensor([1., 5.]))))
            out.append(repr(fw.make_dual(T.ones(2, 2, dtype=T.float64), T.ones(2, 2, dtype=T.float64))))
            y = T.zeros(3)
            y[1] = fw.make_dual(T.tensor(1.), T.tensor(2.))  # no grad recording: the tangent still flows
            out.append(repr(fw.unpack_dual(y).tangent))
        return [o for o in out]

    assert run(rg) == run(torch)
