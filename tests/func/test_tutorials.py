"""PyTorch's model-ensembling and per-sample-gradients tutorials (torch.func), run unchanged on
torch and on retrograd with the same weights and data, and compared; plus stack_module_state
and functionalize against torch.

The tutorials' code is written once, as functions of the library (``lib`` is torch or
retrograd); sizes are smaller than the tutorials' to keep the test short.
Tolerances: float32 networks of 2-4 layers; the results of the two libraries differ by
float32 roundings accumulated over <= 800-term dot products (rtol 1e-4 holds with margin).
"""
import copy

import numpy as np
import pytest

import retrograd
import retrograd.func as rfunc

torch = pytest.importorskip("torch")

import torch.func as tfunc  # noqa: E402

from tests.func.test_func import same_error  # noqa: E402

RTOL, ATOL = 1e-4, 1e-5


def _load(r_model, t_model):
    """Give the retrograd model the torch model's weights."""
    r_model.load_state_dict({k: retrograd.tensor(v.detach().numpy()) for k, v in t_model.state_dict().items()})


def _close(r, t):
    np.testing.assert_allclose(r.detach().numpy(), t.detach().numpy(), rtol=RTOL, atol=ATOL)


# ---------------------------------------------------------------------- model ensembling
def _simple_mlp(lib):
    nn, F = lib.nn, lib.nn.functional

    class SimpleMLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(784, 128)
            self.fc2 = nn.Linear(128, 128)
            self.fc3 = nn.Linear(128, 10)

        def forward(self, x):
            x = x.flatten(1)
            x = self.fc1(x)
            x = F.relu(x)
            x = self.fc2(x)
            x = F.relu(x)
            x = self.fc3(x)
            return x

    return SimpleMLP


def _ensembling(lib, func, models, data):
    """The tutorial's steps; returns what it asserts on."""
    minibatches = data[:len(models)]
    loop_diff = lib.stack([model(mb) for model, mb in zip(models, minibatches)])
    minibatch = data[0]
    loop_same = lib.stack([model(minibatch) for model in models])
    params, buffers = func.stack_module_state(models)
    base_model = copy.deepcopy(models[0])

    def fmodel(params, buffers, x):
        return func.functional_call(base_model, (params, buffers), (x,))

    sizes = [p.size(0) for p in params.values()]
    vmap_diff = func.vmap(fmodel)(params, buffers, minibatches)
    vmap_same = func.vmap(fmodel, in_dims=(0, 0, None))(params, buffers, minibatch)
    return sizes, params, loop_diff, loop_same, vmap_diff, vmap_same


def test_model_ensembling_tutorial():
    num_models = 5
    data = np.random.default_rng(0).standard_normal((num_models, 16, 1, 28, 28)).astype(np.float32)
    t_cls, r_cls = _simple_mlp(torch), _simple_mlp(retrograd)
    t_models = [t_cls() for _ in range(num_models)]
    r_models = [r_cls() for _ in range(num_models)]
    for r, t in zip(r_models, t_models):
        _load(r, t)
    rr = _ensembling(retrograd, rfunc, r_models, retrograd.tensor(data))
    tr = _ensembling(torch, tfunc, t_models, torch.tensor(data))
    assert rr[0] == tr[0] == [num_models] * 6
    assert list(rr[1]) == list(tr[1]) and all(p.requires_grad and p.is_leaf for p in rr[1].values())
    for r, t in zip(rr[2:], tr[2:]):
        _close(r, t)
    # the tutorial's own checks: vmap agrees with the loop
    for a, b in ((rr[4], rr[2]), (rr[5], rr[3])):
        assert retrograd.allclose(a, b, atol=1e-3, rtol=1e-5)


def test_stack_module_state_errors():
    same_error(lambda lib, fn: fn.stack_module_state([]))
    same_error(lambda lib, fn: fn.stack_module_state([lib.nn.Linear(2, 2), lib.nn.Linear(2, 2).eval()]))
    same_error(lambda lib, fn: fn.stack_module_state([lib.nn.Linear(2, 2), lib.nn.Bilinear(2, 2, 2)]))

    def mixed(lib, fn):
        a, b = lib.nn.Linear(2, 2), lib.nn.Linear(2, 2)
        b.bias.requires_grad_(False)
        fn.stack_module_state([a, b])

    same_error(mixed)
    # buffers are stacked too, and do not require grad
    r = rfunc.stack_module_state([retrograd.nn.BatchNorm1d(3) for _ in range(2)])
    t = tfunc.stack_module_state([torch.nn.BatchNorm1d(3) for _ in range(2)])
    assert list(r[1]) == list(t[1])
    assert [tuple(v.shape) for v in r[1].values()] == [tuple(v.shape) for v in t[1].values()]
    assert not any(v.requires_grad for v in r[1].values())


# ---------------------------------------------------------------------- per-sample gradients
def _simple_cnn(lib):
    nn, F = lib.nn, lib.nn.functional

    class SimpleCNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 8, 3, 1)
            self.conv2 = nn.Conv2d(8, 16, 3, 1)
            self.fc1 = nn.Linear(576, 32)
            self.fc2 = nn.Linear(32, 10)

        def forward(self, x):
            x = self.conv1(x)
            x = F.relu(x)
            x = self.conv2(x)
            x = F.relu(x)
            x = F.max_pool2d(x, 2)
            x = lib.flatten(x, 1)
            x = self.fc1(x)
            x = F.relu(x)
            x = self.fc2(x)
            output = F.log_softmax(x, dim=1)
            return output

    return SimpleCNN


def _per_sample_grads(lib, func, model, data, targets):
    F = lib.nn.functional
    batch_size = data.shape[0]

    def loss_fn(predictions, targets):
        return F.nll_loss(predictions, targets)

    def compute_grad(sample, target):
        sample = sample.unsqueeze(0)
        target = target.unsqueeze(0)
        prediction = model(sample)
        loss = loss_fn(prediction, target)
        return lib.autograd.grad(loss, list(model.parameters()))

    sample_grads = [compute_grad(data[i], targets[i]) for i in range(batch_size)]
    per_sample_grads = [lib.stack(shards) for shards in zip(*sample_grads)]

    params = {k: v.detach() for k, v in model.named_parameters()}
    buffers = {k: v.detach() for k, v in model.named_buffers()}

    def compute_loss(params, buffers, sample, target):
        batch = sample.unsqueeze(0)
        targets = target.unsqueeze(0)
        predictions = func.functional_call(model, (params, buffers), (batch,))
        return loss_fn(predictions, targets)

    ft_compute_sample_grad = func.vmap(func.grad(compute_loss), in_dims=(None, None, 0, 0))
    ft_per_sample_grads = ft_compute_sample_grad(params, buffers, data, targets)
    return per_sample_grads, list(ft_per_sample_grads.values())


def test_per_sample_grads_tutorial():
    rng = np.random.default_rng(1)
    data = rng.standard_normal((8, 1, 16, 16)).astype(np.float32)
    targets = rng.integers(0, 10, 8)
    t_model = _simple_cnn(torch)()
    r_model = _simple_cnn(retrograd)()
    _load(r_model, t_model)
    r_loop, r_vmap = _per_sample_grads(retrograd, rfunc, r_model, retrograd.tensor(data), retrograd.tensor(targets))
    t_loop, t_vmap = _per_sample_grads(torch, tfunc, t_model, torch.tensor(data), torch.tensor(targets))
    for rl, rv, tl, tv in zip(r_loop, r_vmap, t_loop, t_vmap):
        _close(rl, tl)
        _close(rv, tv)
        assert retrograd.allclose(rl, rv, atol=3e-3, rtol=1e-5)  # the tutorial's check


# ---------------------------------------------------------------------- functionalize
def test_functionalize():
    def f(lib, a):
        b = a + 1
        c = b.view(-1)
        c.add_(1)
        a.mul_(2)
        return b, c

    for remove in ("mutations", "mutations_and_views"):
        ra = retrograd.tensor([[1.0, 2.0]])
        ta = torch.tensor([[1.0, 2.0]])
        r = rfunc.functionalize(lambda a: f(retrograd, a), remove=remove)(ra)
        t = tfunc.functionalize(lambda a: f(torch, a), remove=remove)(ta)
        for x, y in zip(r, t):
            np.testing.assert_array_equal(x.numpy(), y.numpy())
        np.testing.assert_array_equal(ra.numpy(), ta.numpy())  # the input mutation is written back
    # gradients flow through a functionalized function
    rx = retrograd.tensor([1.0, 2.0], requires_grad=True)
    tx = torch.tensor([1.0, 2.0], requires_grad=True)
    rg = retrograd.autograd.grad(rfunc.functionalize(lambda x: (x * x).sin().sum())(rx), rx)[0]
    tg = torch.autograd.grad(tfunc.functionalize(lambda x: (x * x).sin().sum())(tx), tx)[0]
    np.testing.assert_allclose(rg.numpy(), tg.numpy(), rtol=1e-6)
    same_error(lambda lib, fn: fn.functionalize(lib.sin, remove="views"))
