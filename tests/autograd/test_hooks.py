"""Tensor hooks, retain_grad, post-accumulate hooks, node hooks, multi-grad hooks and
saved-tensor hooks: each scenario runs on retrograd and on torch and must log the same."""
import pytest

import retrograd as rg

torch = pytest.importorskip("torch")

from parity import same, vec  # noqa: E402


def test_register_hook_replaces_grad_and_remove():
    def sc(lib, log):
        x = vec(lib, 1.0, 2.0)
        y = x * 2
        h = y.register_hook(lambda g: g * 10)
        (y * y).sum().backward(retain_graph=True)
        log(x.grad)
        h.remove()
        x.grad = None
        (y * y).sum().backward()
        log(x.grad)

    assert same(sc)[0] == ("tuple", [("T", [80.0, 160.0], False)])


def test_hook_returning_none_observes_only():
    def sc(lib, log):
        x = vec(lib, 1.0, 2.0)
        y = x.exp()
        y.register_hook(lambda g: log("seen", g))
        y.sum().backward()
        log(x.grad)

    same(sc)


def test_leaf_hook_runs_before_accumulation_and_in_grad():
    def sc(lib, log):
        x = vec(lib, 1.0, 2.0)
        x.register_hook(lambda g: g * 2)
        (x * x).sum().backward()
        log(x.grad)
        log(lib.autograd.grad((x * x).sum(), x))

    same(sc)


def test_hooks_order_and_retain_grad_runs_last():
    def sc(lib, log):
        x = vec(lib, 1.0, 2.0)
        y = x * 1
        y.retain_grad()  # registered first, still sees the hooked grad (PyTorch 2.x)
        y.register_hook(lambda g: log("h1", g) or g * 2)
        y.register_hook(lambda g: log("h2", g) or g + 1)
        (y * y).sum().backward()
        log(y.grad, x.grad)

    same(sc)


def test_retain_grad_follows_inplace_and_old_hooks_stay():
    def sc(lib, log):
        x = vec(lib, 1.0, 2.0)
        y = x * 1
        y.register_hook(lambda g: log("old hook", g))
        y.retain_grad()
        y.mul_(3)
        (y * y).sum().backward()
        log(y.grad, x.grad)

    same(sc)


def test_retain_grad_on_view_after_base_inplace():
    def sc(lib, log):
        x = vec(lib, 1.0, 2.0, 3.0)
        y = x * 1
        v = y[1:]
        v.retain_grad()
        y.mul_(2)
        (v * v).sum().backward()
        log(v.grad, x.grad, type(v.grad_fn).__name__)

    same(sc)


def test_retain_grad_errors_and_flags():
    def sc(lib, log):
        x = vec(lib, 1.0)
        log(x.retains_grad)
        y = x * 2
        y.retain_grad()
        y.retain_grad()
        log(y.retains_grad, x.retains_grad)
        lib.tensor([1.0]).retain_grad()

    same(sc)


def test_hook_errors():
    def sc(lib, log):
        x = vec(lib, 1.0)
        try:
            lib.tensor([1.0]).register_hook(lambda g: g)
        except RuntimeError as e:
            log(str(e))
        try:
            (x * 2).register_post_accumulate_grad_hook(lambda t: None)
        except RuntimeError as e:
            log(str(e))
        lib.tensor([1.0]).register_post_accumulate_grad_hook(lambda t: None)

    log = same(sc)
    assert log[-1][1] == "RuntimeError"


def test_post_accumulate_grad_hook():
    def sc(lib, log):
        x = vec(lib, 1.0, 2.0)
        x.register_hook(lambda g: g * 2)
        h = x.register_post_accumulate_grad_hook(lambda t: log("post", t.grad))
        (x * x).sum().backward()
        (x * 3).sum().backward()
        h.remove()
        (x * 3).sum().backward()
        log(x.grad)

    same(sc)


def test_node_pre_and_post_hooks():
    def sc(lib, log):
        x = vec(lib, 1.0, 2.0)
        y = x * 3
        y.grad_fn.register_prehook(lambda go: log("pre", go) or (go[0] * 2,))
        y.grad_fn.register_hook(lambda gi, go: log("post", gi, go) or (gi[0] + 1, gi[1]))
        y.register_hook(lambda g: log("tensor", g) or g * 5)
        y.sum().backward()
        log(x.grad)

    same(sc)


def test_accumulate_grad_node_hooks():
    def sc(lib, log):
        x = vec(lib, 1.0, 2.0)
        y = x * 3
        acc = y.grad_fn.next_functions[0][0]
        log(type(acc).__name__, acc.name())
        acc.register_prehook(lambda go: log("acc pre", go))
        acc.register_hook(lambda gi, go: log("acc post", gi, go))
        y.sum().backward()
        log(x.grad)

    same(sc)


def test_hooks_with_autograd_grad_capture():
    def sc(lib, log):
        x = vec(lib, 1.0, 2.0)
        y = x * 2
        y.register_hook(lambda g: g * 10)
        z = (y * y).sum()
        log(lib.autograd.grad(z, [y, x], retain_graph=True))  # y's node runs on: captured pre-hook
        log(lib.autograd.grad(z, [y]))  # y's node does not run: captured post-hook

    same(sc)


def test_backward_inputs_non_leaf_retains_grad():
    def sc(lib, log):
        x = vec(lib, 1.0, 2.0)
        w = vec(lib, 3.0, 4.0)
        y = x * 2
        z = (y * y * w).sum()
        z.backward(inputs=[y, w])
        log(y.retains_grad, y.grad, w.grad, x.grad)

    same(sc)


def test_multi_grad_hook_all_and_any():
    def sc(lib, log):
        a, b, c = vec(lib, 1.0), vec(lib, 2.0), vec(lib, 3.0)
        h = lib.autograd.graph.register_multi_grad_hook((a, b, c), lambda gs: log("all", gs))
        (a * b).sum().backward()
        (a * b * c).sum().backward()
        (a * b * c).sum().backward(inputs=[a])
        h.remove()
        (a * b).sum().backward()
        lib.autograd.graph.register_multi_grad_hook((a, b), lambda g: log("any", g), mode="any")
        (a * b * c).sum().backward()
        (a * 2).sum().backward()
        lib.autograd.graph.register_multi_grad_hook((a,), lambda g: None, mode="some")

    log = same(sc)
    assert log[-1] == ("raised", "ValueError", "Expects mode to be one of ('all', 'any') but got some")


def test_saved_tensors_hooks_pack_unpack_and_double_backward():
    def sc(lib, log):
        x = vec(lib, 1.0, 2.0)
        # (which tensors an op saves is an implementation detail: x * x and exp save the same in both)
        with lib.autograd.graph.saved_tensors_hooks(lambda t: log("pack", t) or t.detach(),
                                                    lambda t: log("unpack") or t):
            y = x * x
            z = y.exp()
        (g,) = lib.autograd.grad(z.sum(), x, create_graph=True)
        log(g)
        g.sum().backward()
        log(x.grad)

    same(sc)


def test_saved_tensors_hooks_errors_and_nesting():
    def sc(lib, log):
        x = vec(lib, 1.0, 2.0)
        a = x.clone()

        def bad_pack(t):
            t.add_(1)
            return t

        with lib.autograd.graph.saved_tensors_hooks(bad_pack, lambda t: t):
            try:
                a * a
            except RuntimeError as e:
                log(str(e))
        with lib.autograd.graph.saved_tensors_hooks(lambda t: 3, lambda t: 3):
            y = x * x
        try:
            y.sum().backward()
        except TypeError as e:
            log(str(e))
        with lib.autograd.graph.saved_tensors_hooks(lambda t: log("outer") or t, lambda t: t):
            with lib.autograd.graph.saved_tensors_hooks(lambda t: log("inner") or t, lambda t: t):
                x * x
            x * x
        with lib.autograd.graph.disable_saved_tensors_hooks("no hooks here"):
            try:
                lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t).__enter__()
            except RuntimeError as e:
                log(str(e))

    same(sc)


def test_save_on_cpu_and_version_check_skipped_with_hooks():
    def sc(lib, log):
        x = vec(lib, 1.0, 2.0)
        with lib.autograd.graph.save_on_cpu():
            y = x.exp()
        y.sum().backward()
        log(x.grad)

    same(sc)


def test_gradient_edge():
    x = rg.tensor([1.0], requires_grad=True)
    y = x * 2
    edge = rg.autograd.graph.get_gradient_edge(y)
    assert edge.node is y.grad_fn and edge.output_nr == 0
    assert type(rg.autograd.graph.get_gradient_edge(x).node).__name__ == "AccumulateGrad"


def test_hook_return_values_are_checked_like_torch():
    torch = pytest.importorskip("torch")

    def run(T):
        out = []

        def case(f):
            try:
                f()
                out.append("ok")
            except (TypeError, RuntimeError) as e:
                out.append((type(e).__name__, str(e).split("\n")[0]))

        def on_output(hook):
            x = T.ones(2, requires_grad=True)
            y = x * 2
            y.register_hook(hook)
            y.sum().backward()

        def on_leaf(hook):
            x = T.ones(2, requires_grad=True)
            x.register_hook(hook)
            (x * 2).sum().backward()

        def node_pre(hook):
            y = T.ones(2, requires_grad=True) * 2
            y.grad_fn.register_prehook(hook)
            y.sum().backward()

        def node_post(hook):
            y = T.ones(2, requires_grad=True) * 2
            y.grad_fn.register_hook(hook)
            y.sum().backward()

        for f, h in [(on_output, lambda g: 3), (on_output, lambda g: g.double()), (on_output, lambda g: g[:1]),
                     (on_output, lambda g: g * 2), (on_leaf, lambda g: g.double()), (on_leaf, lambda g: "a"),
                     (node_pre, lambda go: go[0]), (node_pre, lambda go: (go[0], go[0])),
                     (node_pre, lambda go: (go[0] * 3,)), (node_post, lambda gi, go: gi[0]),
                     (node_post, lambda gi, go: (gi[0],) * 3)]:
            case(lambda: f(h))
        return out

    assert run(rg) == run(torch)


def _outcome(f, T):
    try:
        return "ok", f(T)
    except Exception as exc:  # noqa: BLE001 - type and text compared with torch's
        return type(exc).__name__, str(exc)


def test_node_hook_cannot_replace_a_none_gradient():
    def run(T):
        x = T.ones(2, requires_grad=True)
        w = x * T.ones(2)
        w.grad_fn.register_hook(lambda gi, go: (gi[0], gi[0]))
        return _outcome(lambda _: w.sum().backward(), T)

    assert run(rg) == run(torch)
