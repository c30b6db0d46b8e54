"""In-place ops against torch 2.13: values, version counters, grad_fn rewriting,
gradients through in-place ops, and PyTorch's errors (leaf that requires grad, saved
tensor modified, dtype and shape refusals).
"""
from __future__ import annotations

import numpy as np
import pytest

import retrograd as R
import retrograd as rg

torch = pytest.importorskip("torch")

from parity import same_error, same_repr  # noqa: E402


# name -> f(T, t) applying the in-place op to t (returns its result)
INPLACE = {
    "add_": lambda T, t: t.add_(T.tensor([1., 2., 3.])),
    "add_scalar": lambda T, t: t.add_(2),
    "add_alpha": lambda T, t: t.add_(T.tensor([1., 2., 3.]), alpha=-2),
    "add_bcast": lambda T, t: t.add_(T.tensor(0.5)),
    "sub_": lambda T, t: t.sub_(T.tensor([3., 2., 1.])),
    "sub_alpha": lambda T, t: t.sub_(1.5, alpha=2),
    "mul_": lambda T, t: t.mul_(T.tensor([2., -1., 0.5])),
    "mul_scalar": lambda T, t: t.mul_(3),
    "div_": lambda T, t: t.div_(T.tensor([2., -4., 0.5])),
    "div_scalar": lambda T, t: t.div_(4),
    "zero_": lambda T, t: t.zero_(),
    "fill_": lambda T, t: t.fill_(7.5),
    "fill_tensor": lambda T, t: t.fill_(T.tensor(2.)),
    "copy_": lambda T, t: t.copy_(T.tensor([9., 8., 7.])),
    "copy_bcast": lambda T, t: t.copy_(T.tensor([4.])),
    "copy_int_src": lambda T, t: t.copy_(T.tensor([1, 2, 3])),
    "clamp_": lambda T, t: t.clamp_(-0.5, 0.5),
    "clamp_min": lambda T, t: t.clamp_(min=0.),
    "clamp_max": lambda T, t: t.clamp_(max=0.),
    "neg_": lambda T, t: t.neg_(),
}

BASE = [0.25, -1.5, 2.0]


@pytest.mark.parametrize("name", list(INPLACE))
def test_inplace_on_plain_tensor(name):
    def f(T):
        t = T.tensor(BASE)
        r = INPLACE[name](T, t)
        return r is t, t, t._version, t.requires_grad, t.grad_fn
    same_repr(f)


@pytest.mark.parametrize("name", list(INPLACE))
def test_inplace_in_graph(name):
    """On a non-leaf: the new value, its grad_fn (name and edges), the version, the grads."""
    def f(T):
        x = T.tensor(BASE, requires_grad=True)
        w = T.tensor([0.5, 2.0, -1.0], requires_grad=True)
        t = x * w
        v0 = t._version
        INPLACE[name](T, t)
        fn = t.grad_fn
        edges = [(c.name() if c is not None else None, nr) for c, nr in fn.next_functions]
        (t * T.tensor([1., 2., 3.])).sum().backward()
        return t, v0, t._version, fn.name(), edges, x.grad, w.grad
    same_repr(f)


@pytest.mark.parametrize("name", ["add_", "mul_", "div_", "copy_", "fill_tensor"])
def test_inplace_with_tensor_that_requires_grad(name):
    """The other operand requires grad: it receives a gradient through the in-place op."""
    def f(T):
        t = T.tensor(BASE)
        src = T.tensor([2., 3., 4.], requires_grad=True)
        op = {"add_": lambda: t.add_(src), "mul_": lambda: t.mul_(src), "div_": lambda: t.div_(src),
              "copy_": lambda: t.copy_(src), "fill_tensor": lambda: t.fill_(src.sum())}[name]
        op()
        t.sum().backward()
        return t, t.is_leaf, t.grad_fn.name(), src.grad
    same_repr(f)


OPERATORS = {
    "iadd": lambda t: t.__iadd__(2),
    "isub": lambda t: t.__isub__(0.5),
    "imul": lambda t: t.__imul__(3),
    "itruediv": lambda t: t.__itruediv__(2),
}


@pytest.mark.parametrize("name", list(OPERATORS))
def test_augmented_assignment_keeps_identity_and_bumps_version(name):
    def f(T):
        t = T.tensor(BASE)
        before = id(t)
        u = t
        if name == "iadd":
            u += 2
        elif name == "isub":
            u -= 0.5
        elif name == "imul":
            u *= 3
        else:
            u /= 2
        return id(u) == before, t, t._version
    same_repr(f)


def test_augmented_assignment_in_graph():
    def f(T):
        x = T.tensor(BASE, requires_grad=True)
        y = x * 1
        y += x
        y *= x
        y -= 1
        y /= 2
        y.sum().backward()
        return y, y.grad_fn.name(), y._version, x.grad
    same_repr(f)


def test_leaf_update_under_no_grad_like_sgd():
    def f(T):
        w = T.tensor([1., 2.], requires_grad=True)
        (w * w).sum().backward()
        with T.no_grad():
            w -= 0.1 * w.grad
            w.add_(w.grad, alpha=-0.1)
        w.grad.zero_()
        return w, w.is_leaf, w.requires_grad, w.grad_fn, w._version, w.grad
    same_repr(f)


def test_version_is_shared_with_views_and_detach():
    def f(T):
        x = T.ones(2, 3)
        v = x[0]
        d = x.detach()
        x.add_(1)
        v.mul_(2)
        d.zero_()
        return x._version, v._version, d._version, x
    same_repr(f)


def test_version_of_data_is_separate():
    def f(T):
        x = T.ones(2, requires_grad=True)
        x.data.add_(1)
        return x._version, x
    same_repr(f)


def test_modified_saved_tensor_is_reported_at_backward():
    ERRS = {
        # an input saved by MulBackward0 (a non-leaf: named as the output of its node)
        "saved_input_nonleaf": lambda T: (lambda a: (lambda y: (a.add_(1), y.sum().backward()))(a * a))(
            T.ones(2, requires_grad=True) * 2),
        # an input that is a leaf without grad
        "saved_leaf_const": lambda T: (lambda w, x: (lambda y: (w.mul_(2), y.sum().backward()))(x * w))(
            T.ones(3), T.ones(3, requires_grad=True)),
        # an output saved by ExpBackward0
        "saved_output": lambda T: (lambda y: (y.add_(1), y.sum().backward()))(
            T.ones(2, 2, requires_grad=True).exp()),
        # modified twice, float64
        "saved_twice": lambda T: (lambda a: (lambda y: (a.mul_(2), a.mul_(2), y.backward()))((a * a).sum()))(
            T.ones(2, dtype=T.float64, requires_grad=True) + 0),
        # through autograd.grad, 0-d
        "saved_0d_grad": lambda T: (lambda x: (lambda h: (lambda y: (h.zero_(), T.autograd.grad(y, x)))(h.sin()))(
            x * 1))(T.tensor(1., requires_grad=True)),
    }
    for name, f in ERRS.items():
        same_error(f)


def test_inplace_ok_when_not_saved():
    """add's backward does not need its inputs: modifying them is fine."""
    def f(T):
        x = T.ones(2, requires_grad=True)
        a = x * 2
        y = a + 1
        a.add_(5)
        y.sum().backward()
        return x.grad, a
    same_repr(f)


ERRORS = {
    "leaf_add_": lambda T: T.ones(2, requires_grad=True).add_(1),
    "leaf_mul_": lambda T: T.ones(2, requires_grad=True).mul_(2),
    "leaf_zero_": lambda T: T.ones(2, requires_grad=True).zero_(),
    "leaf_fill_": lambda T: T.ones(2, requires_grad=True).fill_(1.),
    "leaf_copy_": lambda T: T.ones(2, requires_grad=True).copy_(T.zeros(2)),
    "leaf_clamp_": lambda T: T.ones(2, requires_grad=True).clamp_(0, 1),
    "leaf_neg_": lambda T: T.ones(2, requires_grad=True).neg_(),
    "leaf_div_": lambda T: T.ones(2, requires_grad=True).div_(2),
    "leaf_sub_": lambda T: T.ones(2, requires_grad=True).sub_(2),
    "leaf_iadd": lambda T: T.ones(2, requires_grad=True).__iadd__(1),
    "leaf_view": lambda T: T.ones(2, 2, requires_grad=True)[0].add_(1),
    "int_add_float": lambda T: T.tensor([1, 2]).add_(1.5),
    "int_div": lambda T: T.tensor([1, 2]).div_(2),
    "shape_mismatch": lambda T: T.ones(2).add_(T.ones(3, 2)),
    "shape_mismatch_mul": lambda T: T.ones(2, 3).mul_(T.ones(4)),
    "copy_shape": lambda T: T.ones(2).copy_(T.ones(3)),
    "clamp_none": lambda T: T.ones(2).clamp_(),
    "bool_sub_": lambda T: T.tensor([True]).sub_(T.tensor([True])),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_match_torch(name):
    same_error(ERRORS[name])


def test_leaf_error_then_tensor_unchanged():
    x = R.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError):
        x.add_(1)
    assert x.tolist() == [1., 1.] and x._version == 0


def test_inplace_result_values_float64_vs_numpy():
    a = np.linspace(-1, 1, 5)
    t = R.tensor(a)
    t.mul_(3).add_(1).div_(2).clamp_(-0.5, 1.5).neg_()
    np.testing.assert_allclose(t.numpy(), -np.clip((a * 3 + 1) / 2, -0.5, 1.5))
    assert t._version == 5


@pytest.mark.parametrize("case", [
    "b = a.clone(); b[1:3] = b[1:3] * 10; out = b",          # x[i] = x[i] * c
    "y = a.clone(); out = y * 10; y.add_(1)",                 # saved only for the constant's grad
    "y = a.clone(); w = T.arange(4.); out = y * w; y.add_(1)",
    "y = a.clone(); out = w2 * y; y.mul_(2)",                 # constant on the left
    "y = a.clone(); out = T.outer(y, T.ones(2)); y.add_(1)",
    "y = a.clone(); out = y * w3; y.add_(1)",                 # both require grad: torch raises
])
def test_modified_input_only_matters_when_a_needed_rule_reads_it(case):
    def run(T):
        a = T.arange(4., requires_grad=True)
        w2 = T.arange(4.) + 1
        w3 = (T.arange(4.) + 1).requires_grad_()
        env = {"T": T, "a": a, "w2": w2, "w3": w3}
        exec(case, env)
        try:
            env["out"].sum().backward()
        except RuntimeError as exc:
            return "error", "modified by an inplace operation" in str(exc)
        return a.grad.tolist()

    assert run(R) == run(torch)


def _outcome(f, T):
    try:
        return "ok", f(T)
    except Exception as exc:  # noqa: BLE001 - type and text compared with torch's
        return type(exc).__name__, str(exc)


def test_version_counter_of_shape_inplace_ops_and_resize():
    def run(T):
        x = T.ones(2, 3)
        seen = []
        for step in (lambda: x.t_(), lambda: x.unsqueeze_(0), lambda: x.squeeze_(0), lambda: x.transpose_(0, 1),
                     lambda: x.resize_(2, 3), lambda: x.resize_(6)):
            step()
            seen.append(x._version)
        return seen

    assert run(rg) == run(torch)


@pytest.mark.parametrize("f", [
    lambda T: T.ones(2, 1).expand(2, 3).mul_(2),
    lambda T: T.ones(2, 1).expand(2, 3).add_(1),
    lambda T: T.ones(2, 1).expand(2, 3).copy_(T.zeros(2, 3)),
])
def test_inplace_arithmetic_on_expanded_tensor_is_refused_as_torch(f):
    assert _outcome(f, rg) == _outcome(f, torch)
