"""autograd.Function: both styles, ctx API, errors, double backward.  Each scenario runs on
retrograd and on torch (same code) and must log the same events, values and messages."""
import re
import warnings

import pytest

import parity
import retrograd as rg
from parity import vec

torch = pytest.importorskip("torch")


def same(scenario):
    """``parity.same`` that also drops memory addresses (``0x...``) from messages."""
    return parity.same(scenario, addresses=True)


def fn(lib, forward, backward, name="Fn", setup_context=None):
    """A Function subclass named ``name`` built for ``lib``."""
    attrs = {"forward": staticmethod(forward), "backward": staticmethod(backward)}
    if setup_context is not None:
        attrs["setup_context"] = staticmethod(setup_context)
    return type(name, (lib.autograd.Function,), attrs)


def test_forward_ctx_save_needs_input_grad_names():
    def sc(lib, log):
        def forward(ctx, x, k, y):
            log("fw grad", lib.is_grad_enabled(), ctx.needs_input_grad)
            ctx.save_for_backward(x, y)
            ctx.k = k
            return x * k + y, k

        def backward(ctx, g, gk):
            log("bw", g, gk, lib.is_grad_enabled(), ctx.needs_input_grad)
            x, y = ctx.saved_tensors
            return g * ctx.k, None, g

        F = fn(lib, forward, backward, "MyFn")
        x, y = vec(lib, 1.0, 2.0), lib.tensor([3.0, 4.0], dtype=lib.float64)
        out, k = F.apply(x, 3, y)
        gf = out.grad_fn
        log(type(gf).__name__, gf.name(), [type(n).__name__ for n, _ in gf.next_functions], k, out)
        log(gf._forward_cls is F, out.is_leaf, out.requires_grad)
        out.sum().backward()
        log(x.grad)
        gf.saved_tensors
    log = same(sc)
    assert log[1][1][:2] == ["MyFnBackward", "MyFnBackward"]
    assert log[-1][:2] == ("raised", "RuntimeError")


def test_no_grad_apply_records_nothing():
    def sc(lib, log):
        F = fn(lib, lambda ctx, x: log("fw", ctx.needs_input_grad) or x * 2, lambda ctx, g: g * 2)
        x = vec(lib, 1.0)
        with lib.no_grad():
            y = F.apply(x)
        log(y.requires_grad, y.grad_fn)
        log(F.apply(lib.tensor([1.0])).requires_grad)

    same(sc)


@pytest.mark.parametrize("case", ["too_few", "non_tensor_grad", "extra_none", "too_many", "bad_shape", "save_int"])
def test_backward_result_errors(case):
    def sc(lib, log):
        x = vec(lib, 1.0, 2.0)
        if case == "too_few":
            F = fn(lib, lambda ctx, a, b: a * b, lambda ctx, g: g, "Wrong")
            F.apply(x, x).sum().backward()
        elif case == "non_tensor_grad":
            F = fn(lib, lambda ctx, a, k: a * k, lambda ctx, g: (g, g), "Wrong2")
            F.apply(x, 2).sum().backward()
        elif case == "extra_none":
            F = fn(lib, lambda ctx, a: a * 2, lambda ctx, g: (g, None, None), "Wrong3")
            F.apply(x).sum().backward()
            log(x.grad)
        elif case == "too_many":
            F = fn(lib, lambda ctx, a: a * 2, lambda ctx, g: (g, g), "Wrong4")
            F.apply(x).sum().backward()
        elif case == "bad_shape":
            F = fn(lib, lambda ctx, a: a * 2, lambda ctx, g: g[:1], "Wrong5")
            F.apply(x).sum().backward()
        else:
            def forward(ctx, a):
                ctx.save_for_backward(a, 3)
                return a * 2
            fn(lib, forward, lambda ctx, g: g, "Wrong6").apply(x)

    same(sc)


def test_input_returned_as_is_becomes_view_and_inplace_is_refused():
    def sc(lib, log):
        x = vec(lib, 1.0, 2.0)
        o = fn(lib, lambda ctx, a: a, lambda ctx, g: g * 2, "Id").apply(x)
        log(o is x, o._is_view(), o._base is x, type(o.grad_fn).__name__)
        o.sum().backward()
        log(x.grad)
        o2 = fn(lib, lambda ctx, a: a[1:], lambda ctx, g: None, "ViewOut").apply(x)
        log(o2._is_view(), o2._base is x)
        try:
            o2.mul_(2)
        except RuntimeError as e:
            log(str(e))
        o.mul_(2)

    same(sc)


def test_mark_dirty():
    def sc(lib, log):
        def forward(ctx, a):
            a.mul_(2)
            ctx.mark_dirty(a)
            return a

        D = fn(lib, forward, lambda ctx, g: g * 2, "Dirty")
        x = vec(lib, 1.0, 2.0)
        a = x.clone()
        o = D.apply(a)
        log(o is a, type(a.grad_fn).__name__, a._version, [type(n).__name__ for n, _ in a.grad_fn.next_functions])
        a.sum().backward()
        log(x.grad)
        # dirty view: the base's history is rewritten (CopySlices)
        b = x.clone()
        vb = b[1:]
        D.apply(vb)
        log(type(b.grad_fn).__name__, type(vb.grad_fn).__name__, b)
        x.grad = None
        (b * b).sum().backward()
        log(x.grad)
        D.apply(x)

    log = same(sc)
    assert log[-1] == ("raised", "RuntimeError", "a leaf Variable that requires grad has been used in an in-place "
                                                 "operation.")


def test_mark_non_differentiable_and_integer_outputs():
    def sc(lib, log):
        def forward(ctx, a):
            i = a.long()
            s = a * 1
            ctx.mark_non_differentiable(i, s)
            return s, i

        s, i = fn(lib, forward, lambda ctx, g, gi: g).apply(vec(lib, 1.0, 2.0))
        log(s.requires_grad, i.requires_grad, s.grad_fn)

        def backward(ctx, g1, g2):
            log("IntOut", g1, g2)
            return g2
        a, b = fn(lib, lambda ctx, x: (x.long(), x * 1), backward, "IntOut").apply(vec(lib, 1.0, 2.0))
        log(a.requires_grad, b.requires_grad)
        b.sum().backward()

    same(sc)


def test_materialize_grads():
    def sc(lib, log):
        x = vec(lib, 1.0, 2.0)

        def fw_nomat(ctx, a):
            ctx.set_materialize_grads(False)
            return a * 2, a * 3

        def bw(ctx, g1, g2):
            log("bw", g1, g2)
            return g1 if g2 is None else g1 + g2

        a, _ = fn(lib, fw_nomat, bw, "NoMat").apply(x)
        a.sum().backward()
        a, _ = fn(lib, lambda ctx, t: (t * 2, t * 3), bw, "Mat").apply(x)
        a.sum().backward()
        log(x.grad)

    same(sc)


def test_setup_context_style_and_kwargs():
    def sc(lib, log):
        def setup_context(ctx, inputs, output):
            log("setup", type(inputs).__name__, len(inputs), output.requires_grad)
            ctx.k = inputs[1]
            ctx.save_for_backward(inputs[0])

        S = fn(lib, lambda x, k: x * k, lambda ctx, g: (g * ctx.k, None), "SC", setup_context)
        x = vec(lib, 1.0, 2.0)
        S.apply(x, 4).sum().backward()
        log(x.grad)

        def forward(ctx, a, k=2):
            return a * k
        K = fn(lib, forward, lambda ctx, g: (g, None), "Kw")
        log(K.apply(x, k=3), K.apply(x))

    same(sc)


def test_saved_tensor_version_checks():
    def sc(lib, log):
        x = vec(lib, 1.0, 2.0)

        def fw(ctx, a):
            ctx.save_for_backward(a)
            return a * 2

        def bw(ctx, g):
            (a,) = ctx.saved_tensors
            return g

        a = x.clone()
        o = fn(lib, fw, bw, "Mod").apply(a)
        a.add_(1)
        try:
            o.sum().backward()
        except RuntimeError as e:
            log(str(e))

        def fw_out(ctx, a):
            o = a.exp()
            ctx.save_for_backward(o)
            return o

        def bw_out(ctx, g):
            (o,) = ctx.saved_tensors
            log("saved out", type(o.grad_fn).__name__, o.requires_grad)
            return g * o

        o = fn(lib, fw_out, bw_out, "SaveOut").apply(x)
        o.sum().backward(retain_graph=True)
        o.mul_(2)
        o.sum().backward()

    same(sc)


def test_once_differentiable():
    def sc(lib, log):
        once = (rg.autograd.function.once_differentiable if lib is rg
                else torch.autograd.function.once_differentiable)

        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a ** 3

        @once
        def backward(ctx, g):
            log("grad mode in backward", lib.is_grad_enabled())
            (a,) = ctx.saved_tensors
            return g * 3 * a * a

        C = fn(lib, forward, backward, "C")
        x = vec(lib, 1.0, 2.0)
        (g,) = lib.autograd.grad(C.apply(x), x, lib.ones(2, dtype=lib.float64, requires_grad=True),
                                 create_graph=True)
        log(g, g.grad_fn.name())
        g.sum().backward()

    same(sc)


def test_double_backward_through_custom_function():
    def sc(lib, log):
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a ** 3

        def backward(ctx, g):
            (a,) = ctx.saved_tensors
            return g * 3 * a * a

        Cube = fn(lib, forward, backward, "Cube")
        x = lib.tensor([1.5, -2.0], dtype=lib.float64, requires_grad=True)
        (g,) = lib.autograd.grad(Cube.apply(x).sum(), x, create_graph=True)
        log(g, type(g.grad_fn).__name__)
        log(lib.autograd.grad(g.sum(), x))
        log(lib.autograd.gradcheck(Cube.apply, (x,)), lib.autograd.gradgradcheck(Cube.apply, (x,)))

    same(sc)


def test_non_tensor_and_list_outputs_pass_through():
    def sc(lib, log):
        x = vec(lib, 1.0)
        log(fn(lib, lambda ctx, a: 5, lambda ctx, g: g).apply(x))
        o = fn(lib, lambda ctx, a: [a * 2, a * 3], lambda ctx, a, b: a + b).apply(x)
        log(type(o).__name__, o[0].grad_fn)
        fn(lib, lambda ctx, a: a * 2, lambda ctx, g: None, "RetNone").apply(x).sum().backward()
        log(x.grad)

    same(sc)


def test_node_hooks_on_custom_function():
    def sc(lib, log):
        x = vec(lib, 1.0, 2.0)
        o = fn(lib, lambda ctx, a: a * 2, lambda ctx, g: g * 2, "Hook").apply(x)
        o.grad_fn.register_hook(lambda gi, go: log("fn hook", gi, go))
        o.grad_fn.register_prehook(lambda go: log("fn prehook", go))
        o.sum().backward()

    same(sc)


def test_legacy_and_missing_methods():
    def sc(lib, log):
        F = fn(lib, lambda ctx, a: a, lambda ctx, g: g)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            try:
                F()(vec(lib, 1.0))
            except RuntimeError as e:
                log(str(e))
        log([(c.category.__name__, re.sub(r"<class '.*'>", "", str(c.message))) for c in w])
        try:
            lib.autograd.Function.forward(None)
        except NotImplementedError as e:
            log(str(e))
        NoBw = type("NoBw", (lib.autograd.Function,), {"forward": staticmethod(lambda ctx, a: a * 2)})
        NoBw.apply(vec(lib, 1.0)).sum().backward()

    same(sc)
