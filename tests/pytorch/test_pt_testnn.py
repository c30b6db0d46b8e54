"""Fixes found by running PyTorch's test/test_nn.py (class TestNN) on retrograd, checked against torch.

Covers: max_unpool output_size validation, ``Module.to`` argument parsing (torch's signatures,
``copy=`` refused), buffers assigned on subclasses whose ``register_buffer`` lacks ``persistent``,
``_replicate_for_data_parallel``, legacy backward hooks on modules returning a dict, unpickling
modules pickled without the newer hook tables, ``storage().is_shared()`` after ``share_memory``,
``torch.__future__`` after a plain import, ``F.pad`` length errors, and spectral_norm's
state-dict version metadata and old-format loading, and the legacy typed-storage classes
(``torch.LongStorage([4, 4])`` ...).
"""
from __future__ import annotations

import math

import pickle
import warnings
from copy import deepcopy

import pytest

import retrograd as rg
from parity import same, same_error

torch = pytest.importorskip("torch")


# ------------------------------------------------------------------ max_unpool output_size
@pytest.mark.parametrize("h,w", [(3, 3), (3, 5), (4, 4), (4, 6), (5, 5), (6, 6), (6, 7), (7, 4), (9, 9)])
def test_max_unpool2d_output_size_range(h, w):
    def scenario(T, log):
        x = T.arange(25.0).reshape(1, 1, 5, 5)
        out, idx = T.nn.functional.max_pool2d(x, 3, 2, return_indices=True)
        log(tuple(T.nn.MaxUnpool2d(3, stride=2)(out, idx, (h, w)).shape))

    same(scenario)


@pytest.mark.parametrize("size", [[1, 1, 5, 5], (1, 5, 5), [9], (1, 1, 9, 5)])
def test_max_unpool2d_output_size_lengths(size):
    def scenario(T, log):
        out, idx = T.nn.functional.max_pool2d(T.arange(36.0).reshape(1, 1, 6, 6), 3, 2, return_indices=True)
        log(tuple(T.nn.functional.max_unpool2d(out, idx, 3, 2, output_size=size).shape))

    same(scenario)


@pytest.mark.parametrize("size", [(8,), (9,), (1, 1, 8), (10,), [7], (3, 9)])
def test_max_unpool1d_output_size(size):
    def scenario(T, log):
        out, idx = T.nn.functional.max_pool1d(T.arange(48.0).reshape(2, 3, 8), 2, return_indices=True)
        log(tuple(T.nn.functional.max_unpool1d(out, idx, 2, output_size=size).shape))

    same(scenario)


def test_max_unpool_invalid_index_message_1d():
    def f(T):
        x = T.tensor([[[0.0, 5.0, 1.0, 7.0, 2.0, 9.0, 3.0, 4.0]]])
        out, idx = T.nn.functional.max_pool1d(x, 2, return_indices=True)
        return T.nn.functional.max_unpool1d(out, idx, 2, output_size=(7,))

    same_error(f)


def test_max_unpool_grad_after_valid_size():
    def scenario(T, log):
        x = T.arange(25.0, dtype=T.float64).reshape(1, 1, 5, 5).requires_grad_()
        out, idx = T.nn.functional.max_pool2d(x, 3, 2, return_indices=True)
        y = T.nn.functional.max_unpool2d(out, idx, 3, 2, output_size=(6, 4))
        (y * T.arange(24.0, dtype=T.float64).reshape(1, 1, 6, 4)).sum().backward()
        log(y, x.grad)

    same(scenario)


# ------------------------------------------------------------------ Module.to
@pytest.mark.parametrize("case", [
    lambda T, m: m.to(T.device("cpu"), True),
    lambda T, m: m.to(None, True),
    lambda T, m: m.to({}, non_blocking=True),
    lambda T, m: m.to([]),
    lambda T, m: m.to(T.device("cpu"), T.device("cpu")),
    lambda T, m: m.to(T.zeros(1), T.float64),
    lambda T, m: m.to("cpu", T.float32, False, False, 1),
    lambda T, m: m.to("cpu", copy=True),
    lambda T, m: m.to("cpu", copy=False),
    lambda T, m: m.to("cpu", T.float32, False, False),
    lambda T, m: m.to(T.long),
    lambda T, m: m.to(T.device("cpu"), dtype=T.long, non_blocking=True),
])
def test_module_to_bad_arguments(case):
    same_error(lambda T: case(T, T.nn.Linear(2, 2)))


def test_module_to_good_arguments():
    def scenario(T, log):
        m = T.nn.Linear(2, 2)
        log(m.to("cpu") is m, m.to("cpu", dtype=T.float32) is m)
        m.to("cpu", T.float64, True)
        log(str(m.weight.dtype))
        m.to(T.float32, True)
        log(str(m.weight.dtype))
        m.to(T.zeros(1, dtype=T.float64), True)
        log(str(m.weight.dtype))
        m.to(dtype=T.float16, device="cpu", non_blocking=True)
        log(str(m.weight.dtype))

    same(scenario)


# ------------------------------------------------------------------ buffers, replicas, pickling
def test_buffer_assignment_on_register_buffer_without_persistent():
    def scenario(T, log):
        class Bad(T.nn.Linear):
            def __init__(self):
                super().__init__(2, 2)
                self.bar = T.nn.Buffer(T.ones(2))

            def register_buffer(self, name, value):  # noqa: D401 - no `persistent`, on purpose
                super().register_buffer(name, value, True)

        m = Bad()
        log(m.bar, list(m.state_dict()))
        m.bar = T.nn.Buffer(T.zeros(2), persistent=False)

    same(scenario)


def test_replicate_for_data_parallel():
    def scenario(T, log):
        pl = T.nn.ParameterList([T.nn.Parameter(T.ones(2) * i) for i in range(2)])
        new = pl._replicate_for_data_parallel()
        for n, p in pl.named_parameters():
            setattr(new, n, p.view_as(p))
        log([(p2.grad_fn is not None, p2._base is p, type(p2).__name__) for p, p2 in zip(pl, new)])
        pd = T.nn.ParameterDict({"foo": T.nn.Parameter(T.ones(2)), "bar": T.nn.Parameter(T.zeros(2))})
        nd = pd._replicate_for_data_parallel()
        for n, p in pd.named_parameters():
            setattr(nd, n, p.view_as(p))
        log([(k, k2, p2._base is p) for (k, p), (k2, p2) in zip(pd.items(), nd.items())])
        lin = T.nn.Linear(2, 2)
        r = lin._replicate_for_data_parallel()
        log(list(dict(r.named_parameters())), r._is_replica, list(r._modules), type(r).__name__)

    same(scenario)


@pytest.mark.parametrize("kind", ["list", "dict"])
def test_unpickle_module_missing_hook_tables(kind):
    def scenario(T, log):
        ps = [T.nn.Parameter(T.ones(2)), T.nn.Parameter(T.zeros(2))]
        m = T.nn.ParameterList(ps) if kind == "list" else T.nn.ParameterDict({"a": ps[0], "b": ps[1]})
        del m._forward_pre_hooks, m._state_dict_hooks, m._load_state_dict_pre_hooks, m._non_persistent_buffers_set
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            m = pickle.loads(pickle.dumps(m))
        log(len(w), len(m), hasattr(m, "_forward_pre_hooks"), hasattr(m, "_non_persistent_buffers_set"))
        m.register_forward_pre_hook(lambda *a: None)
        log(len(m.state_dict()))

    same(scenario)


def test_share_memory_marks_storages_shared():
    def scenario(T, log):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            net = T.nn.Linear(2, 2)
            net.register_buffer("b", T.zeros(3))
            log([p.storage().is_shared() for p in net.parameters()], net.b.untyped_storage().is_shared())
            net.share_memory()
            log([p.storage().is_shared() for p in net.parameters()], [b.storage().is_shared() for b in net.buffers()],
                [p.untyped_storage().is_shared() for p in net.parameters()], [p.is_shared() for p in net.parameters()])

    same(scenario)


# ------------------------------------------------------------------ legacy backward hooks
def test_legacy_backward_hook_on_dict_output():
    def scenario(T, log):
        T.manual_seed(0)

        class Net(T.nn.Module):
            def __init__(self):
                super().__init__()
                self.l1 = T.nn.Linear(3, 2)

            def forward(self, x):
                return {"a": 1, "output": self.l1(x).sum() * 2}

        net = Net()
        net.register_backward_hook(lambda m, gi, go: log(m is net, [None if g is None else g.shape for g in gi], go))
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            out = net(T.randn(4, 3, requires_grad=True))
        log([(c.category.__name__, str(c.message)) for c in w])
        out["output"].backward()

    same(scenario)


def test_legacy_backward_hook_on_list_output():
    def scenario(T, log):
        class N(T.nn.Module):
            def forward(self, x):
                return [x * 3, x]

        n = N()
        n.register_backward_hook(lambda m, gi, go: log(len(gi), go))
        x = T.ones(2, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = n(x)
        out[0].sum().backward()
        log(x.grad)

    same(scenario)


# ------------------------------------------------------------------ torch.__future__, F.pad
def test_future_reachable_after_plain_import():
    assert rg.__future__.get_swap_module_params_on_conversion() is False
    assert torch.__future__.get_swap_module_params_on_conversion() is False


@pytest.mark.parametrize("shape,pad,mode", [
    ((), (1, 1), "constant"), ((), (1,), "constant"), ((2,), (1, 1, 1, 1), "constant"),
    ((2, 3), (1, 2, 3), "constant"), ((2, 3), (1, 1, 1, 1, 1, 1), "constant"),
    ((2, 3), (1,), "reflect"), ((2, 3), (1, 1, 1, 1, 1, 1), "replicate"), ((2, 3), (1, 1, 1, 1), "reflect"),
])
def test_pad_length_errors(shape, pad, mode):
    same_error(lambda T: T.nn.functional.pad(T.ones(shape), pad, mode))


# ------------------------------------------------------------------ spectral_norm state dicts
def test_spectral_norm_state_dict_metadata_and_strict_errors():
    def scenario(T, log):
        T.manual_seed(0)
        snm = T.nn.utils.spectral_norm(T.nn.Linear(3, 5))
        sd = deepcopy(snm.state_dict())
        log(sorted(sd), sd._metadata[""])
        bad = deepcopy(sd)
        bad["nonsense"] = "nonsense"
        try:
            snm.load_state_dict(bad, strict=True)
        except RuntimeError as e:
            log(str(e))
        for key in ("weight_orig", "weight_u", "weight_v"):
            del bad[key]
            snm.load_state_dict(bad, strict=False)
        bad["weight"] = snm.weight.detach().clone()
        snm.load_state_dict(bad, strict=False)
        del bad._metadata[""]["spectral_norm"]
        snm.load_state_dict(bad, strict=False)
        T.nn.utils.remove_spectral_norm(snm)
        log(len(snm._state_dict_hooks), dict(snm.state_dict()._metadata[""]))

    same(scenario)


@pytest.mark.parametrize("with_metadata", [True, False])
def test_spectral_norm_loads_old_format(with_metadata):
    """A pre-version-1 dict (W stored, no v) reloads to the same outputs, in train and eval."""
    def scenario(T, log):
        T.manual_seed(0)
        inp = T.randn(2, 3, dtype=T.float64)
        lin = T.nn.Linear(3, 5).double()
        with T.no_grad():  # fixed weights: a float32 uniform init rounds by torch's kernel set
            lin.weight.copy_(T.tensor([[math.sin(3 * i + j) for j in range(3)] for i in range(5)], dtype=T.float64))
            lin.bias.copy_(T.tensor([math.cos(i) for i in range(5)], dtype=T.float64))
        snm = T.nn.utils.spectral_norm(lin)
        for _ in range(3):
            snm(inp)
        ref = deepcopy(snm.state_dict())
        old = deepcopy(ref)
        del old._metadata[""]["spectral_norm"]
        del old["weight_v"]
        old["weight"] = snm.weight.detach().clone()
        latest = deepcopy(ref)
        if not with_metadata:
            del latest._metadata[""]["spectral_norm"]
        outs = []
        for sd in (ref, old, latest):
            snm = T.nn.utils.spectral_norm(T.nn.utils.remove_spectral_norm(snm))
            snm.load_state_dict(sd)
            with T.no_grad():
                snm.eval()
                a = snm(inp)
                snm.train()
                b = snm(inp)
                c = snm(inp)
                snm.eval()
                outs.append([a, b, c, snm(inp)])
        log([[float((x - y).abs().max()) < 1e-8 for x, y in zip(outs[0], o)] for o in outs[1:]], outs[0])

    same(scenario)


def test_spectral_norm_pickles_with_state_dict_hooks():
    def scenario(T, log):
        m = pickle.loads(pickle.dumps(T.nn.utils.spectral_norm(T.nn.Linear(5, 7))))
        log(type(m).__name__, sorted(m.state_dict()), m.state_dict()._metadata[""])

    same(scenario)


# ------------------------------------------------------------------ gradient clipping norms
@pytest.mark.parametrize("norm_type", [0, 0.5, 1, 2, 3, -1.0, float("inf"), float("-inf")])
def test_clip_grad_norm_every_order(norm_type):
    def scenario(T, log):
        grads = [T.tensor([0.0, 3.0, -1.5]), T.tensor([-4.0, 2.0])]
        ps = [T.nn.Parameter(T.zeros_like(g)) for g in grads]
        for p, g in zip(ps, grads):
            p.grad = g.clone()
        total = T.nn.utils.clip_grad_norm_(ps, 1.0, norm_type=norm_type)
        log(total, str(total.dtype), [p.grad for p in ps])
        log(T.nn.utils.get_total_norm(grads, norm_type))

    same(scenario)


def test_clip_grad_norm_mixed_dtypes_and_empty_grad():
    def scenario(T, log):
        grads = [T.zeros(0), T.ones(2, dtype=T.float64), T.ones(3)]
        ps = [T.nn.Parameter(T.zeros_like(g)) for g in grads]
        for p, g in zip(ps, grads):
            p.grad = g.clone()
        total = T.nn.utils.clip_grad_norm_(ps, 1.0, norm_type=0)
        log(total, str(total.dtype), [p.grad for p in ps])

    same(scenario, digits=6)


def test_clip_grad_norm_nonfinite_no_numpy_warning():
    def scenario(T, log):
        p = T.nn.Parameter(T.ones(2))
        p.grad = T.tensor([float("inf"), 1.0])
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            total = T.nn.utils.clip_grad_norm_([p], 1.0)
        log(str(float(total)), str(p.grad.tolist()), [str(c.message) for c in w])
        try:
            T.nn.utils.clip_grad_norm_([p], 1.0, error_if_nonfinite=True)
        except RuntimeError as e:
            log(str(e))

    same(scenario)


# ------------------------------------------------------------------ legacy typed-storage classes
@pytest.mark.parametrize("name,arg", [("LongStorage", [4, 4]), ("FloatStorage", [1.5, -2.0]), ("ByteStorage", [1, 255]),
                                      ("BoolStorage", [True, False]), ("DoubleStorage", 3), ("IntStorage", ()),
                                      ("HalfStorage", [0.5])])
def test_legacy_storage_classes_like_torch(name, arg):
    got = []
    for lib in (rg, torch):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cls = getattr(lib, name)
            s = cls(arg)
            others = [getattr(lib, n) for n in ("LongStorage", "FloatStorage") if n != name]
            values = None if isinstance(arg, int) else s.tolist()  # (torch leaves a sized one uninitialised)
            got.append((str(cls.dtype).split(".")[-1], s.size(), values, type(s).__name__,
                        isinstance(s, cls), isinstance(s, lib.TypedStorage), [isinstance(s, o) for o in others]))
    assert got[0] == got[1]


def test_legacy_storage_bad_argument_like_torch():
    same_error(lambda T: T.LongStorage("ab"))
    m = rg.nn.MaxUnpool2d(2, 2)
    x, idx = rg.nn.functional.max_pool2d(rg.arange(16.).reshape(1, 1, 4, 4), 2, return_indices=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert m(x, idx, output_size=rg.LongStorage([4, 4])).shape == (1, 1, 4, 4)
