"""The first-order backward of ops with a declared fast path (``fast=``: add/sub/mul/neg/rsub ...) runs on NumPy arrays.

It must give exactly what the Tensor rules give (those run under create_graph=True), fall
back to them when the arrays do not qualify, and keep the engine's checks.
"""
import numpy as np
import pytest
import torch

import retrograd as rg
from retrograd._ops import OPS


def _grads(create_graph: bool, fn, *arrays, dtypes=None):
    dtypes = dtypes or [np.float32] * len(arrays)
    xs = [rg.tensor(a.astype(d), requires_grad=True) for a, d in zip(arrays, dtypes)]
    out = fn(*xs)
    gs = rg.autograd.grad(out.sum(), xs, create_graph=create_graph)
    return [g.detach().numpy() for g in gs], [g.dtype for g in gs]


CASES = [
    ("mul", lambda a, b: a * b),
    ("add", lambda a, b: a + b),
    ("sub", lambda a, b: a - b),
    ("add alpha", lambda a, b: rg.add(a, b, alpha=2.5)),
    ("sub alpha", lambda a, b: rg.sub(a, b, alpha=-0.5)),
    ("rsub", lambda a, b: rg.rsub(a, b, alpha=3)),
    ("neg then mul", lambda a, b: -a * b),
    ("scalar rsub", lambda a, b: (2 - a) * b),
]


@pytest.mark.parametrize("name,fn", CASES, ids=[c[0] for c in CASES])
def test_array_path_equals_tensor_path(name, fn):
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((3, 4)), rng.standard_normal((4,))  # broadcasting too
    fast, fast_dt = _grads(False, fn, a, b)
    slow, slow_dt = _grads(True, fn, a, b)
    assert fast_dt == slow_dt
    for f, s in zip(fast, slow):
        np.testing.assert_array_equal(f, s)


def test_mixed_dtypes_fall_back_and_keep_each_inputs_dtype():
    a, b = np.arange(3.0), np.arange(1.0, 4.0)
    gs, dts = _grads(False, lambda x, y: x * y, a, b, dtypes=[np.float32, np.float64])
    assert dts == [rg.float32, rg.float64]
    ta = torch.tensor(a, dtype=torch.float32, requires_grad=True)
    tb = torch.tensor(b, dtype=torch.float64, requires_grad=True)
    (ta * tb).sum().backward()
    np.testing.assert_allclose(gs[0], ta.grad.numpy())
    np.testing.assert_allclose(gs[1], tb.grad.numpy())


def test_modified_saved_input_is_still_caught():
    a = rg.tensor([1.0, 2.0], requires_grad=True)
    b = a * 1
    c = b * a
    b.add_(1)
    with pytest.raises(RuntimeError, match="is at version 1; expected version 0 instead"):
        c.sum().backward()


def test_fast_paths_are_compiled_for_the_arithmetic_ops():
    fast = {name for name, op in OPS.items() if op.fast}
    assert {"add", "sub", "mul", "neg", "rsub", "div"} <= fast
    for name in fast:
        assert OPS[name].fast_backward is not None and OPS[name].node_cls._fast_backward is not None


def test_division_by_zero_in_a_fast_path_does_not_warn():
    import warnings

    x = rg.tensor([1.0, 0.0], requires_grad=True)
    y = rg.tensor([0.0, 0.0], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        (x / y).sum().backward()
    assert np.isinf(x.grad.numpy()).all()


NN_CASES = [
    ("linear+bias", lambda x, w, b: rg.nn.functional.linear(x, w, b)),
    ("linear", lambda x, w, b: rg.nn.functional.linear(x, w) * b),
    ("relu", lambda x, w, b: rg.nn.functional.relu(x @ w.T + b)),
    ("log_softmax", lambda x, w, b: rg.nn.functional.log_softmax(x @ w.T + b, dim=1)),
    ("cross_entropy", lambda x, w, b: rg.nn.functional.cross_entropy(x @ w.T + b, rg.tensor([0, 2, 1, 1, 0]))),
    ("nll sum", lambda x, w, b: rg.nn.functional.nll_loss(x @ w.T + b, rg.tensor([2, 2, 1, 0, 0]), reduction="sum")),
    ("nll none", lambda x, w, b: rg.nn.functional.nll_loss(x @ w.T + b, rg.tensor([1, 2, 1, 0, 0]), reduction="none")),
]


@pytest.mark.parametrize("name,fn", NN_CASES, ids=[c[0] for c in NN_CASES])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_nn_array_twins_equal_their_rules(name, fn, dtype):
    """Ops with NumPy fast paths of their rules (fast={...}): first-order grads equal the
    Tensor rules' grads (create_graph=True runs those) bit for bit."""
    rng = np.random.default_rng(1)
    arrays = rng.standard_normal((5, 4)), rng.standard_normal((3, 4)), rng.standard_normal((3,))
    fast, fast_dt = _grads(False, fn, *arrays, dtypes=[dtype] * 3)
    slow, slow_dt = _grads(True, fn, *arrays, dtypes=[dtype] * 3)
    assert fast_dt == slow_dt
    for f, s in zip(fast, slow):
        np.testing.assert_array_equal(f, s)
    assert all(OPS[n].fast for n in ("linear_bias", "linear", "nn_relu", "log_softmax", "nll_loss_plain"))
