"""Top-level names and Tensor methods added to match torch 2.13's namespace (task h14):
autocast state functions, DLPack, torch.signal.windows, torch.overrides, Tensor.resize /
resize_as / igamma_ / igammac_ / conj_physical_ / storage_type, removed linalg functions,
and the checks of new ops that tests/op_db cannot express (errors, bookkeeping outputs)."""
import warnings

import numpy as np
import pytest

import retrograd

torch = pytest.importorskip("torch")


def _np(t):
    return t.detach().numpy() if hasattr(t, "detach") else np.asarray(t)


def _err(fn_r, fn_t):
    with pytest.raises(Exception) as er:
        fn_r()
    with pytest.raises(Exception) as et:
        fn_t()
    assert type(er.value).__name__ == type(et.value).__name__
    return str(er.value), str(et.value)


# ------------------------------------------------------------------ namespace
NAMES = ["from_dlpack", "to_dlpack", "convolution", "embedding_bag", "ctc_loss", "native_layer_norm",
         "native_batch_norm", "native_group_norm", "native_dropout", "native_channel_shuffle", "grid_sampler",
         "grid_sampler_2d", "grid_sampler_3d", "affine_grid_generator", "lstm_cell", "gru_cell", "rnn_tanh_cell",
         "rnn_relu_cell", "lstm", "gru", "rnn_tanh", "rnn_relu", "binomial", "empty_permuted", "as_strided_copy",
         "as_strided_scatter", "detach_copy", "is_conj", "is_neg", "set_flush_denormal", "histogramdd",
         "slice_inverse", "norm_except_dim", "set_autocast_enabled", "set_autocast_dtype",
         "get_autocast_cpu_dtype", "is_autocast_cpu_enabled", "set_autocast_cpu_enabled", "set_autocast_cpu_dtype",
         "get_autocast_gpu_dtype", "set_autocast_gpu_dtype", "get_autocast_ipu_dtype", "is_autocast_xla_enabled",
         "is_autocast_cache_enabled", "set_autocast_cache_enabled", "clear_autocast_cache",
         "autocast_increment_nesting", "autocast_decrement_nesting", "lstsq", "solve", "symeig", "eig",
         "signal", "overrides"]
METHODS = ["resize", "resize_as", "igamma_", "igammac_", "conj_physical_", "storage_type", "lstsq", "solve",
           "symeig", "eig"]


def test_names_exist_in_both():
    for n in NAMES:
        assert hasattr(torch, n), n
        assert hasattr(retrograd, n), n
    for n in METHODS:
        assert hasattr(torch.Tensor, n), n
        assert hasattr(retrograd.Tensor, n), n


# ------------------------------------------------------------------ autocast state
def _autocast_trace(lib):
    out = []
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        out.append(str(lib.get_autocast_cpu_dtype()).split(".")[-1])
        out.append(str(lib.get_autocast_gpu_dtype()).split(".")[-1])
        out.append(str(lib.get_autocast_xla_dtype()).split(".")[-1])
        out.append(lib.is_autocast_cpu_enabled())
        lib.set_autocast_enabled("cpu", True)
        out.append(lib.is_autocast_enabled("cpu"))
        out.append(lib.is_autocast_cpu_enabled())
        lib.set_autocast_enabled("cpu", False)
        lib.set_autocast_cpu_enabled(True)
        out.append(lib.is_autocast_enabled("cpu"))
        lib.set_autocast_cpu_enabled(False)
        lib.set_autocast_dtype("cpu", lib.float16)
        out.append(str(lib.get_autocast_dtype("cpu")).split(".")[-1])
        lib.set_autocast_cpu_dtype(lib.bfloat16)
        out.append(str(lib.get_autocast_cpu_dtype()).split(".")[-1])
        with lib.autocast("cpu", dtype=lib.float16, enabled=False):
            out.append(str(lib.get_autocast_dtype("cpu")).split(".")[-1])
        out.append(str(lib.get_autocast_dtype("cpu")).split(".")[-1])
        out.append(lib.is_autocast_cache_enabled())
        lib.set_autocast_cache_enabled(False)
        out.append(lib.is_autocast_cache_enabled())
        lib.set_autocast_cache_enabled(True)
        lib.clear_autocast_cache()
        out.append((lib.autocast_increment_nesting(), lib.autocast_decrement_nesting()))
    msgs = sorted({str(x.message).split(" (Triggered")[0] for x in w if x.category is DeprecationWarning})
    return out, msgs


def test_autocast_state_functions_match_torch():
    assert _autocast_trace(retrograd) == _autocast_trace(torch)


def test_autocast_state_errors():
    for call in (lambda L: L.set_autocast_enabled("cpu"), lambda L: L.set_autocast_dtype("cpu", 3),
                 lambda L: L.set_autocast_dtype("foo", L.float16), lambda L: L.set_autocast_enabled("foo", True),
                 lambda L: L.set_autocast_cpu_enabled(1.5)):
        r, t = _err(lambda: call(retrograd), lambda: call(torch))
        assert r == t


# ------------------------------------------------------------------ dlpack, flush denormal
def test_dlpack_top_level_round_trip_with_torch():
    x = retrograd.arange(4.)
    t = torch.from_dlpack(retrograd.to_dlpack(x))
    t[0] = 7.
    assert x[0].item() == 7.
    y = retrograd.from_dlpack(torch.arange(3.))
    assert y.tolist() == [0., 1., 2.]


def test_set_flush_denormal_argument_check():
    # NumPy cannot switch the CPU's flush-to-zero mode: retrograd reports False (torch: True on x86)
    assert retrograd.set_flush_denormal(False) is False
    for bad in (1, "a"):
        r, t = _err(lambda: retrograd.set_flush_denormal(bad), lambda: torch.set_flush_denormal(bad))
        assert r == t


# ------------------------------------------------------------------ Tensor methods
def test_resize_and_resize_as():
    for lib in (retrograd, torch):
        x = lib.arange(6., requires_grad=True)
        with pytest.warns(UserWarning, match="non-inplace resize is deprecated"):
            y = x.resize(2, 3)
        assert tuple(y.shape) == (2, 3) and type(y.grad_fn).__name__ == "ResizeBackward"
        (y * lib.arange(6.).reshape(2, 3)).sum().backward()
        assert x.grad.tolist() == [0., 1., 2., 3., 4., 5.]
        with pytest.warns(UserWarning, match="non-inplace resize_as is deprecated"):
            assert tuple(x.detach().resize_as(lib.zeros(3, 2)).shape) == (3, 2)
    for args in ((2, 2), ((3, 2),), (7,)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r, t = _err(lambda: retrograd.arange(6.).resize(*args), lambda: torch.arange(6.).resize(*args))
        assert r == t


def test_igamma_inplace_and_conj_physical_():
    a = np.array([0.5, 1., 2.5, 4.])
    b = np.array([1., 0.3, 2., 5.])
    for name in ("igamma_", "igammac_"):
        r = getattr(retrograd.tensor(a), name)(retrograd.tensor(b))
        t = getattr(torch.tensor(a), name)(torch.tensor(b))
        np.testing.assert_allclose(_np(r), _np(t), rtol=1e-10)
    x = retrograd.tensor([1., -2.])
    assert x.conj_physical_() is x and x.tolist() == [1., -2.]
    assert retrograd.conj_physical_(x) is x and torch.conj_physical_(torch.ones(1)).tolist() == [1.]
    b = retrograd.arange(6.)
    assert b[1:4].slice_inverse(b, 0, 1, 4).tolist() == list(range(6))
    assert retrograd.zeros(4).as_strided_scatter(retrograd.ones(2), (2,), (2,), 1).tolist() == \
        torch.zeros(4).as_strided_scatter(torch.ones(2), (2,), (2,), 1).tolist()
    r, t = _err(lambda: retrograd.ones(2, requires_grad=True).igamma_(retrograd.ones(2)),
                lambda: torch.ones(2, requires_grad=True).igamma_(torch.ones(2)))
    assert r == t


def test_storage_type():
    for dt in ("float32", "float64", "int64", "bool", "uint8"):
        r = retrograd.zeros(1, dtype=getattr(retrograd, dt)).storage_type()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t = torch.zeros(1, dtype=getattr(torch, dt)).storage_type()
        assert r.__name__ == t.__name__


@pytest.mark.parametrize("name", ["lstsq", "solve", "symeig", "eig"])
def test_removed_linalg_functions(name):
    x = retrograd.eye(2)
    r, t = _err(lambda: getattr(retrograd, name)(x, x), lambda: getattr(torch, name)(torch.eye(2), torch.eye(2)))
    assert r.split(". ")[0] == t.split(". ")[0] == "This function was deprecated since version 1.9 and is now removed"
    args = (x,) if name in ("lstsq", "solve") else ()
    targs = (torch.eye(2),) if args else ()
    r2, _ = _err(lambda: getattr(x, name)(*args), lambda: getattr(torch.eye(2), name)(*targs))
    assert r2 == r


# ------------------------------------------------------------------ signal.windows
WINDOWS = [("bartlett", {}), ("blackman", {}), ("cosine", {}), ("exponential", {"tau": 2.0}),
           ("gaussian", {"std": 1.5}), ("general_cosine", {"a": [0.4, 0.3, 0.2]}), ("general_hamming", {"alpha": 0.6}),
           ("hamming", {}), ("hann", {}), ("kaiser", {"beta": 5.0}), ("nuttall", {})]


@pytest.mark.parametrize("name,kw", WINDOWS)
def test_signal_windows_values(name, kw):
    for M in (0, 1, 2, 5, 8):
        for sym in (True, False):
            for dt, tol in (("float64", 1e-12), ("float32", 1e-6)):
                r = getattr(retrograd.signal.windows, name)(M, sym=sym, dtype=getattr(retrograd, dt), **kw)
                t = getattr(torch.signal.windows, name)(M, sym=sym, dtype=getattr(torch, dt), **kw)
                assert str(r.dtype).split(".")[-1] == dt
                np.testing.assert_allclose(_np(r), _np(t), atol=tol, rtol=tol)
    assert str(getattr(retrograd.signal.windows, name)(4, **kw).dtype) == "torch.float32"


def test_signal_windows_errors_and_center():
    W, TW = retrograd.signal.windows, torch.signal.windows
    np.testing.assert_allclose(_np(W.exponential(5, sym=False, center=1.)),
                               _np(TW.exponential(5, sym=False, center=1.)), atol=1e-6)
    for call in (lambda w, L: w.hann(-1), lambda w, L: w.hann(3, dtype=L.int64), lambda w, L: w.kaiser(3, beta=-1.),
                 lambda w, L: w.exponential(3, center=1.), lambda w, L: w.exponential(3, tau=0.),
                 lambda w, L: w.gaussian(3, std=0.), lambda w, L: w.general_cosine(3, a=3),
                 lambda w, L: w.general_cosine(3, a=[]), lambda w, L: w.kaiser(5, dtype=L.float16),
                 lambda w, L: w.bartlett(-2)):
        r, t = _err(lambda: call(W, retrograd), lambda: call(TW, torch))
        assert r == t.replace("torch.", "torch.")


# ------------------------------------------------------------------ overrides
class _Wrapper:
    def __init__(self, v):
        self.v = v

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return ("handled", func.__name__, len(args))


def test_overrides_helpers():
    for lib in (retrograd, torch):
        O = lib.overrides
        x, w = lib.ones(1), _Wrapper(1)
        assert O.has_torch_function((x,)) is False
        assert O.has_torch_function((x, w)) is True
        assert O.has_torch_function_unary(w) and not O.has_torch_function_unary(x)
        assert O.has_torch_function_variadic(x, w)
        assert O.is_tensor_like(x) and O.is_tensor_like(w) and not O.is_tensor_like(1.0)

        def f(a, b):
            return O.handle_torch_function(f, (a, b), a, b)
        assert f(x, w) == ("handled", "f", 2)
        assert lib.typename in O.get_ignored_functions()


def test_handle_torch_function_all_not_implemented():
    class Refuses:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return NotImplemented

    def g(a):
        return retrograd.overrides.handle_torch_function(g, (a,), a)
    with pytest.raises(TypeError, match="no implementation found for"):
        g(Refuses())


# ------------------------------------------------------------------ op checks beyond op_db
def test_as_strided_scatter_offset_and_self_grad():
    # torch's own as_strided_scatter backward for self is wrong; the clone + copy_ form is the oracle
    xs = np.random.default_rng(0).standard_normal(6)
    g = np.arange(6.)
    x = retrograd.tensor(xs, requires_grad=True)
    y = retrograd.as_strided_scatter(x, retrograd.ones(3), (3,), (2,), 1)
    tx = torch.tensor(xs, requires_grad=True)
    ty = torch.as_strided_scatter(tx.detach(), torch.ones(3, dtype=torch.float64), (3,), (2,), 1)
    np.testing.assert_allclose(_np(y), _np(ty))
    y.backward(retrograd.tensor(g))
    z = tx.clone()
    z.as_strided((3,), (2,), 1).copy_(torch.ones(3))
    z.backward(torch.tensor(g))
    np.testing.assert_allclose(_np(x.grad), _np(tx.grad))
    r, t = _err(lambda: retrograd.as_strided_scatter(retrograd.zeros(4), retrograd.ones(3), (2,), (2,)),
                lambda: torch.as_strided_scatter(torch.zeros(4), torch.ones(3), (2,), (2,)))
    assert r == t


def test_empty_permuted_strides_and_errors():
    for size, perm in (((2, 3, 4), (0, 2, 1)), ((2, 3, 4), (2, 0, 1)), ((5,), (0,))):
        assert retrograd.empty_permuted(size, perm).stride() == torch.empty_permuted(size, perm).stride()
    r, t = _err(lambda: retrograd.empty_permuted((2, 3), (0,)), lambda: torch.empty_permuted((2, 3), (0,)))
    assert r == t


def test_binomial_errors_and_is_conj_type_check():
    for call in (lambda L: L.binomial(L.tensor([10, 5]), L.tensor([.5, .2])),
                 lambda L: L.is_conj(1), lambda L: L.is_neg([1.])):
        r, t = _err(lambda: call(retrograd), lambda: call(torch))
        assert r == t


def test_embedding_bag_bookkeeping_outputs():
    w = np.random.default_rng(1).standard_normal((10, 3))
    idx, off = [1, 2, 4, 5, 4, 3], [0, 3]
    for dt in ("float32", "float64"):
        for mode in (0, 1, 2):
            r = retrograd.embedding_bag(retrograd.tensor(w, dtype=getattr(retrograd, dt)), retrograd.tensor(idx),
                                        retrograd.tensor(off), False, mode)
            t = torch.embedding_bag(torch.tensor(w, dtype=getattr(torch, dt)), torch.tensor(idx),
                                    torch.tensor(off), False, mode)
            for a, b in zip(r[1:], t[1:]):
                assert a.tolist() == b.tolist(), (dt, mode)


def test_native_dropout_masks_and_grid_sampler_errors():
    retrograd.manual_seed(5)
    torch.manual_seed(5)
    r = retrograd.native_dropout(retrograd.ones(20), 0.3, True)
    t = torch.native_dropout(torch.ones(20), 0.3, True)
    assert r[1].tolist() == t[1].tolist() and str(r[1].dtype) == "torch.bool"
    np.testing.assert_allclose(_np(r[0]), _np(t[0]), rtol=1e-6)
    for call in (lambda L: L.grid_sampler_2d(L.ones(1, 1, 3, 3, 3), L.zeros(1, 2, 2, 2, 3), 0, 0, False),
                 lambda L: L.grid_sampler_3d(L.ones(1, 1, 3, 3), L.zeros(1, 2, 2, 2), 0, 0, False),
                 lambda L: L.convolution(L.ones(2, 5), L.ones(3, 2, 2), None, [1], [0], [1], False, [0], 1)):
        r, t = _err(lambda: call(retrograd), lambda: call(torch))
        assert r == t


def test_functional_lstm_matches_module_with_projection():
    torch.manual_seed(0)
    m = torch.nn.LSTM(3, 4, proj_size=2, num_layers=2, bidirectional=True).double()
    x = torch.randn(5, 2, 3, dtype=torch.float64)
    h0 = torch.randn(4, 2, 2, dtype=torch.float64)
    c0 = torch.randn(4, 2, 4, dtype=torch.float64)
    want = torch.lstm(x, [h0, c0], list(m._flat_weights), True, 2, 0.0, False, True, False)
    R = retrograd
    params = [R.tensor(p.detach().numpy()) for p in m._flat_weights]
    got = R.lstm(R.tensor(x.numpy()), [R.tensor(h0.numpy()), R.tensor(c0.numpy())], params, True, 2, 0.0, False,
                 True, False)
    for a, b in zip(got, want):
        np.testing.assert_allclose(_np(a), _np(b), rtol=1e-10, atol=1e-12)
