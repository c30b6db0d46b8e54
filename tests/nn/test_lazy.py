"""Lazy modules (UninitializedParameter/Buffer, LazyModuleMixin, Lazy* layers), AdaptiveLogSoftmaxWithLoss,
SyncBatchNorm, CrossMapLRN2d and Container, checked against PyTorch."""
import copy
import pickle
import warnings

import numpy as np
import pytest

import retrograd as R
from retrograd.nn import parameter as RP
from retrograd.nn.modules import lazy as rlazy

torch = pytest.importorskip("torch")

from parity import assert_equal_to_torch_kernel  # noqa: E402

from ._lazy_helpers import A, same_error, tnn  # noqa: E402


def seeded(seed, make_t, make_r):
    torch.manual_seed(seed)
    t = make_t()
    R.manual_seed(seed)
    return t, make_r()


# ----------------------------------------------------------------------------- UninitializedParameter / Buffer
def test_uninitialized_parameter_queries():
    p, q = tnn.UninitializedParameter(), RP.UninitializedParameter()
    assert repr(q) == repr(p) == str(q) == "<UninitializedParameter>"
    assert isinstance(q, R.nn.Parameter) and RP.is_lazy(q) and not RP.is_lazy(R.nn.Parameter(R.ones(1)))
    assert list(q.size()) == list(p.size()) == [0]
    assert q.ndim == p.ndim and q.requires_grad and q.is_leaf and q.grad is None
    assert str(q.dtype).split(".")[-1] == str(p.dtype).split(".")[-1] == "float32"
    assert q.is_floating_point() and hash(q) == id(q)
    assert RP.UninitializedParameter(dtype=R.float64).dtype == R.float64
    assert not RP.UninitializedParameter(requires_grad=False).requires_grad
    assert q.cls_to_become is R.nn.Parameter
    assert q.data.shape == (0,)


@pytest.mark.parametrize("name", ["shape", "add", "mul", "sum", "detach", "dim", "numel", "view", "getitem", "len",
                                  "tolist", "linear", "requires_grad_", "share_memory_", "int_dtype"])
def test_uninitialized_parameter_errors(name):
    def use(mod, p):
        return {
            "shape": lambda: p.shape, "add": lambda: p + 1, "mul": lambda: p * 2, "sum": lambda: p.sum(),
            "detach": lambda: p.detach(), "dim": lambda: p.dim(), "numel": lambda: p.numel(),
            "view": lambda: p.view(2), "getitem": lambda: p[0], "len": lambda: len(p), "tolist": lambda: p.tolist(),
            "linear": lambda: mod.nn.functional.linear(mod.ones(2, 3), p),
            "requires_grad_": lambda: p.requires_grad_(False), "share_memory_": lambda: p.share_memory_(),
            "int_dtype": lambda: type(p)(dtype=mod.int64),
        }[name]()

    p, q = tnn.UninitializedParameter(), RP.UninitializedParameter()
    if name == "len":  # torch names its Python-level __len__ by address; compare the rest
        with pytest.raises(ValueError, match="Attempted to use an uninitialized parameter in"):
            use(R, q)
        return
    same_error(lambda: use(R, q), lambda: use(torch, p))


def test_uninitialized_parameter_conversions_and_materialize():
    q = RP.UninitializedParameter()
    d = q.to(R.float64)
    assert type(d) is R.Tensor and d.dtype == R.float64 and d.shape == (0,)
    q.materialize((2, 3))
    assert type(q) is R.nn.Parameter and q.shape == (2, 3) and q.requires_grad and q.dtype == R.float32
    q2 = RP.UninitializedParameter()
    q2.materialize((4,), dtype=R.float64)
    assert q2.dtype == R.float64 and q2.shape == (4,)
    same_error(lambda: RP.UninitializedParameter().materialize((2,), dtype=R.int64),
               lambda: tnn.UninitializedParameter().materialize((2,), dtype=torch.int64))
    c = copy.deepcopy(RP.UninitializedParameter(dtype=R.float64))
    assert type(c) is RP.UninitializedParameter and c.dtype == R.float64
    u = pickle.loads(pickle.dumps(RP.UninitializedParameter(requires_grad=False)))
    assert type(u) is RP.UninitializedParameter and not u.requires_grad


def test_uninitialized_buffer():
    b, tb = RP.UninitializedBuffer(), tnn.UninitializedBuffer()
    assert repr(b) == repr(tb) == "<UninitializedBuffer>"
    assert (b.requires_grad, b.persistent, isinstance(b, R.nn.Buffer), isinstance(b, R.nn.Parameter)) == \
        (tb.requires_grad, tb.persistent, isinstance(tb, tnn.Buffer), isinstance(tb, tnn.Parameter))
    assert type(b.double()) is RP.UninitializedBuffer and b.double().dtype == R.float64  # stays lazy, as torch
    assert b.cls_to_become is R.Tensor
    b.materialize(4)
    assert type(b) is R.Tensor and b.shape == (4,) and not b.requires_grad


# ----------------------------------------------------------------------------- LazyLinear
def test_lazy_linear_before_forward():
    m, t = R.nn.LazyLinear(3), tnn.LazyLinear(3)
    assert repr(m) == repr(t) == "LazyLinear(in_features=0, out_features=3, bias=True)"
    assert m.has_uninitialized_params() and isinstance(m, rlazy.LazyModuleMixin)
    assert repr(m.state_dict()) == repr(t.state_dict())
    assert repr(m.state_dict(keep_vars=True)) == repr(t.state_dict(keep_vars=True))
    assert repr(list(m.parameters())) == repr(list(t.parameters()))
    assert repr(R.nn.LazyLinear(3, bias=False)) == repr(tnn.LazyLinear(3, bias=False))
    assert R.nn.LazyLinear(3, bias=False).bias is None
    assert list(R.nn.LazyLinear(3, bias=False).state_dict()) == ["weight"]
    assert m.cls_to_become is R.nn.Linear
    same_error(lambda: rlazy.LazyModuleMixin.initialize_parameters(m),
               lambda: tnn.modules.lazy.LazyModuleMixin.initialize_parameters(t))
    same_error(lambda: m.weight + 1, lambda: t.weight + 1)
    same_error(lambda: R.nn.LazyLinear(3).requires_grad_(False), lambda: tnn.LazyLinear(3).requires_grad_(False))
    same_error(lambda: R.nn.LazyLinear(3)(x=R.ones(2, 4)), lambda: tnn.LazyLinear(3)(x=torch.ones(2, 4)))
    same_error(lambda: R.nn.LazyLinear(3)(R.tensor(1.0)), lambda: tnn.LazyLinear(3)(torch.tensor(1.0)))


def test_lazy_linear_first_forward_matches_torch():
    t, m = seeded(5, lambda: tnn.LazyLinear(4), lambda: R.nn.LazyLinear(4))
    x = np.random.default_rng(0).standard_normal((3, 6))
    xt = torch.tensor(x, dtype=torch.float32, requires_grad=True)
    xr = R.tensor(x, dtype=R.float32, requires_grad=True)
    torch.manual_seed(1)
    yt = t(xt)
    R.manual_seed(1)
    yr = m(xr)
    assert type(m) is R.nn.Linear and repr(m) == repr(t) == "Linear(in_features=6, out_features=4, bias=True)"
    assert_equal_to_torch_kernel(A(m.weight), A(t.weight))  # same RNG stream, same init
    assert_equal_to_torch_kernel(A(m.bias), A(t.bias))
    np.testing.assert_allclose(A(yr), A(yt), rtol=1e-6, atol=1e-6)
    assert type(yr.grad_fn).__name__ == type(yt.grad_fn).__name__
    (yt ** 2).sum().backward()
    (yr ** 2).sum().backward()
    np.testing.assert_allclose(A(xr.grad), A(xt.grad), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(A(m.weight.grad), A(t.weight.grad), rtol=1e-5, atol=1e-6)
    assert not m._forward_pre_hooks and not m._load_state_dict_pre_hooks
    assert "_initialize_hook" not in m.__dict__ and "_load_hook" not in m.__dict__
    assert R.nn.LazyLinear(2)(R.ones(5)).shape == (2,)


def test_lazy_linear_dtype_and_module_conversions():
    m = R.nn.LazyLinear(3, dtype=R.float64)
    assert m.weight.dtype == R.float64 and m(R.ones(2, 4, dtype=R.float64)).dtype == R.float64
    d = R.nn.LazyLinear(3).double()
    assert type(d.weight) is RP.UninitializedParameter and d.weight.dtype == R.float64
    assert d(R.ones(1, 2, dtype=R.float64)).dtype == R.float64
    bn = R.nn.LazyBatchNorm1d().double()
    tbn = tnn.LazyBatchNorm1d().double()
    kinds = lambda mod: {k: (type(v).__name__, str(v.dtype).split(".")[-1])  # noqa: E731
                         for k, v in list(mod._buffers.items()) + list(mod._parameters.items())}
    assert kinds(bn) == kinds(tbn)


def test_lazy_optimizer_and_training_step():
    m = R.nn.Sequential(R.nn.LazyLinear(4), R.nn.ReLU(), R.nn.LazyLinear(1))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        opt = R.optim.SGD(m.parameters(), lr=0.1)  # torch warns about nothing here either
    loss = m(R.ones(2, 3)).sum()
    assert [type(x).__name__ for x in m] == ["Linear", "ReLU", "Linear"]
    loss.backward()
    w0 = m[0].weight.detach().clone()
    opt.step()
    assert opt.param_groups[0]["params"][0] is m[0].weight  # materialized in place: the optimizer trains it
    assert not R.equal(w0, m[0].weight.detach())


def test_lazy_load_state_dict():
    m, t = R.nn.LazyLinear(3), tnn.LazyLinear(3)
    src = tnn.Linear(4, 3)
    res_t = t.load_state_dict(src.state_dict())
    res_r = m.load_state_dict({k: R.tensor(v.numpy()) for k, v in src.state_dict().items()})
    assert repr(res_r) == repr(res_t)
    assert type(m).__name__ == "LazyLinear" and m.in_features == 0 and not m.has_uninitialized_params()
    np.testing.assert_array_equal(A(m.weight), src.weight.detach().numpy())
    np.testing.assert_allclose(A(m(R.ones(2, 4))), A(src(torch.ones(2, 4))), rtol=1e-6)
    assert type(m) is R.nn.Linear and m.in_features == 4
    # the loaded weight fixes in_features: another input size is refused as torch does
    m2, t2 = R.nn.LazyLinear(3), tnn.LazyLinear(3)
    m2.load_state_dict({"weight": R.ones(3, 4), "bias": R.ones(3)})
    t2.load_state_dict({"weight": torch.ones(3, 4), "bias": torch.ones(3)})
    same_error(lambda: m2(R.ones(2, 5)), lambda: t2(torch.ones(2, 5)))
    # lazy into lazy: nothing to copy, all keys match
    assert repr(R.nn.LazyLinear(3).load_state_dict(R.nn.LazyLinear(3).state_dict())) == \
        repr(tnn.LazyLinear(3).load_state_dict(tnn.LazyLinear(3).state_dict()))
    # lazy into an initialised module: torch's shape error
    same_error(lambda: R.nn.Linear(4, 3).load_state_dict(R.nn.LazyLinear(3).state_dict()),
               lambda: tnn.Linear(4, 3).load_state_dict(tnn.LazyLinear(3).state_dict()))
    # partial load: weight materialized, bias still lazy
    m3, t3 = R.nn.LazyLinear(3), tnn.LazyLinear(3)
    assert repr(m3.load_state_dict({"weight": R.ones(3, 4)}, strict=False)) == \
        repr(t3.load_state_dict({"weight": torch.ones(3, 4)}, strict=False))
    assert m3.has_uninitialized_params() and repr(m3.bias) == "<UninitializedParameter>"


def test_lazy_explicit_initialize_and_copies():
    m = R.nn.LazyLinear(3)
    m.initialize_parameters(R.ones(2, 4))
    assert type(m).__name__ == "LazyLinear" and m.weight.shape == (3, 4) and "_initialize_hook" in m.__dict__
    assert m(R.ones(2, 4)).shape == (2, 3) and type(m) is R.nn.Linear
    orig = R.nn.LazyLinear(3)
    c = copy.deepcopy(orig)
    c(R.ones(1, 2))
    assert type(c) is R.nn.Linear and type(orig).__name__ == "LazyLinear" and orig._forward_pre_hooks
    assert orig(R.ones(1, 5)).shape == (1, 3)
    p = pickle.loads(pickle.dumps(R.nn.LazyBatchNorm1d()))
    assert p.has_uninitialized_params()
    p(R.randn(3, 2))
    assert type(p) is R.nn.BatchNorm1d and not p._forward_pre_hooks and not p._load_state_dict_pre_hooks
    with pytest.raises(RuntimeError, match="Modules with uninitialized parameters can't be used with `DataParallel`"):
        R.nn.LazyLinear(2)._replicate_for_data_parallel()


# ----------------------------------------------------------------------------- Lazy conv
CONVS = [("LazyConv1d", (4, 3), {}, (2, 3, 8)),
         ("LazyConv2d", (4, 3), {"padding": 1, "bias": False}, (2, 3, 6, 6)),
         ("LazyConv3d", (2, 2), {"stride": 2}, (1, 3, 4, 4, 4)),
         ("LazyConvTranspose1d", (4, 3), {"stride": 2}, (2, 3, 5)),
         ("LazyConvTranspose2d", (4, 3), {"stride": 2, "groups": 2}, (1, 6, 3, 3)),
         ("LazyConvTranspose3d", (2, 2), {"output_padding": 1, "stride": 2}, (1, 2, 2, 2, 2))]


@pytest.mark.parametrize("name,args,kw,shape", CONVS)
def test_lazy_conv_matches_torch(name, args, kw, shape):
    t, m = seeded(7, lambda: getattr(tnn, name)(*args, **kw), lambda: getattr(R.nn, name)(*args, **kw))
    assert repr(m) == repr(t) and repr(m.state_dict()) == repr(t.state_dict())
    x = np.random.default_rng(1).standard_normal(shape)
    xt = torch.tensor(x, requires_grad=True)
    xr = R.tensor(x, requires_grad=True)
    yt = t.double()(xt)
    yr = m.double()(xr)
    assert repr(m) == repr(t) and type(m).__name__ == name[4:]
    assert_equal_to_torch_kernel(A(m.weight), A(t.weight))
    np.testing.assert_allclose(A(yr), A(yt), rtol=1e-10, atol=1e-12)
    assert type(yr.grad_fn).__name__ == type(yt.grad_fn).__name__
    yt.pow(2).sum().backward()
    yr.pow(2).sum().backward()
    np.testing.assert_allclose(A(xr.grad), A(xt.grad), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(A(m.weight.grad), A(t.weight.grad), rtol=1e-10, atol=1e-12)


def test_lazy_conv_errors_and_unbatched():
    same_error(lambda: R.nn.LazyConv2d(4, 3, groups=2)(R.randn(1, 3, 5, 5)),
               lambda: tnn.LazyConv2d(4, 3, groups=2)(torch.randn(1, 3, 5, 5)))
    same_error(lambda: R.nn.LazyConv2d(4, 3)(R.randn(3, 5)), lambda: tnn.LazyConv2d(4, 3)(torch.randn(3, 5)))
    m = R.nn.LazyConv2d(4, 3)
    assert m(R.randn(3, 5, 5)).shape == (4, 3, 3) and m.in_channels == 3
    assert repr(R.nn.LazyConv1d(2, 3, padding_mode="circular", padding=1)) == \
        repr(tnn.LazyConv1d(2, 3, padding_mode="circular", padding=1))


# ----------------------------------------------------------------------------- Lazy norms
@pytest.mark.parametrize("name,shape,kw", [("LazyBatchNorm1d", (4, 3), {}), ("LazyBatchNorm2d", (4, 3, 2, 2), {}),
                                           ("LazyBatchNorm3d", (2, 3, 2, 2, 2), {"momentum": None}),
                                           ("LazyBatchNorm1d", (4, 3, 5), {"affine": False}),
                                           ("LazyInstanceNorm1d", (2, 3, 4), {}),
                                           ("LazyInstanceNorm2d", (2, 3, 4, 4), {}),
                                           ("LazyInstanceNorm3d", (2, 3, 2, 2, 2), {"track_running_stats": False})])
def test_lazy_norm_matches_torch(name, shape, kw):
    t, m = getattr(tnn, name)(**kw).double(), getattr(R.nn, name)(**kw).double()
    assert repr(m) == repr(t) and repr(m.state_dict()) == repr(t.state_dict())
    assert m.has_uninitialized_params() == t.has_uninitialized_params()
    x = np.random.default_rng(2).standard_normal(shape) * 2 + 1
    xt = torch.tensor(x, requires_grad=True)
    xr = R.tensor(x, requires_grad=True)
    yt, yr = t(xt), m(xr)
    assert repr(m) == repr(t) and type(m).__name__ == name[4:]
    np.testing.assert_allclose(A(yr), A(yt), rtol=1e-10, atol=1e-12)
    for k, v in t.state_dict().items():
        np.testing.assert_allclose(A(m.state_dict()[k]), v.numpy(), rtol=1e-10, atol=1e-12)
    g = np.random.default_rng(3).standard_normal(shape)
    yt.backward(torch.tensor(g))
    yr.backward(R.tensor(g))
    np.testing.assert_allclose(A(xr.grad), A(xt.grad), rtol=1e-8, atol=1e-10)


def test_lazy_norm_quirks():
    # unbatched instance norm takes num_features from shape[1] (as torch), then forward complains
    same_error(lambda: R.nn.LazyInstanceNorm2d()(R.randn(3, 4, 5)), lambda: tnn.LazyInstanceNorm2d()(torch.randn(3, 4, 5)))
    same_error(lambda: R.nn.LazyBatchNorm2d()(R.randn(3, 3)), lambda: tnn.LazyBatchNorm2d()(torch.randn(3, 3)))
    same_error(lambda: R.nn.LazyBatchNorm1d()(R.randn(3)), lambda: tnn.LazyBatchNorm1d()(torch.randn(3)))
    assert list(R.nn.LazyBatchNorm1d(track_running_stats=False).state_dict()) == ["weight", "bias"]
    m = R.nn.LazyInstanceNorm1d(affine=False, track_running_stats=False)
    assert not m.has_uninitialized_params()
    with pytest.warns(UserWarning, match="does not match num_features"):
        m(R.randn(2, 3, 4))
    assert repr(m) == "InstanceNorm1d(0, eps=1e-05, momentum=0.1, affine=False, bias=False, track_running_stats=False)"
