"""Fixes found by running PyTorch's own test/nn/*.py files on retrograd, checked against torch.

Covers: the test helpers those files import (``common_nn``, ``swap``, ``torch.__future__``),
``nn.modules.utils``, load-state-dict pre-hooks (private API, weak module reference, pickling),
global registration hooks, lazy modules refusing share_memory / jit.script / weight_norm,
PackedSequence casts and errors, parametrize errors / pickling / weight_norm checkpoints, and
embedding / embedding_bag checks.
"""
from __future__ import annotations

import copy
import gc
import pickle
import unittest
import weakref

import numpy as np
import pytest

import retrograd as rg
import retrograd.__future__ as rg_future
from parity import error_of, same_error

torch = pytest.importorskip("torch")


def _n(t):
    return t.detach().numpy()


def _both(fn):
    """fn(lib) on retrograd and on torch."""
    return fn(rg), fn(torch)


# ------------------------------------------------------------------ test-infrastructure names
def test_future_flags_match_torch():
    import torch.__future__ as tf

    for name in ("swap", "overwrite"):
        get_rg = getattr(rg_future, f"get_{name}_module_params_on_conversion")
        get_t = getattr(tf, f"get_{name}_module_params_on_conversion")
        assert get_rg() is False and get_rg() == get_t()
        getattr(rg_future, f"set_{name}_module_params_on_conversion")(True)
        try:
            assert get_rg() is True
        finally:
            getattr(rg_future, f"set_{name}_module_params_on_conversion")(False)
        assert get_rg() is False


def test_swap_parametrizer_names_and_restores_flag():
    from retrograd.testing._internal.common_utils import instantiate_parametrized_tests, swap

    seen = []

    @instantiate_parametrized_tests
    class T(unittest.TestCase):
        @swap([True, False])
        def test_flag(self):
            seen.append(rg_future.get_swap_module_params_on_conversion())

    names = sorted(n for n in dir(T) if n.startswith("test_"))
    assert names == ["test_flag_swap_False", "test_flag_swap_True"]
    result = unittest.TestResult()
    unittest.defaultTestLoader.loadTestsFromTestCase(T).run(result)
    assert result.wasSuccessful() and sorted(seen) == [False, True]
    assert rg_future.get_swap_module_params_on_conversion() is False


@pytest.fixture(scope="module")
def torch_basic_net():
    # torch's own helper needs its test-only dependencies; this is the structure it builds
    def make(nn, T):
        class Layer(nn.Module):
            def __init__(self):
                super().__init__()
                self.layer_dummy_param = nn.Parameter(T.empty(3, 5))
                self.layer_dummy_buf = nn.Buffer(T.zeros(1, 3, 3, 7))

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.l1 = Layer()
                self.dummy_param = nn.Parameter(T.empty(3, 5))
                self.dummy_buf = nn.Buffer(T.zeros(7, 3, 3, 1))

        layer, net = Layer(), Net()
        return layer, net, nn.Sequential(net, net)

    return make(torch.nn, torch)


def test_create_basic_net_structure(torch_basic_net):
    from retrograd.testing._internal.common_nn import NNTestCase, _create_basic_net

    mine = _create_basic_net()
    for m, t in zip(mine, torch_basic_net):
        assert [(k, tuple(v.shape)) for k, v in m.named_parameters()] == \
            [(k, tuple(v.shape)) for k, v in t.named_parameters()]
        assert [(k, tuple(v.shape)) for k, v in m.named_buffers()] == \
            [(k, tuple(v.shape)) for k, v in t.named_buffers()]
        assert [k for k, _ in m.named_modules()] == [k for k, _ in t.named_modules()]
    assert issubclass(NNTestCase, unittest.TestCase)
    case = NNTestCase()
    assert tuple(case._jacobian((rg.ones(2, 3), [rg.ones(4)]), 5)[0].shape) == (6, 5)
    assert tuple(case._flatten_tensors(rg.ones(2, 3)).shape) == (6,)


def test_two_tensor_placeholder_raises():
    from retrograd.testing._internal.two_tensor import TwoTensor

    with pytest.raises(NotImplementedError, match="wrapper tensor subclasses"):
        TwoTensor(rg.ones(1), rg.ones(1))


def test_dtype2prec_and_rocm_flag():
    from retrograd.testing._internal.common_device_type import TEST_WITH_ROCM
    from retrograd.testing._internal.common_utils import dtype2prec_DONTUSE

    assert TEST_WITH_ROCM is False
    assert dtype2prec_DONTUSE[rg.float32] == 1e-5 and dtype2prec_DONTUSE[rg.float16] == 1e-2


# ------------------------------------------------------------------ nn.modules.utils
def test_consume_prefix_matches_torch():
    def run(T):
        sd = T.nn.Linear(2, 2).state_dict()
        sd2 = type(sd)()
        sd2._metadata = type(sd._metadata)()
        for k in sd:
            sd2["module." + k] = sd[k]
        sd2._metadata["module"] = {"version": 1}
        sd2._metadata["module.sub"] = {"version": 2}
        sd2._metadata[""] = {"version": 3}
        T.nn.modules.utils.consume_prefix_in_state_dict_if_present(sd2, "module.")
        return list(sd2.keys()), dict(sd2._metadata)

    assert run(rg) == run(torch)
    assert rg.nn.utils.__name__ == "retrograd.nn.utils"  # nn.utils is not shadowed by modules.utils
    assert rg.nn.modules.utils._pair(3) == torch.nn.modules.utils._pair(3)
    assert rg.nn.modules.utils._reverse_repeat_tuple((1, 2), 2) == torch.nn.modules.utils._reverse_repeat_tuple((1, 2), 2)


# ------------------------------------------------------------------ load_state_dict pre-hooks
def test_private_load_pre_hook_with_and_without_module():
    def run(T):
        calls = []
        m = T.nn.Linear(3, 3)
        sd = m.state_dict()
        m._register_load_state_dict_pre_hook(lambda sd_, prefix, *rest: calls.append(("plain", prefix, len(rest))))
        m._register_load_state_dict_pre_hook(
            lambda mod, sd_, prefix, *rest: calls.append(("mod", mod is m, prefix, len(rest))), True)
        m.register_load_state_dict_pre_hook(lambda mod, sd_, prefix, *rest: calls.append(("pub", mod is m)))
        m.load_state_dict(sd)
        return calls

    assert run(rg) == run(torch)


def _hook_for_pickle(*args, **kwargs):
    pass


def test_pre_hook_holds_module_weakly_and_pickles():
    for T in (rg, torch):
        try:
            gc.disable()
            m = T.nn.Linear(2, 2)
            m._register_load_state_dict_pre_hook(_hook_for_pickle, True)
            ref = weakref.ref(m)
            del m
            assert ref() is None
        finally:
            gc.enable()
    m = rg.nn.Linear(2, 2)
    m._register_load_state_dict_pre_hook(_hook_for_pickle, True)
    m2 = pickle.loads(pickle.dumps(m))
    m2.load_state_dict(m2.state_dict())
    m3 = copy.deepcopy(m)
    hook = next(iter(m3._load_state_dict_pre_hooks.values()))
    assert hook.module() is m3


# ------------------------------------------------------------------ registration hooks
@pytest.mark.parametrize("kind", ["buffer", "parameter", "module"])
def test_global_registration_hooks_match_torch(kind):
    def run(T):
        seen = []

        def hook(module, name, value):
            seen.append((type(module).__name__, name))
            if kind == "buffer":
                return value + 1  # a returned value replaces the registered one

        register = getattr(T.nn.modules.module, f"register_module_{kind}_registration_hook")
        handle = register(hook)
        try:
            net = T.nn.Sequential(T.nn.Linear(2, 2), T.nn.BatchNorm1d(2))
            net.extra = T.nn.ReLU()
        finally:
            handle.remove()
        T.nn.Linear(1, 1)  # removed: not seen any more
        return seen, [_n(b).tolist() for b in net.buffers()]

    assert run(rg) == run(torch)


# ------------------------------------------------------------------ lazy modules
def test_lazy_modules_refuse_like_torch():
    def lazy(T):
        return T.nn.LazyLinear(3)

    same_error(lambda T: lazy(T).share_memory())
    same_error(lambda T: T.nn.utils.weight_norm(lazy(T)))
    same_error(lambda T: T.nn.utils.spectral_norm(lazy(T)))
    t_err = error_of(torch, lambda T: T.jit.script(lazy(T)))
    r_err = error_of(rg, lambda T: T.jit.script(lazy(T)))
    assert r_err[0] == t_err[0] == "RuntimeError"
    assert r_err[1].endswith("has uninitialized parameters weight. Did you forget to run a forward pass?")
    assert t_err[1].endswith("has uninitialized parameters weight. Did you forget to run a forward pass?")
    m = rg.nn.Linear(2, 2)
    assert m.share_memory() is m


# ------------------------------------------------------------------ PackedSequence
@pytest.mark.parametrize("cast", ["double", "float", "half", "long", "int", "short", "char", "byte"])
def test_packed_sequence_casts(cast):
    def run(T):
        packed = T.nn.utils.rnn.pack_sequence([T.tensor([1, 2, 3]), T.tensor([4, 5])])
        out = getattr(packed, cast)()
        unpacked, lengths = T.nn.utils.rnn.pad_packed_sequence(out)
        return (str(out.data.dtype).split(".")[-1], _n(out.batch_sizes).tolist(), unpacked.type(),
                _n(unpacked).tolist(), _n(lengths).tolist())

    assert run(rg) == run(torch)


def test_packed_sequence_errors_match_torch():
    same_error(lambda T: T.nn.utils.rnn.pad_sequence(5))
    same_error(lambda T: T.nn.utils.rnn.pack_padded_sequence(T.randn(3, 3), [1, 3, 2]))
    same_error(lambda T: T.nn.utils.rnn.pack_padded_sequence(T.randn(0, 0), []))
    # emptiness is checked before the order of the lengths
    same_error(lambda T: T.nn.utils.rnn.pack_padded_sequence(T.randn(0, 1, 10), T.tensor([11, 14, 14, 2]), True))


# ------------------------------------------------------------------ parametrize
class _Ident:
    @staticmethod
    def make(nn, forward, right_inverse=None):
        attrs = {"forward": lambda self, x: forward(x)}
        if right_inverse is not None:
            attrs["right_inverse"] = lambda self, x: right_inverse(x)
        return type("P", (nn.Module,), attrs)()


@pytest.mark.parametrize("case", ["dtype", "shape", "not_tensor", "inv_dtype", "inv_shape", "inv_tuple"])
def test_parametrize_errors_on_parametrized_tensor(case):
    def run(T):
        P = T.nn.utils.parametrize
        m = T.nn.Linear(3, 4)
        P.register_parametrization(m, "weight", _Ident.make(T.nn, lambda x: x))
        fwd, inv = {
            "dtype": (lambda x: x.bool(), None),
            "shape": (lambda x: x[:-1], None),
            "not_tensor": (lambda x: (x, x), None),
            "inv_dtype": (lambda x: x, lambda x: x.bool()),
            "inv_shape": (lambda x: x, lambda x: x[:-1]),
            "inv_tuple": (lambda x: x, lambda x: (x, x)),
        }[case]
        try:
            P.register_parametrization(m, "weight", _Ident.make(T.nn, fwd, inv))
        except Exception as e:  # noqa: BLE001 - compared below
            msg = str(e).replace("torch.", "").replace("retrograd.", "")
            return type(e).__name__, msg, len(m.parametrizations.weight)
        return None

    assert run(rg) == run(torch) and run(rg) is not None


def test_parametrize_right_inverse_none_and_pickle_and_deepcopy():
    def run(T):
        P = T.nn.utils.parametrize
        m = T.nn.Linear(3, 4)
        err = error_of(T, lambda T_: P.register_parametrization(m, "weight",
                                                                _Ident.make(T.nn, lambda x: x, lambda x: None)))
        still = P.is_parametrized(m)
        m2 = T.nn.Linear(3, 4)
        P.register_parametrization(m2, "weight", _Ident.make(T.nn, lambda x: 2 * x))
        try:
            pickle.dumps(m2)
            pickled = None
        except RuntimeError as e:
            pickled = str(e)
        copy_ok = bool((copy.deepcopy(m2).weight == m2.weight).all())
        return err, still, pickled, copy_ok

    assert run(rg) == run(torch)


def test_weight_norm_loads_old_weight_g_v_checkpoint():
    torch.manual_seed(0)
    old = torch.nn.utils.weight_norm(torch.nn.Linear(4, 5).double())
    sd = {k: rg.tensor(_n(v).copy()) for k, v in old.state_dict().items()}
    m = rg.nn.utils.parametrizations.weight_norm(rg.nn.Linear(4, 5).double())
    m.load_state_dict(sd)
    x = np.random.default_rng(0).standard_normal((3, 4))
    np.testing.assert_allclose(_n(m(rg.tensor(x))), _n(old(torch.tensor(x))), rtol=1e-12, atol=1e-12)
    assert sorted(m.state_dict()) == ["bias", "parametrizations.weight.original0", "parametrizations.weight.original1"]


# ------------------------------------------------------------------ embedding / embedding_bag
def test_embedding_weight_must_be_2d():
    same_error(lambda T: T.nn.functional.embedding(T.tensor([0]), T.tensor(1.0)))
    same_error(lambda T: T.nn.functional.embedding(T.tensor([0]), T.ones(1, 1, 1)))


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag_index_and_offset_errors(mode):
    w = np.random.default_rng(1).standard_normal((10, 2))
    same_error(lambda T: T.nn.functional.embedding_bag(T.tensor([[-1, 1]]), T.tensor(w), mode=mode, padding_idx=0))
    same_error(lambda T: T.nn.functional.embedding_bag(T.tensor([[11, 8]]), T.tensor(w), mode=mode))
    same_error(lambda T: T.nn.functional.embedding_bag(T.ones(12, dtype=T.long), T.tensor(w),
                                                       T.tensor([1, 1, 2]), mode=mode))
    same_error(lambda T: T.nn.functional.embedding_bag(T.ones(12, dtype=T.long), T.tensor(w),
                                                       T.tensor([0, 1, 100]), mode=mode))
    for p in (-12, 10):
        same_error(lambda T: T.nn.functional.embedding_bag(T.tensor([[1, 2]]), T.tensor(w), padding_idx=p))


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("offsets", [[0, 3, 3], [0, 3, 4], [0, 2, 3]])
def test_embedding_bag_include_last_offset_matches_torch(mode, offsets):
    w = np.random.default_rng(2).standard_normal((6, 3))
    g = np.random.default_rng(3).standard_normal((2, 3))

    def run(T):
        weight = T.tensor(w, requires_grad=True)
        out = T.nn.functional.embedding_bag(T.tensor([0, 1, 2, 3]), weight, T.tensor(offsets), mode=mode,
                                            include_last_offset=True)
        out.backward(T.tensor(g))
        return _n(out), _n(weight.grad), type(out.grad_fn).__name__

    (ro, rgd, rname), (to, tgd, tname) = _both(run)
    np.testing.assert_allclose(ro, to, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(rgd, tgd, rtol=1e-12, atol=1e-12)
    assert rname == tname


# ------------------------------------------------------------------ multi-head attention: static_k / static_v
@pytest.mark.parametrize("same_dim", [True, False])
@pytest.mark.parametrize("zero_attn", [False, True])
@pytest.mark.parametrize("masks", [False, True])
def test_mha_static_kv_matches_torch(same_dim, zero_attn, masks):
    B, S, H, hd = 3, 4, 2, 3
    D = H * hd
    kv = D if same_dim else 5
    r = np.random.default_rng(4)
    q, k = r.random((1, B, D)), r.random((S, B, kv))
    sk, sv = r.random((B * H, S, hd)), r.random((B * H, S, hd))
    kpm = np.array([[False, True, False, True]] * B)
    am = np.where(r.integers(0, 2, (1, S)) == 0, -np.inf, 0.0)
    torch.manual_seed(0)
    state = torch.nn.MultiheadAttention(D, H, add_zero_attn=zero_attn, kdim=kv, vdim=kv).double().state_dict()

    def run(T):
        m = T.nn.MultiheadAttention(D, H, add_zero_attn=zero_attn, kdim=kv, vdim=kv).double()
        m.load_state_dict({n: T.tensor(_n(v).copy()) for n, v in state.items()})
        x = T.tensor(q, requires_grad=True)
        kpm_t = T.tensor(kpm) if masks else None
        am_t = T.tensor(am) if masks else None
        sep = not m._qkv_same_embed_dim
        out, w = T.nn.functional.multi_head_attention_forward(
            x, T.tensor(k), T.tensor(k), D, H, m.in_proj_weight, m.in_proj_bias, None, None, zero_attn, 0.0,
            m.out_proj.weight, m.out_proj.bias, False, kpm_t, True, am_t, sep, m.q_proj_weight, m.k_proj_weight,
            m.v_proj_weight, static_k=T.tensor(sk), static_v=T.tensor(sv))
        out.sum().backward()
        return _n(out), _n(w), _n(x.grad)

    for a, b in zip(*_both(run)):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def test_mha_static_k_errors_match_torch():
    def call(T, sk, bias=False):
        m = T.nn.MultiheadAttention(4, 2, add_bias_kv=bias)
        x = T.ones(1, 2, 4)
        return T.nn.functional.multi_head_attention_forward(
            x, x, x, 4, 2, m.in_proj_weight, m.in_proj_bias, m.bias_k, m.bias_v, False, 0.0,
            m.out_proj.weight, m.out_proj.bias, False, static_k=sk, static_v=sk)

    same_error(lambda T: call(T, T.ones(4, 1, 2), bias=True))
    same_error(lambda T: call(T, T.ones(3, 1, 2)))
    same_error(lambda T: call(T, T.ones(4, 1, 3)))


# ------------------------------------------------------------------ adaptive pooling checks
@pytest.mark.parametrize("nd", [1, 2, 3])
@pytest.mark.parametrize("kind", ["Max", "Avg"])
def test_adaptive_pooling_rejects_integer_input(nd, kind):
    for dt in ("uint8", "int64"):
        same_error(lambda T: getattr(T.nn, f"Adaptive{kind}Pool{nd}d")((2,) * nd)(
            T.ones((4,) * (nd + 1)).to(getattr(T, dt))))


def test_adaptive_pooling_huge_output_size_raises_instead_of_allocating():
    same_error(lambda T: T.nn.AdaptiveMaxPool1d(0x3FFFFFFFFFFFFFFF)(T.empty([2, 2, 2])))
    same_error(lambda T: T.nn.AdaptiveAvgPool1d(0x3FFFFFFFFFFFFFFF)(T.empty([2, 2, 2])))
    same_error(lambda T: T.nn.AdaptiveAvgPool2d((1 << 40, 1 << 40))(T.empty([2, 2, 2])))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("padding_idx", [None, 0])
def test_embedding_bag_out_of_range_message_follows_torch_kernel(dtype, mode, padding_idx):
    w = np.random.default_rng(5).standard_normal((10, 2))
    same_error(lambda T: T.nn.functional.embedding_bag(T.tensor([[1, 11]]), T.tensor(w).to(getattr(T, dtype)),
                                                       mode=mode, padding_idx=padding_idx))
