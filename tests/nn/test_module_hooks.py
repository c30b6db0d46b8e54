"""Global module hooks (``nn.modules.module.register_module_*``): run on every module, before the
module's own hooks, and removable; compared with torch 2.13 by the order of the calls they record."""
from __future__ import annotations

import numpy as np
import pytest

import retrograd
import retrograd as rg

torch = pytest.importorskip("torch")


def _run(T):
    mm = __import__(T.__name__ + ".nn.modules.module", fromlist=["x"])
    log = []
    net = T.nn.Sequential(T.nn.Linear(3, 2), T.nn.Tanh())
    with T.no_grad():  # same weights in both libraries
        net[0].weight.copy_(T.tensor([[0.1, -0.2, 0.3], [0.4, 0.5, -0.6]]))
        net[0].bias.copy_(T.tensor([0.05, -0.05]))
    handles = [
        mm.register_module_forward_pre_hook(lambda m, a: log.append(("gpre", type(m).__name__))),
        mm.register_module_forward_hook(lambda m, a, o: log.append(("gfwd", type(m).__name__))),
        mm.register_module_full_backward_pre_hook(lambda m, go: log.append(("gbwpre", type(m).__name__))),
        mm.register_module_full_backward_hook(lambda m, gi, go: log.append(("gbw", type(m).__name__))),
        net[0].register_forward_pre_hook(lambda m, a: log.append(("pre", "own"))),
        net[0].register_forward_hook(lambda m, a, o: log.append(("fwd", "own"))),
        net[0].register_full_backward_hook(lambda m, gi, go: log.append(("bw", "own"))),
        # a global forward hook may replace the output, as the module's own may
        mm.register_module_forward_hook(lambda m, a, o: o * 2 if isinstance(m, T.nn.Tanh) else None),
    ]
    x = T.ones(4, 3, requires_grad=True)
    out = net(x)
    out.sum().backward()
    for h in handles:
        h.remove()
    after = len(log)
    net(x).sum().backward()  # removed: no more calls
    return log, after == len(log), out.detach().numpy(), x.grad.numpy()


def test_global_module_hooks_order_output_and_removal_like_torch():
    r_log, r_removed, r_out, r_grad = _run(retrograd)
    t_log, t_removed, t_out, t_grad = _run(torch)
    assert r_log == t_log
    assert r_removed and t_removed
    np.testing.assert_allclose(r_out, t_out, rtol=1e-6)
    np.testing.assert_allclose(r_grad, t_grad, rtol=1e-6)


def test_global_always_call_hook_runs_when_forward_raises_and_mixing_backward_kinds_fails():
    for T in (retrograd, torch):
        mm = __import__(T.__name__ + ".nn.modules.module", fromlist=["x"])
        seen = []
        h = mm.register_module_forward_hook(lambda m, a, o: seen.append(o), always_call=True)
        with pytest.raises(RuntimeError):
            T.nn.Linear(3, 2)(T.ones(1, 4))
        h.remove()
        assert seen == [None]
        h = mm.register_module_full_backward_hook(lambda m, gi, go: None)
        with pytest.raises(RuntimeError) as e:
            mm.register_module_backward_hook(lambda m, gi, go: None)
        assert "Cannot use both regular backward hooks and full backward hooks as a global Module hook" in str(e.value)
        h.remove()


def _outcome(f, T):
    try:
        return "ok", f(T)
    except Exception as exc:  # noqa: BLE001 - type and text compared with torch's
        return type(exc).__name__, str(exc)


@pytest.mark.parametrize("f", [
    lambda T: (lambda m: (m.register_backward_hook(lambda *a: None), m.register_full_backward_hook(lambda *a: None)))(
        T.nn.Linear(2, 2)) and None,
    lambda T: (lambda m: (m.register_state_dict_post_hook(lambda *a: {}), m.state_dict()))(T.nn.Linear(2, 2)) and None,
    lambda T: sorted((lambda m: (m._register_state_dict_hook(lambda *a: {"x": 1}), m.state_dict())[1])(
        T.nn.Linear(2, 2))),
])
def test_module_hook_rules_as_torch(f):
    assert _outcome(f, rg) == _outcome(f, torch)


def test_public_state_dict_post_hook_cannot_be_registered_privately_too():
    def run(T):
        m = T.nn.Linear(2, 2)

        def hook(*args):
            return None

        m.register_state_dict_post_hook(hook)
        return _outcome(lambda _: m._register_state_dict_hook(hook), T)

    assert run(rg) == run(torch)


def test_full_backward_hook_sees_zero_grads_for_tensor_inputs_without_grad():
    def run(T):
        class M(T.nn.Module):
            def forward(self, a, b, k):
                return a * b * k

        m = M()
        seen = []
        m.register_full_backward_hook(lambda mod, gi, go: seen.append(
            tuple(None if g is None else g.tolist() for g in gi)))
        a = T.tensor([1., 2.], requires_grad=True)
        b = T.tensor([3., 3.])
        m(a, b, 2.0).sum().backward()
        m(b, a, 1.0).sum().backward()
        return seen, a.grad.tolist()

    assert run(rg) == run(torch)
