"""autograd.graph helpers against torch 2.13: increment_version, allow_mutation_on_saved_tensors,
register_multi_grad_hook."""

import numpy as np
import pytest

import retrograd as rg

torch = pytest.importorskip("torch")

from .._behaviour_compare import raises_like  # noqa: E402


# ------------------------------------------------------------------ 4. autograd.graph
def test_increment_version_bumps_and_triggers_saved_tensor_check():
    for lib in (torch, rg):
        a = lib.ones(2)
        lib.autograd.graph.increment_version(a)
        lib.autograd.graph.increment_version([a, a])
        assert a._version == 3
    def run(lib):
        x = lib.ones(3, requires_grad=True)
        y = x.clone()
        z = (y * y).sum()
        lib.autograd.graph.increment_version(y)
        z.backward()
    raises_like(lambda: run(torch), lambda: run(rg))
    raises_like(lambda: torch.autograd.graph.increment_version(3), lambda: rg.autograd.graph.increment_version(3))
    raises_like(lambda: torch.autograd.graph.increment_version([torch.ones(1), 2]),
                lambda: rg.autograd.graph.increment_version([rg.ones(1), 2]))
    with rg.inference_mode():
        t = rg.ones(2)
    rg.autograd.graph.increment_version(t)  # no counter: no error, as in torch


def _mutation_grads(lib):
    rng = np.random.default_rng(1)
    a = lib.tensor(rng.standard_normal((2, 3)), requires_grad=True)
    with lib.autograd.graph.allow_mutation_on_saved_tensors():
        b = a.clone()
        c = b.exp()          # saves its output
        out = (b ** 2).sum() + (c * b).sum()
        b.sin_()             # b is saved by pow and mul
        c.mul_(3)            # c is saved by exp and mul
        ga, = lib.autograd.grad(out, a, create_graph=True)
        gga, = lib.autograd.grad(ga.sum(), a)
    return ga.detach().numpy(), gga.numpy(), b.detach().numpy(), c.detach().numpy()


def test_allow_mutation_on_saved_tensors_matches_torch():
    for x, y in zip(_mutation_grads(torch), _mutation_grads(rg)):
        np.testing.assert_allclose(y, x, rtol=1e-12, atol=1e-12)

    def outside(lib):
        with lib.autograd.graph.allow_mutation_on_saved_tensors():
            a = lib.ones(2, 3, requires_grad=True)
            b = a.clone()
            out = (b ** 2).sum()
            b.sin_()
        out.backward()
    raises_like(lambda: outside(torch), lambda: outside(rg))

    def nested(lib):
        with lib.autograd.graph.allow_mutation_on_saved_tensors():
            with lib.autograd.graph.allow_mutation_on_saved_tensors():
                pass
    raises_like(lambda: nested(torch), lambda: nested(rg))
    with rg.autograd.graph.allow_mutation_on_saved_tensors():  # usable again after the error
        pass
    # without the context the usual error
    def plain(lib):
        a = lib.ones(2, requires_grad=True)
        b = a.clone()
        out = (b ** 2).sum()
        b.sin_()
        out.backward()
    raises_like(lambda: plain(torch), lambda: plain(rg))


def test_register_multi_grad_hook_exists_and_runs():
    seen = []
    a, b = rg.ones(2, requires_grad=True), rg.ones(2, requires_grad=True)
    rg.autograd.graph.register_multi_grad_hook((a, b), lambda gs: seen.append([g is not None for g in gs]))
    (a * 2).sum().backward()
    assert seen == [[True, False]]


def test_allow_mutation_with_custom_function_save_for_backward():
    def run(lib):
        class Sq(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x

            @staticmethod
            def backward(ctx, g):
                x, = ctx.saved_tensors
                return 2 * x * g
        with lib.autograd.graph.allow_mutation_on_saved_tensors():
            a = lib.tensor([1., 2., -3.], requires_grad=True)
            b = a.clone()
            y = Sq.apply(b)
            b.mul_(10)
            y.sum().backward()
        return a.grad.numpy()
    np.testing.assert_array_equal(run(rg), run(torch))


@pytest.mark.parametrize("make, modify", [(lambda x: x.max(), lambda y: y.fill_(1)),
                                          (lambda x: x.max(0)[0], lambda y: y.add_(1)),
                                          (lambda x: x.pow(2), lambda y: y.mul_(2))])
def test_version_error_names_the_node_as_torch(make, modify):
    # the modified tensor's node, "Backward0" dropped and other numbers kept: Add, Fill2, Max1
    from parity import same_error

    def f(L):
        x = L.arange(3.0, requires_grad=True)
        y = make(x)
        z = (y * y).sum()
        modify(y)
        z.backward()
    same_error(f)
