"""Tensor creation, dtypes, attributes, conversions and printing against torch 2.13.

Most cases are functions ``f(T)`` run with ``T = retrograd`` and ``T = torch``; their
results are compared by value, by dtype and by ``repr`` (with ``retrograd.`` in place of
``torch.``), so printing is checked byte for byte everywhere.
"""
from __future__ import annotations

import copy
import pickle
import warnings

import numpy as np
import pytest

import retrograd
import retrograd as R
import retrograd as rg

torch = pytest.importorskip("torch")

from parity import same_error, same_repr  # noqa: E402


# ------------------------------------------------------------------ creation
CREATION = {
    "tensor_float": lambda T: T.tensor(1.5),
    "tensor_int": lambda T: T.tensor([1, 2, 3]),
    "tensor_bool": lambda T: T.tensor([True, False]),
    "tensor_mixed": lambda T: T.tensor([1, 2.5, True]),
    "tensor_nested": lambda T: T.tensor([[1., 2.], [3., 4.]]),
    "tensor_dtype": lambda T: T.tensor([1, 2], dtype=T.float64),
    "tensor_empty": lambda T: T.tensor([]),
    "tensor_rg": lambda T: T.tensor([1., 2.], requires_grad=True),
    "tensor_from_numpy_f64": lambda T: T.tensor(np.array([1.5, 2.0])),
    "tensor_from_numpy_i32": lambda T: T.tensor(np.array([1, 2], dtype=np.int32)),
    "tensor_numpy_scalar": lambda T: T.tensor(np.float64(2.5)),
    "zeros": lambda T: T.zeros(2, 3),
    "zeros_tuple": lambda T: T.zeros((2, 3), dtype=T.int64),
    "ones": lambda T: T.ones(3, dtype=T.int32),
    "ones_rg": lambda T: T.ones(2, requires_grad=True),
    "full": lambda T: T.full((2, 2), 7.),
    "full_int": lambda T: T.full((2,), 7),
    "full_bool": lambda T: T.full((2,), True),
    "empty_shape": lambda T: T.empty(2, 3).shape,
    "eye": lambda T: T.eye(3),
    "eye_rect": lambda T: T.eye(2, 3, dtype=T.int64),
    "arange": lambda T: T.arange(5),
    "arange_float": lambda T: T.arange(0, 1, 0.25),
    "arange_neg": lambda T: T.arange(5, 0, -2),
    "arange_start_end": lambda T: T.arange(1, 4, dtype=T.float64),
    "linspace": lambda T: T.linspace(0, 1, 5),
    "linspace_one": lambda T: T.linspace(-1, 1, 1),
    "zeros_like": lambda T: T.zeros_like(T.ones(2, dtype=T.int64)),
    "ones_like_dtype": lambda T: T.ones_like(T.ones(2), dtype=T.float64),
    "full_like": lambda T: T.full_like(T.ones(2, 2), 3.5),
    "rand_shape": lambda T: (T.rand(2, 3).shape, T.rand(2, 3).dtype),
    "randn_shape": lambda T: (T.randn(4).shape, T.randn(4, dtype=T.float64).dtype),
    "randint_shape": lambda T: (T.randint(0, 5, (3,)).shape, T.randint(5, (2, 2)).dtype),
    "rand_like": lambda T: (T.rand_like(T.ones(2, 2)).shape, T.randn_like(T.ones(3, dtype=T.float64)).dtype),
    "from_numpy": lambda T: T.from_numpy(np.arange(3.)),
    "as_tensor_list": lambda T: T.as_tensor([1, 2]),
    "as_tensor_dtype": lambda T: T.as_tensor(np.array([1., 2.]), dtype=T.float32),
    "scalar_int_promotes": lambda T: T.tensor([1, 2**40]),
}


@pytest.mark.parametrize("name", list(CREATION))
def test_creation(name):
    same_repr(CREATION[name])


def test_random_ranges_and_seed():
    R.manual_seed(0)
    a = R.rand(1000)
    assert a.min().item() >= 0 and a.max().item() < 1
    b = R.randint(3, 7, (1000,))
    assert b.dtype is R.int64 and b.min().item() >= 3 and b.max().item() <= 6
    n = R.randn(5000, dtype=R.float64)
    assert abs(n.mean().item()) < 0.1 and abs(n.std().item() - 1) < 0.1
    R.manual_seed(123)
    x = R.randn(3)
    R.manual_seed(123)
    assert R.equal(x, R.randn(3)) if hasattr(R, "equal") else (x.tolist() == R.randn(3).tolist())


def test_from_numpy_and_as_tensor_share_memory():
    a = np.zeros(3)
    t = R.from_numpy(a)
    a[0] = 5
    assert t[0].item() == 5.0
    t.add_(1)
    assert a.tolist() == [6.0, 1.0, 1.0]
    u = R.as_tensor(a)
    a[1] = 9
    assert u[1].item() == 9.0
    c = R.tensor(a)  # tensor() copies
    a[2] = -1
    assert c[2].item() == 1.0


CREATION_ERRORS = {
    "requires_grad_int": lambda T: T.tensor([1, 2], requires_grad=True),
    "requires_grad_int_method": lambda T: T.tensor([1, 2]).requires_grad_(),
    "requires_grad_bool_zeros": lambda T: T.zeros(2, dtype=T.bool, requires_grad=True),
    "ragged": lambda T: T.tensor([[1, 2], [3]]),
    "negative_dim": lambda T: T.zeros(-1),
    "arange_zero_step": lambda T: T.arange(0, 1, 0),
    "from_numpy_list": lambda T: T.from_numpy([1, 2]),
    "set_default_int": lambda T: T.set_default_dtype(T.int64),
}


@pytest.mark.parametrize("name", list(CREATION_ERRORS))
def test_creation_errors(name):
    same_error(CREATION_ERRORS[name])


# ------------------------------------------------------------------ dtypes
def test_dtype_attributes_and_aliases():
    for name in ["float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool"]:
        assert repr(getattr(R, name)) == repr(getattr(torch, name))
        assert getattr(R, name).is_floating_point == getattr(torch, name).is_floating_point
    assert R.float is R.float32 and R.double is R.float64 and R.long is R.int64 and R.int is R.int32
    assert R.half is R.float16 and R.short is R.int16


def test_default_dtype():
    assert R.get_default_dtype() is R.float32
    try:
        R.set_default_dtype(R.float64)
        assert R.tensor(1.).dtype is R.float64
        assert R.ones(2).dtype is R.float64
        assert R.tensor([1, 2]).dtype is R.int64
        assert (R.tensor([1, 2]) * 0.5).dtype is R.float64
        assert repr(R.tensor([1.5])) == "tensor([1.5000])"
        assert repr(R.tensor([1.5], dtype=R.float32)) == "tensor([1.5000], dtype=torch.float32)"
    finally:
        R.set_default_dtype(R.float32)
    assert R.tensor(1.).dtype is R.float32


@pytest.mark.parametrize("a,b", [("int8", "uint8"), ("int32", "float16"), ("bool", "int16"),
                                 ("float32", "float64"), ("uint8", "bool"), ("int64", "float32")])
def test_promote_types(a, b):
    assert repr(R.promote_types(getattr(R, a), getattr(R, b))) == \
        repr(torch.promote_types(getattr(torch, a), getattr(torch, b)))


def test_scalar_does_not_upcast():
    same_repr(lambda T: (T.ones(2, dtype=T.float16) * 1e3).dtype)
    same_repr(lambda T: (T.ones(2, dtype=T.int8) + 1000 * 0 + 5).dtype)
    same_repr(lambda T: (T.ones(2, dtype=T.int32) * 2.5).dtype)
    same_repr(lambda T: T.result_type(T.ones(2, dtype=T.int16), 3.0))


# ------------------------------------------------------------------ attributes and conversions
ATTRS = {
    "shape": lambda T: T.ones(2, 3).shape,
    "size": lambda T: T.ones(2, 3).size(),
    "size_dim": lambda T: (T.ones(2, 3).size(1), T.ones(2, 3).size(-2)),
    "shape_eq_tuple": lambda T: T.ones(2, 3).shape == (2, 3),
    "size_numel": lambda T: T.ones(2, 3).shape.numel(),
    "dim": lambda T: (T.ones(2, 3).dim(), T.ones(2, 3).ndim, T.tensor(1.).dim()),
    "numel": lambda T: (T.ones(2, 3).numel(), T.tensor(1.).numel(), T.zeros(0, 3).numel()),
    "dtype": lambda T: (T.ones(1).dtype, T.tensor([1]).dtype, T.tensor([True]).dtype),
    "device": lambda T: (T.ones(1).device, str(T.ones(1).device), T.ones(1).is_cuda),
    "device_arg": lambda T: T.ones(2, device="cpu").device,
    "device_obj": lambda T: (T.device("cpu"), T.device("cpu") == T.ones(1).device),
    "to_cpu": lambda T: T.ones(2).to("cpu"),
    "to_device_obj": lambda T: T.ones(2).to(T.device("cpu")),
    "item_float": lambda T: T.tensor(2.5).item(),
    "item_int": lambda T: T.tensor([7]).item(),
    "item_bool": lambda T: T.tensor(True).item(),
    "tolist": lambda T: T.tensor([[1., 2.], [3., 4.]]).tolist(),
    "tolist_0d": lambda T: T.tensor(3).tolist(),
    "float_conv": lambda T: (float(T.tensor(2.5)), int(T.tensor(3.7)), bool(T.tensor(0.))),
    "int_conv_neg": lambda T: int(T.tensor(-3.7)),
    "to_dtype_methods": lambda T: [T.tensor([1.7, -2.2]).float(), T.tensor([1.7, -2.2]).double(),
                                   T.tensor([1.7, -2.2]).long(), T.tensor([1.7, -2.2]).int(),
                                   T.tensor([1.7, 0.]).bool(), T.tensor([1, 0]).float()],
    "to_dtype": lambda T: (T.tensor([1, 2]).to(T.float64), T.tensor([1.5]).to(dtype=T.int64)),
    "to_same_is_self": lambda T: (lambda t: t.to(T.float32) is t)(T.ones(2)),
    "to_other": lambda T: T.ones(2).to(T.zeros(1, dtype=T.float64)),
    "to_grad": lambda T: T.ones(2, requires_grad=True).to(T.float64),
    "len": lambda T: (len(T.ones(3, 2)), len(T.zeros(0))),
    "iteration": lambda T: [r for r in T.tensor([[1., 2.], [3., 4.]])],
    "iteration_grad": lambda T: list(T.tensor([1., 2.], requires_grad=True) * 2),
    "bool_single": lambda T: (bool(T.tensor([1.])), bool(T.tensor(0))),
    "format_0d": lambda T: (f"{T.tensor(2.5):.3f}", f"{T.tensor(3)}", format(T.tensor(1.25), "")),
    "format_nd": lambda T: f"{T.tensor([1., 2.])}",
    "clone": lambda T: T.tensor([1., 2.]).clone(),
    "clone_grad": lambda T: T.tensor([1., 2.], requires_grad=True).clone(),
    "clone_independent": lambda T: (lambda a: (a.clone().add_(1), a))(T.tensor([1., 2.])),
    "array": lambda T: np.asarray(T.tensor([1., 2.])).tolist(),
    "array_dtype": lambda T: np.asarray(T.tensor([1, 2])).astype(np.float64).tolist(),
    "numpy": lambda T: T.tensor([1., 2.]).numpy().tolist(),
    "numpy_detached": lambda T: T.tensor([1., 2.], requires_grad=True).detach().numpy().dtype,
    "is_floating_point": lambda T: (T.ones(1).is_floating_point(), T.tensor([1]).is_floating_point()),
    "element_size": lambda T: (T.ones(1).element_size(), T.ones(1, dtype=T.float64).element_size()),
    "is_tensor": lambda T: (T.is_tensor(T.ones(1)), T.is_tensor([1])),
    "cuda_available": lambda T: (T.cuda.is_available(), T.backends.mps.is_available()),
    "contiguous_stride": lambda T: (T.ones(2, 3).stride(), T.ones(2, 3).t().is_contiguous()),
}


@pytest.mark.parametrize("name", list(ATTRS))
def test_attributes(name):
    same_repr(ATTRS[name])


def test_set_default_device_cpu():
    R.set_default_device("cpu")
    assert R.ones(1).device == R.device("cpu")


def test_numpy_shares_memory():
    t = R.tensor([1., 2.])
    n = t.numpy()
    n[0] = 10
    assert t[0].item() == 10.0


CONVERSION_ERRORS = {
    "numpy_requires_grad": lambda T: T.ones(2, requires_grad=True).numpy(),
    "item_many": lambda T: T.ones(2).item(),
    "float_many": lambda T: float(T.ones(2)),
    "bool_many": lambda T: bool(T.ones(2)),
    "bool_empty": lambda T: bool(T.ones(0)),
    "len_0d": lambda T: len(T.tensor(1.)),
    "iter_0d": lambda T: iter(T.tensor(1.)),
    "format_spec_nd": lambda T: f"{T.ones(2):.2f}",
    "size_bad_dim": lambda T: T.ones(2).size(1),
    "cuda": lambda T: T.ones(1).to("cuda"),
}


@pytest.mark.parametrize("name", list(CONVERSION_ERRORS))
def test_conversion_errors(name):
    same_error(CONVERSION_ERRORS[name])


# ------------------------------------------------------------------ autograd attributes
AUTOGRAD_ATTRS = {
    "leaf_defaults": lambda T: (lambda t: (t.requires_grad, t.is_leaf, t.grad, t.grad_fn))(T.ones(2)),
    "requires_grad_leaf": lambda T: (lambda t: (t.requires_grad, t.is_leaf, t.grad_fn))(
        T.ones(2, requires_grad=True)),
    "requires_grad_setter": lambda T: (lambda t: (setattr(t, "requires_grad", True), t)[1])(T.ones(2)),
    "requires_grad_false": lambda T: T.ones(2, requires_grad=True).requires_grad_(False),
    "nonleaf": lambda T: (lambda y: (y.requires_grad, y.is_leaf, y.grad_fn.name()))(
        T.ones(2, requires_grad=True) * 2),
    "nonleaf_requires_grad_true_ok": lambda T: (T.ones(2, requires_grad=True) * 2).requires_grad_(True),
    "no_grad_result": lambda T: (lambda x: (x * 2).requires_grad)(T.ones(1)),
    "detach": lambda T: (lambda y: (y, y.requires_grad, y.is_leaf, y.grad_fn))(
        (T.ones(2, requires_grad=True) * 2).detach()),
    "detach_shares": lambda T: (lambda x: (x.detach().zero_(), x))(T.ones(2, requires_grad=True) * 3),
    "detach_": lambda T: (lambda y: (y.detach_(), y.is_leaf, y.requires_grad))(T.ones(2, requires_grad=True) * 2),
    "data": lambda T: (lambda x: (x.data, x.data.requires_grad, x.data.is_leaf))(T.ones(2, requires_grad=True)),
    "data_set": lambda T: (lambda x: (setattr(x, "data", T.zeros(3)), x, x.requires_grad)[1:])(
        T.ones(2, requires_grad=True)),
    "data_write_no_version_bump": lambda T: (lambda x: (x.data.mul_(2), x._version))(T.ones(2)),
    "version": lambda T: (lambda x: (x._version, x.add_(1)._version, x.mul_(2)._version))(T.ones(2)),
    "retain_grad": lambda T: (lambda x: (lambda y: (y.retain_grad(), y.retains_grad, y.sum().backward(), y.grad))(
        x * 2))(T.ones(2, requires_grad=True)),
    "retain_grad_leaf": lambda T: (lambda x: (x.retain_grad(), x.retains_grad))(T.ones(2, requires_grad=True)),
    "grad_set": lambda T: (lambda x: (setattr(x, "grad", T.full((2,), 3.)), x.grad)[1])(
        T.ones(2, requires_grad=True)),
    "grad_set_none": lambda T: (lambda x: (x.sum().backward(), setattr(x, "grad", None), x.grad)[2])(
        T.ones(2, requires_grad=True)),
    "grad_fn_name_repr": lambda T: (lambda y: (y.grad_fn.name(), type(y.grad_fn).__name__, y))(
        T.tensor([1., 2.], requires_grad=True) + 1),
    "accumulate_grad_name": lambda T: (lambda y: (y.grad_fn.next_functions[0][0].name(),
                                                  type(y.grad_fn.next_functions[0][0]).__name__,
                                                  y.grad_fn.next_functions[1]))(T.ones(1, requires_grad=True) * 2),
    "accumulate_grad_variable": lambda T: (lambda x: ((x * 2).grad_fn.next_functions[0][0].variable is x))(
        T.ones(1, requires_grad=True)),
    "requires_grad_float_only_ok": lambda T: T.ones(2, dtype=T.float64, requires_grad=True),
}


@pytest.mark.parametrize("name", list(AUTOGRAD_ATTRS))
def test_autograd_attributes(name):
    same_repr(AUTOGRAD_ATTRS[name])


AUTOGRAD_ERRORS = {
    "set_requires_grad_nonleaf": lambda T: setattr(T.ones(2, requires_grad=True) * 2, "requires_grad", False),
    "requires_grad_false_nonleaf": lambda T: (T.ones(2, requires_grad=True) * 2).requires_grad_(False),
    "requires_grad_int_setter": lambda T: setattr(T.tensor([1]), "requires_grad", True),
    "retain_grad_no_grad": lambda T: T.ones(2).retain_grad(),
    "grad_wrong_shape": lambda T: setattr(T.ones(2, requires_grad=True), "grad", T.ones(3)),
    "grad_wrong_type": lambda T: setattr(T.ones(2, requires_grad=True), "grad", 3),
    "data_wrong_type": lambda T: setattr(T.ones(2), "data", [1, 2]),
}


@pytest.mark.parametrize("name", list(AUTOGRAD_ERRORS))
def test_autograd_attribute_errors(name):
    same_error(AUTOGRAD_ERRORS[name])


def _warnings_of(T):
    x = T.ones(2, requires_grad=True)
    y = x * 2
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        g = y.grad
        y.retain_grad()
        g2 = y.grad  # retained: no warning
        _ = x.grad  # leaf: no warning
    return g, g2, [(c.category.__name__, str(c.message)) for c in w]


def test_nonleaf_grad_warning_matches_torch():
    ours, theirs = _warnings_of(R), _warnings_of(torch)
    assert ours[:2] == (None, None) and theirs[:2] == (None, None)
    assert ours[2] == theirs[2]
    assert len(ours[2]) == 1 and ours[2][0][0] == "UserWarning"


def test_warning_points_at_user_code():
    y = R.ones(2, requires_grad=True) * 2
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        y.grad  # noqa: B018
    assert w[0].filename == __file__


# ------------------------------------------------------------------ printing
PRINTS = {
    "scalar": lambda T: T.tensor(3.14159),
    "vector": lambda T: T.tensor([1., 2.5, -3.]),
    "int": lambda T: T.tensor([[1, -2], [30, 4]]),
    "bool": lambda T: T.tensor([True, False]),
    "float64": lambda T: T.tensor([1.5, 2.], dtype=T.float64),
    "float16": lambda T: T.tensor([1.5, 2.], dtype=T.float16),
    "int32": lambda T: T.tensor([1, 2], dtype=T.int32),
    "uint8": lambda T: T.tensor([1, 255], dtype=T.uint8),
    "empty": lambda T: T.zeros(0),
    "empty_2d": lambda T: T.zeros(2, 0),
    "empty_int": lambda T: T.zeros(0, dtype=T.int64),
    "sci": lambda T: T.tensor([1e-8, 1.]),
    "big": lambda T: T.tensor([1e10, 1.]),
    "inf_nan": lambda T: T.tensor([float("inf"), float("nan"), -1.]),
    "large": lambda T: T.arange(2000.).reshape(2, 1000),
    "3d": lambda T: T.arange(24).reshape(2, 3, 4),
    "requires_grad": lambda T: T.ones(2, requires_grad=True),
    "grad_fn": lambda T: T.ones(2, requires_grad=True) * 2,
    "grad_fn_0d": lambda T: (T.ones(2, requires_grad=True) * 2).sum(),
    "grad_fn_f64": lambda T: T.ones(2, dtype=T.float64, requires_grad=True) + 1,
    "accumulate_grad_repr_prefix": lambda T: repr(
        (T.ones(1, requires_grad=True) * 2).grad_fn.next_functions[0][0]).split(" object")[0],
    "node_repr_prefix": lambda T: repr((T.ones(1, requires_grad=True) * 2).grad_fn).split(" object")[0],
    "size": lambda T: T.ones(2, 3).shape,
    "size_empty": lambda T: T.tensor(1.).shape,
    "dtype": lambda T: T.float64,
    "str": lambda T: str(T.tensor([1., 2.], requires_grad=True)),
    "print_list": lambda T: str([T.tensor(1.), T.tensor([2])]),
    "long_grad_line": lambda T: T.arange(12.).reshape(2, 6).requires_grad_() * 1000.5,
}


@pytest.mark.parametrize("name", list(PRINTS))
def test_printing_matches_torch(name):
    same_repr(PRINTS[name])


# ------------------------------------------------------------------ copy and pickle
def test_deepcopy_and_pickle_leaf():
    x = R.tensor([1., 2.], requires_grad=True)
    y = copy.deepcopy(x)
    assert y is not x and y.requires_grad and y.tolist() == [1., 2.]
    z = pickle.loads(pickle.dumps(x))
    assert z.requires_grad and z.tolist() == [1., 2.]


def test_deepcopy_nonleaf_fails_like_torch():
    same_error(lambda T: copy.deepcopy(T.ones(1, requires_grad=True) * 2))


def test_small_attributes():
    x = retrograd.arange(6.).reshape(2, 3)
    tx = torch.arange(6.).reshape(2, 3)
    assert x.is_cpu and not x.is_conj() and not x.is_neg()
    assert x.t().dim_order() == tx.t().dim_order() and x.dim_order() == tx.dim_order()
    assert x[1].storage_offset() == tx[1].storage_offset() == 3
    assert x.storage_offset() == 0
    assert x.conj() is x and x.resolve_conj() is x and x.real is x and retrograd.real(x) is x
    assert x.is_same_size(retrograd.zeros(2, 3)) and not x.is_same_size(retrograd.zeros(3, 2))
    assert x.nelement() == 6
    assert retrograd.is_nonzero(retrograd.tensor([3]))


def test_new_and_new_empty_strided():
    x = retrograd.zeros(2, dtype=retrograd.float64)
    tx = torch.zeros(2, dtype=torch.float64)
    for args in [(2, 3), ([1, 2],), ((2, 3),), ()]:
        a, b = x.new(*args), tx.new(*args)
        assert tuple(a.shape) == tuple(b.shape) and a.dtype == retrograd.float64
    assert x.new([1, 2]).tolist() == [1., 2.]
    assert tuple(x.new(retrograd.Size([2, 1])).shape) == (2, 1)
    e = x.new_empty_strided((2, 3), (1, 2))
    assert e.stride() == tx.new_empty_strided((2, 3), (1, 2)).stride() and e.dtype == retrograd.float64


def test_apply_and_map():
    for lib in (retrograd, torch):
        x = lib.arange(4.)
        assert x.apply_(lambda v: v * v) is x and x.tolist() == [0., 1., 4., 9.]
        x.map_(lib.tensor([1., 1., 1., 1.]), lambda a, b: a + b)
        assert x.tolist() == [1., 2., 5., 10.]


def _err(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        return type(e).__name__, str(e).split(" (Triggered")[0]
    return None


def test_set_default_tensor_type():
    try:
        with pytest.warns(UserWarning, match=r"set_default_tensor_type\(\) is deprecated as of PyTorch 2.1"):
            retrograd.set_default_tensor_type("torch.DoubleTensor")
        assert retrograd.get_default_dtype() == retrograd.float64
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            retrograd.set_default_tensor_type(retrograd.FloatTensor)
        assert retrograd.get_default_dtype() == retrograd.float32
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert _err(lambda: retrograd.set_default_tensor_type("torch.LongTensor")) == \
                _err(lambda: torch.set_default_tensor_type("torch.LongTensor"))
    finally:
        retrograd.set_default_dtype(retrograd.float32)
        torch.set_default_dtype(torch.float32)


def _outcome(f, T):
    try:
        return "ok", f(T)
    except Exception as exc:  # noqa: BLE001 - type and text compared with torch's
        return type(exc).__name__, str(exc)


@pytest.mark.parametrize("f", [
    lambda T: setattr(T.ones(2, requires_grad=True) * 2, "requires_grad", True),
    lambda T: setattr(T.ones(2, requires_grad=True) * 2, "requires_grad", False),
    lambda T: T.nn.Linear(3, 2)(T.ones(2, 3, dtype=T.int64)),
])
def test_messages_as_torch(f):
    assert _outcome(f, rg) == _outcome(f, torch)


def _outcome_client(fn):
    """(kind, payload) of calling fn: its value as nested lists + dtype name, or the exception."""
    try:
        r = fn()
    except Exception as e:  # noqa: BLE001 (the exception itself is compared)
        return ("exc", type(e).__name__, str(e))
    if hasattr(r, "dtype") and hasattr(r, "tolist"):
        return ("tensor", str(r.dtype).split(".")[-1], r.tolist())
    return ("value", r)


# ---------------------------------------------------------------- 4. legacy tensor types
LEGACY_CASES = {
    "names": lambda T: (T.FloatTensor.__name__, T.FloatTensor.__module__.replace("retrograd", "torch"),
                        type(T.FloatTensor).__name__, repr(T.FloatTensor).replace("retrograd", "torch")),
    "isinstance": lambda T: (isinstance(T.ones(2), T.FloatTensor), isinstance(T.ones(2, dtype=T.float64),
                             T.FloatTensor), isinstance(T.ones(2), T.DoubleTensor), isinstance(
                             T.nn.Parameter(T.ones(2)), T.FloatTensor), isinstance(1, T.FloatTensor),
                             isinstance(T.ones(1, dtype=T.int64), T.LongTensor), isinstance(T.ones(1), T.Tensor)),
    "not subclasses": lambda T: (issubclass(T.Tensor, T.FloatTensor), issubclass(T.FloatTensor, T.Tensor)),
    "attributes": lambda T: (str(T.FloatTensor.dtype).split(".")[1], T.FloatTensor.is_cuda,
                             T.FloatTensor.is_sparse),
    "sizes": lambda T: T.FloatTensor(2, 3).shape,
    "sizes type": lambda T: type(T.FloatTensor(2, 3)).__name__,
    "Size": lambda T: T.FloatTensor(T.Size([2, 3])).shape,
    "numpy int size": lambda T: T.FloatTensor(np.int64(2)).shape,
    "list": lambda T: T.FloatTensor([1, 2]),
    "tuple": lambda T: T.FloatTensor((1, 2)),
    "range": lambda T: T.FloatTensor(range(3)),
    "ndarray": lambda T: T.FloatTensor(np.ones(2)),
    "0-d ndarray": lambda T: T.FloatTensor(np.array(2.)),
    "empty": lambda T: T.FloatTensor(),
    "long from floats": lambda T: T.LongTensor([1.5, 2]),
    "int": lambda T: T.IntTensor([1]), "short": lambda T: T.ShortTensor([1]), "char": lambda T: T.CharTensor([1]),
    "byte": lambda T: T.ByteTensor([1, 2]), "bool": lambda T: T.BoolTensor([1, 0]),
    "half": lambda T: T.HalfTensor([1]), "double sizes": lambda T: (T.DoubleTensor(3).shape,
                                                                     T.DoubleTensor(3).dtype == T.float64),
    "same-dtype tensor": lambda T: T.FloatTensor(T.ones(2)),
    "tensor requiring grad": lambda T: (lambda r: (r.tolist(), type(r.grad_fn).__name__))(
        T.FloatTensor(T.ones(2, requires_grad=True))),
    "shares memory": lambda T: (lambda a: T.FloatTensor(a).data_ptr() == a.data_ptr())(T.ones(2)),
    "other-dtype tensor": lambda T: T.FloatTensor(T.ones(2, dtype=T.float64)),
    "0-d long tensor": lambda T: T.FloatTensor(T.tensor(2)),
    "float scalar": lambda T: T.FloatTensor(2.5), "bool scalar": lambda T: T.FloatTensor(True),
    "None": lambda T: T.FloatTensor(None), "str": lambda T: T.FloatTensor("a"),
    "dtype kwarg": lambda T: T.FloatTensor([1], dtype=T.float64),
    "requires_grad kwarg": lambda T: T.FloatTensor([1.], requires_grad=True),
    "device kwarg": lambda T: T.FloatTensor([1], device="cpu"),
    "negative size": lambda T: T.FloatTensor(2, -3),
    "size then list": lambda T: T.FloatTensor(2, [1]),
    "size then None": lambda T: T.FloatTensor(2, None),
    "ragged": lambda T: T.FloatTensor([[1], [2, 3]]),
    "type(FloatTensor)": lambda T: T.ones(2).type(T.FloatTensor),
    "type(DoubleTensor)": lambda T: T.ones(2).type(T.DoubleTensor),
    "type(LongTensor)": lambda T: T.ones(2).type(T.LongTensor),
    "type('torch.DoubleTensor')": lambda T: T.ones(2).type("torch.DoubleTensor"),
    "type(Tensor)": lambda T: T.ones(2, dtype=T.float64).type(T.Tensor),
    "type same is self": lambda T: (lambda x: x.type(T.FloatTensor) is x)(T.ones(2)),
    "type keeps grad": lambda T: (lambda r: (r.dtype == T.float64, type(r.grad_fn).__name__))(
        T.ones(2, requires_grad=True).type(T.DoubleTensor, non_blocking=True)),
    "type bad": lambda T: T.ones(2).type(int),
    "typename": lambda T: T.typename(T.FloatTensor([1])),
}


@pytest.mark.parametrize("case", list(LEGACY_CASES))
def test_legacy_tensor_types_like_torch(case):
    fn = LEGACY_CASES[case]
    assert _outcome_client(lambda: fn(rg)) == _outcome_client(lambda: fn(torch))
