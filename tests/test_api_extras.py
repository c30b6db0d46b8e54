"""Checks against torch for src/retrograd/_ops/api_extras.py and the settings/creation helpers
added to src/retrograd/_compat.py: windows (all dtypes, lengths 0/1), gradient with coordinate
spacing, view copies being fresh, frombuffer, empty_strided, settings and error messages."""
import warnings

import numpy as np
import pytest

import retrograd

torch = pytest.importorskip("torch")


def _err(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        return type(e).__name__, str(e).split(" (Triggered")[0]
    return None


@pytest.mark.parametrize("name", ["hann_window", "hamming_window", "blackman_window", "bartlett_window",
                                  "kaiser_window"])
@pytest.mark.parametrize("n", [0, 1, 2, 7, 16])
@pytest.mark.parametrize("periodic", [True, False])
def test_windows(name, n, periodic):
    for rd, td in [(retrograd.float64, torch.float64), (retrograd.float32, torch.float32)]:
        r = getattr(retrograd, name)(n, periodic, dtype=rd)
        t = getattr(torch, name)(n, periodic, dtype=td)
        assert r.dtype == rd and tuple(r.shape) == tuple(t.shape)
        np.testing.assert_allclose(r.numpy(), t.numpy(), atol=1e-6 if rd == retrograd.float32 else 1e-14)
    r = getattr(retrograd, name)(n, periodic, requires_grad=True)
    assert r.requires_grad and r.dtype == retrograd.float32


def test_window_errors():
    assert _err(lambda: retrograd.hann_window(-1)) == _err(lambda: torch.hann_window(-1))
    assert _err(lambda: retrograd.hann_window(3, dtype=retrograd.int64)) == \
        _err(lambda: torch.hann_window(3, dtype=torch.int64))


@pytest.mark.parametrize("edge_order", [1, 2])
def test_gradient_coordinates_and_grad(edge_order):
    x = np.random.default_rng(0).standard_normal((4, 5))
    c0, c1 = np.array([0., 0.5, 1.5, 3.0]), np.array([0., 1., 1.2, 2., 4.])
    r = retrograd.tensor(x, requires_grad=True)
    t = torch.tensor(x, requires_grad=True)
    ro = retrograd.gradient(r, spacing=(retrograd.tensor(c0), retrograd.tensor(c1)), edge_order=edge_order)
    to = torch.gradient(t, spacing=(torch.tensor(c0), torch.tensor(c1)), edge_order=edge_order)
    assert isinstance(ro, tuple) and len(ro) == 2
    for a, b in zip(ro, to):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), atol=1e-12)
    (ro[0] * ro[1]).sum().backward()
    (to[0] * to[1]).sum().backward()
    np.testing.assert_allclose(r.grad.numpy(), t.grad.numpy(), atol=1e-12)


def test_gradient_errors():
    assert _err(lambda: retrograd.gradient(retrograd.ones(2), edge_order=2)) == \
        _err(lambda: torch.gradient(torch.ones(2), edge_order=2))
    assert _err(lambda: retrograd.gradient(retrograd.ones(3, 3), spacing=[1., 2., 3.])) == \
        _err(lambda: torch.gradient(torch.ones(3, 3), spacing=[1., 2., 3.]))


def test_copies_are_fresh_and_contiguous():
    x = retrograd.arange(6.).reshape(2, 3)
    y = retrograd.t_copy(x)
    y[0, 0] = 100.
    assert x[0, 0].item() == 0.0 and y.is_contiguous()
    z = retrograd.view_copy(x, (3, 2))
    z.fill_(1.)
    assert x.sum().item() == 15.0
    assert all(p._base is None for p in retrograd.split_copy(x, 1))


def test_toplevel_loss_default_reduction_is_none_like_torch():
    x, y = np.random.default_rng(1).standard_normal((2, 3)), np.random.default_rng(2).random((2, 3))
    for name in ["kl_div", "binary_cross_entropy_with_logits", "hinge_embedding_loss"]:
        r = getattr(retrograd, name)(retrograd.tensor(x), retrograd.tensor(y))
        t = getattr(torch, name)(torch.tensor(x), torch.tensor(y))
        assert tuple(r.shape) == tuple(t.shape) == (2, 3)
        np.testing.assert_allclose(r.numpy(), t.numpy(), atol=1e-12)


def test_feature_dropout_training_zeroes_whole_channels():
    x = retrograd.ones(4, 6, 3)
    y = retrograd.feature_dropout(x, 0.5, True)
    v = y.numpy()
    assert set(np.unique(v)) <= {0.0, 2.0}
    assert (v == v[:, :, :1]).all()


def test_settings():
    assert retrograd.get_float32_matmul_precision() == torch.get_float32_matmul_precision() == "highest"
    retrograd.set_float32_matmul_precision("high")
    assert retrograd.get_float32_matmul_precision() == "high"
    with pytest.warns(UserWarning, match="foo is not one of 'highest', 'high', or 'medium'"):
        retrograd.set_float32_matmul_precision("foo")
    assert retrograd.get_float32_matmul_precision() == "high"
    retrograd.set_float32_matmul_precision("highest")
    assert retrograd.get_deterministic_debug_mode() == 0 and not retrograd.are_deterministic_algorithms_enabled()
    retrograd.set_deterministic_debug_mode("warn")
    assert retrograd.get_deterministic_debug_mode() == 1
    assert retrograd.is_deterministic_algorithms_warn_only_enabled()
    retrograd.set_deterministic_debug_mode(2)
    assert retrograd.get_deterministic_debug_mode() == 2 and retrograd.are_deterministic_algorithms_enabled()
    retrograd.set_deterministic_debug_mode(0)
    assert not retrograd.are_deterministic_algorithms_enabled()
    for bad in ["bad", 5]:
        assert _err(lambda: retrograd.set_deterministic_debug_mode(bad)) == \
            _err(lambda: torch.set_deterministic_debug_mode(bad))
    retrograd.set_warn_always(True)
    assert retrograd.is_warn_always_enabled()
    retrograd.set_warn_always(False)
    assert not retrograd.is_warn_always_enabled()
    assert isinstance(retrograd.compiled_with_cxx11_abi(), bool)
    assert retrograd.get_num_interop_threads() >= 1
    x = retrograd.ones(2)
    assert retrograd.get_device(x) == -1 and retrograd.is_signed(x) and not retrograd.is_inference(x)
    assert not retrograd.is_signed(retrograd.ones(2, dtype=retrograd.uint8))
    assert _err(lambda: retrograd.get_device(3)) == _err(lambda: torch.get_device(3))


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


def test_frombuffer_and_empty_strided():
    buf = bytearray(np.arange(4, dtype=np.int32).tobytes())
    r = retrograd.frombuffer(buf, dtype=retrograd.int32, count=2, offset=4)
    t = torch.frombuffer(bytearray(buf), dtype=torch.int32, count=2, offset=4)
    assert r.tolist() == t.tolist() and r.dtype == retrograd.int32
    assert retrograd.frombuffer(memoryview(buf), dtype=retrograd.float32).shape == (4,)
    for kw in [dict(count=5), dict(offset=16), dict(offset=-1), dict(count=0)]:
        assert _err(lambda: retrograd.frombuffer(buf, dtype=retrograd.int32, **kw)) == \
            _err(lambda: torch.frombuffer(bytearray(buf), dtype=torch.int32, **kw))
    e = retrograd.empty_strided((2, 3), (1, 2), dtype=retrograd.float64)
    assert e.shape == (2, 3) and e.stride() == (1, 2) and e.dtype == retrograd.float64
