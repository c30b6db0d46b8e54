"""Differential sweep of retrograd.utils.data and retrograd.save/load against PyTorch.

Each scenario is a function of ``(T, U)`` (the library and its ``utils.data``) that runs the same
code in both; results are normalised (tensors -> dtype name, shape, values, requires_grad, class)
and exceptions -> (type name, message), and must agree exactly.  Random streams differ between
the libraries (retrograd's Generator wraps NumPy), so random scenarios compare sizes, sets and
disjointness, never the order drawn.
"""
import collections
import io
import os
import pickle
import warnings
import zipfile

import numpy as np
import pytest

import retrograd as rg

torch = pytest.importorskip("torch")


def norm(x, T):
    if isinstance(x, T.Tensor):
        return ("T", str(x.dtype).split(".")[-1], tuple(x.shape), x.tolist(), x.requires_grad, type(x).__name__)
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return ("namedtuple", type(x).__name__, tuple(norm(v, T) for v in x))
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, [norm(v, T) for v in x])
    if isinstance(x, dict):
        return (type(x).__name__, [(norm(k, T), norm(v, T)) for k, v in x.items()])
    if isinstance(x, T.Size):
        return ("Size", tuple(x))
    if isinstance(x, T.dtype):
        return ("dtype", str(x).split(".")[-1])
    if isinstance(x, (int, float, str, bool, type(None), bytes)):
        return (type(x).__name__, x)
    return ("other", type(x).__name__)


def outcome(fn, T):
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = norm(fn(T, T.utils.data), T)
        return ("ok", result, [str(w.message) for w in caught])
    except Exception as e:  # noqa: BLE001 -- the exception is what is compared
        return ("exc", type(e).__name__, str(e))


SCENARIOS = {}


def scenario(f):
    SCENARIOS[f.__name__] = f
    return f


def mk_iterable(U, n=5, with_len=False):
    class It(U.IterableDataset):
        def __iter__(self):
            return iter(range(n))

    class ItLen(It):
        def __len__(self):
            return n

    return ItLen() if with_len else It()


P = collections.namedtuple("P", "x y")


# ------------------------------------------------------------------------------- datasets
@scenario
def tensor_dataset_size_mismatch(T, U): return U.TensorDataset(T.zeros(3), T.zeros(4))
@scenario
def tensor_dataset_items(T, U):
    ds = U.TensorDataset(T.arange(6).view(3, 2), T.tensor([0, 1, 0]))
    return [len(ds), ds[1], ds[-1]]
@scenario
def concat_dataset(T, U):
    ds = U.ConcatDataset([[1, 2], [3], []])
    return [len(ds), ds[2], ds[-1], ds.cumulative_sizes]
@scenario
def concat_negative_out_of_range(T, U): return U.ConcatDataset([[1, 2], [3]])[-4]
@scenario
def concat_empty(T, U): return U.ConcatDataset([])
@scenario
def concat_iterable_refused(T, U): return U.ConcatDataset([mk_iterable(U)])
@scenario
def dataset_add(T, U): return list(U.TensorDataset(T.arange(2)) + U.TensorDataset(T.arange(3)))
@scenario
def iterable_dataset_is_abstract(T, U): return U.IterableDataset()  # fixed: was NotImplementedError on iter
@scenario
def iterable_subclass_without_iter(T, U):
    class NoIter(U.IterableDataset):
        pass
    return NoIter()
@scenario
def iterable_add_is_chain(T, U): return [type(mk_iterable(U, 2) + mk_iterable(U, 1)).__name__,
                                         list(mk_iterable(U, 2) + mk_iterable(U, 1))]
@scenario
def chain_dataset(T, U):
    c = U.ChainDataset([mk_iterable(U, 2, True), mk_iterable(U, 3, True)])
    return [list(c), len(c)]
@scenario
def subset(T, U):
    s = U.Subset([10, 11, 12, 13], [3, 1])
    return [len(s), s[0], s[-1], s.__getitems__([0, 1])]
@scenario
def random_split_fractions(T, U):
    out = []
    for n, fr in [(10, [0.7, 0.3]), (10, [0.33, 0.33, 0.34]), (7, [0.5, 0.5]), (11, [0.1] * 10), (3, [0.2, 0.8])]:
        parts = U.random_split(range(n), fr, generator=T.Generator().manual_seed(0))
        out.append(([len(p) for p in parts], sorted(i for p in parts for i in p) == list(range(n))))
    return out
@scenario
def random_split_empty_split_warns(T, U): return [len(p) for p in U.random_split(range(2), [0.1, 0.1, 0.8])]
@scenario
def random_split_bad_sum(T, U): return U.random_split(range(5), [2, 2])
@scenario
def random_split_bad_fraction(T, U): return U.random_split(range(5), [1.2, -0.2])
@scenario
def random_split_fractions_not_one(T, U): return U.random_split(range(5), [0.5, 0.4])


# ------------------------------------------------------------------------------- samplers
@scenario
def random_sampler_permutation(T, U):
    s = U.RandomSampler(range(6), generator=T.Generator().manual_seed(0))
    return [sorted(s), len(s)]
@scenario
def random_sampler_replacement(T, U):
    s = U.RandomSampler(range(6), replacement=True, num_samples=40, generator=T.Generator().manual_seed(0))
    got = list(s)
    return [len(got), len(s), all(0 <= i < 6 for i in got), type(got[0]).__name__]
@scenario
def random_sampler_num_samples_wraps(T, U):
    got = list(U.RandomSampler(range(5), num_samples=12, generator=T.Generator().manual_seed(0)))
    return [len(got), sorted(got[:5]), sorted(got[5:10])]
@scenario
def random_sampler_num_samples_zero(T, U): return U.RandomSampler(range(5), num_samples=0)
@scenario
def random_sampler_num_samples_float(T, U): return U.RandomSampler(range(5), num_samples=2.0)
@scenario
def random_sampler_replacement_not_bool(T, U): return U.RandomSampler(range(5), replacement=1)
@scenario
def random_sampler_empty(T, U): return U.RandomSampler([])
@scenario
def subset_random_sampler(T, U):
    got = list(U.SubsetRandomSampler([5, 7, 9], generator=T.Generator().manual_seed(0)))
    return [sorted(got), type(got[0]).__name__]
@scenario
def weighted_sampler(T, U):
    s = U.WeightedRandomSampler([0.0, 1.0, 0.0, 2.0], 20, generator=T.Generator().manual_seed(0))
    got = list(s)
    return [len(s), len(got), set(got) <= {1, 3}, type(got[0]).__name__, s.weights]
@scenario
def weighted_sampler_tensor_weights_no_warning(T, U):  # fixed: used tensor() and warned
    return U.WeightedRandomSampler(T.tensor([1.0, 2.0]), 2).weights
@scenario
def weighted_sampler_without_replacement(T, U): return sorted(U.WeightedRandomSampler([1.0] * 3, 3, replacement=False))
@scenario
def weighted_sampler_too_many_without_replacement(T, U):
    return list(U.WeightedRandomSampler([1.0, 1.0], 3, replacement=False))
@scenario
def weighted_sampler_bad_num_samples(T, U): return U.WeightedRandomSampler([1.0], True)
@scenario
def weighted_sampler_bad_replacement(T, U): return U.WeightedRandomSampler([1.0], 1, replacement=0)
@scenario
def weighted_sampler_2d(T, U): return U.WeightedRandomSampler([[1.0, 2.0]], 1)
@scenario
def batch_sampler(T, U):
    return [list(U.BatchSampler(range(5), 2, False)), list(U.BatchSampler(range(5), 2, True)),
            len(U.BatchSampler(range(5), 2, False)), len(U.BatchSampler(range(5), 2, True))]
@scenario
def batch_sampler_batch_size_zero(T, U): return U.BatchSampler(range(5), 0, False)
@scenario
def batch_sampler_batch_size_bool(T, U): return U.BatchSampler(range(5), True, False)
@scenario
def batch_sampler_drop_last_not_bool(T, U): return U.BatchSampler(range(5), 2, 0)


# ------------------------------------------------------------------------------- DataLoader
@scenario
def loader_basic(T, U): return list(U.DataLoader(U.TensorDataset(T.arange(5.), T.arange(5)), batch_size=2))
@scenario
def loader_batch_size_none(T, U):
    return [list(U.DataLoader(U.TensorDataset(T.arange(3.)), batch_size=None)),
            list(U.DataLoader([np.arange(2), np.float64(1.5), 3, (np.arange(2), 1.0)], batch_size=None))]
@scenario
def loader_lengths(T, U):
    return [len(U.DataLoader(range(n), batch_size=b, drop_last=d)) for n in (0, 1, 5, 6) for b in (1, 2, 4)
            for d in (False, True)] + [len(U.DataLoader(range(5), batch_size=None))]
@scenario
def loader_drop_last(T, U): return list(U.DataLoader(range(5), batch_size=2, drop_last=True))
@scenario
def loader_shuffle_generator(T, U):
    got = list(U.DataLoader(range(7), batch_size=3, shuffle=True, generator=T.Generator().manual_seed(0)))
    return [[len(b) for b in got], sorted(x for b in got for x in b.tolist())]
@scenario
def loader_sampler_and_shuffle(T, U): return U.DataLoader(range(3), shuffle=True, sampler=U.SequentialSampler(range(3)))
@scenario
def loader_batch_sampler_and_batch_size(T, U):
    return U.DataLoader(range(3), batch_size=2, batch_sampler=U.BatchSampler(range(3), 2, False))
@scenario
def loader_batch_sampler_and_drop_last(T, U):
    return U.DataLoader(range(3), drop_last=True, batch_sampler=U.BatchSampler(range(3), 2, False))
@scenario
def loader_batch_sampler(T, U):
    d = U.DataLoader(range(5), batch_sampler=U.BatchSampler(range(5), 2, False))
    return [list(d), len(d), d.batch_size, d.drop_last]
@scenario
def loader_none_and_drop_last(T, U): return U.DataLoader(range(3), batch_size=None, drop_last=True)
@scenario
def loader_batch_size_zero(T, U): return U.DataLoader(range(3), batch_size=0)
@scenario
def loader_bad_options(T, U):
    out = []
    for kw in ({"num_workers": -1}, {"prefetch_factor": 2}, {"persistent_workers": True}, {"timeout": -1}):
        try:
            U.DataLoader(range(3), **kw)
        except ValueError as e:
            out.append(str(e))
    return out
@scenario
def loader_setattr_after_init(T, U):
    d = U.DataLoader(range(3))
    d.batch_size = 3
@scenario
def loader_custom_collate_and_worker_init_fn(T, U):
    calls = []
    d = U.DataLoader(range(5), batch_size=2, collate_fn=sum, worker_init_fn=calls.append)
    return [list(d), calls]
@scenario
def loader_iterable(T, U):
    return [list(U.DataLoader(mk_iterable(U), batch_size=2)),
            list(U.DataLoader(mk_iterable(U), batch_size=2, drop_last=True)),
            list(U.DataLoader(mk_iterable(U), batch_size=None))]
@scenario
def loader_iterable_len_error(T, U): return len(U.DataLoader(mk_iterable(U), batch_size=2))
@scenario
def loader_iterable_len(T, U):
    return [len(U.DataLoader(mk_iterable(U, 5, True), batch_size=2)),
            len(U.DataLoader(mk_iterable(U, 5, True), batch_size=2, drop_last=True))]
@scenario
def loader_iterable_shuffle(T, U): return U.DataLoader(mk_iterable(U), shuffle=True)
@scenario
def loader_iterable_batch_sampler(T, U): return U.DataLoader(mk_iterable(U), batch_sampler=[[0]])


# ------------------------------------------------------------------------------- collation
def C(U):
    return U.default_collate


@scenario
def collate_tensors(T, U): return [C(U)([T.tensor([1., 2.]), T.tensor([3., 4.])]), C(U)([T.tensor(1), T.tensor(2)])]
@scenario
def collate_tensor_size_mismatch(T, U): return C(U)([T.zeros(2), T.zeros(3)])
@scenario
def collate_numpy(T, U):
    return [C(U)([np.array([1, 2], dtype=np.int32), np.array([3, 4], dtype=np.int32)]),
            C(U)([np.array(1.0), np.array(2.0)]), C(U)([np.float32(1), np.float32(2)]),
            C(U)([np.int16(1), np.int16(2)]), C(U)([np.bool_(True), np.bool_(False)])]
@scenario
def collate_numpy_strings_refused(T, U): return C(U)([np.array(["a"]), np.array(["b"])])
@scenario
def collate_numbers(T, U): return [C(U)([1, 2, 3]), C(U)([1.0, 2.5]), C(U)([True, False]), C(U)([1, 2.5])]
@scenario
def collate_strings(T, U): return [C(U)(["a", "b"]), C(U)([b"a", b"b"]), C(U)([["a", "b"], ["c", "d"]])]
@scenario
def collate_containers(T, U):
    return [C(U)([(1, 2.0), (3, 4.0)]), C(U)([[1, 2], [3, 4]]),
            C(U)([collections.OrderedDict(a=1), collections.OrderedDict(a=2)]),
            C(U)([P(1, T.tensor(1.)), P(2, T.tensor(2.))])]
@scenario
def collate_nested(T, U):
    return C(U)([{"a": (T.zeros(2), [1, {"z": np.float64(3)}])}, {"a": (T.ones(2), [2, {"z": np.float64(4)}])}])
@scenario
def collate_unequal_lists(T, U): return C(U)([[1, 2], [3]])
@scenario
def collate_unsupported(T, U):
    out = []
    for batch in ([None, None], [object(), object()], [{1}, {2}], [1j, 2j]):
        try:
            C(U)(batch)
        except TypeError as e:
            out.append(str(e))
    return out
@scenario
def collate_requires_grad(T, U):
    a = T.ones(2, requires_grad=True)
    return C(U)([a, a * 2])
@scenario
def default_convert(T, U):
    return [U.default_convert([np.arange(2), (np.float32(1), "s"), {"k": np.array([1.0])}, 3, P(np.arange(1), 2)]),
            U.default_convert(np.array(["a"])).tolist()]


# ------------------------------------------------------------------------------- save / load
def roundtrip(T, obj, **kw):
    buf = io.BytesIO()
    T.save(obj, buf)
    buf.seek(0)
    return T.load(buf, **kw)


@scenario
def save_tensors(T, U):
    return roundtrip(T, [T.arange(3), T.ones(2, 3, dtype=T.float16), T.tensor(True), T.zeros(0, 2),
                         T.tensor(3.5, dtype=T.float64), T.tensor([1, 2], dtype=T.uint8),
                         T.arange(6).view(2, 3).t(), T.ones(2, requires_grad=True),
                         T.nn.Parameter(T.ones(2)), T.nn.Parameter(T.ones(2), requires_grad=False)])
@scenario
def save_state_dict(T, U):
    T.manual_seed(0)
    m = T.nn.Sequential(T.nn.Linear(2, 3), T.nn.BatchNorm1d(3))
    sd = roundtrip(T, m.state_dict())
    m2 = T.nn.Sequential(T.nn.Linear(2, 3), T.nn.BatchNorm1d(3))
    return [[(k, tuple(v.shape), str(v.dtype).split(".")[-1]) for k, v in sd.items()], type(sd).__name__,
            sd._metadata, str(m2.load_state_dict(sd)), bool((m2[0].weight == m[0].weight).all())]
@scenario
def save_optimizer_state_dict(T, U):
    T.manual_seed(0)
    m = T.nn.Linear(2, 1)
    opt = T.optim.Adam(m.parameters(), lr=0.1)
    m(T.ones(3, 2)).sum().backward()
    opt.step()
    sd = roundtrip(T, opt.state_dict())
    opt2 = T.optim.Adam(m.parameters(), lr=0.5)
    opt2.load_state_dict(sd)
    return [sd["param_groups"], sorted(sd["state"][0]), sd["state"][0]["step"], opt2.param_groups[0]["lr"]]
@scenario
def save_nested(T, U):
    return roundtrip(T, {"a": [1, 2.5, None, True, "s", b"by", (1, (2, [3]))], 3: {"x": T.tensor([1.])},
                         (1, 2): "k", "od": collections.OrderedDict(z=1, a=2), "f": float("inf"),
                         "size": T.Size([2, 3]), "dtype": T.float32})
@scenario
def save_same_tensor_twice(T, U):
    t = T.ones(2)
    a, b = roundtrip(T, [t, t])
    return a is b
@scenario
def save_views_share_memory(T, U):  # fixed: views were saved as independent copies
    base = T.arange(12.).view(3, 4)
    a, b, c, d = roundtrip(T, [base, base[1:, ::2], base.t(), base[0].expand(2, 4)])
    a[1, 2] = 100.0
    return [b, c, d, a.sum()]
@scenario
def save_lone_view(T, U): return roundtrip(T, {"v": T.arange(10.)[2:8:3]})
@scenario
def load_empty_file(T, U):  # fixed: was only a RuntimeError; torch raises EOFError (with no message)
    try:
        T.load(io.BytesIO(b""))
    except EOFError:
        return "EOFError"
@scenario
def load_options(T, U):
    return [roundtrip(T, T.ones(1), map_location="cpu"), roundtrip(T, T.ones(1), map_location=T.device("cpu")),
            roundtrip(T, T.ones(1), map_location={"cpu": "cpu"}), roundtrip(T, T.ones(1), map_location=lambda s, l: s),
            roundtrip(T, T.ones(1), weights_only=False), roundtrip(T, T.ones(1), weights_only=True)]
@scenario
def load_missing_file(T, U): return T.load("/nonexistent/dir/x.pt")


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_matches_torch(name):
    fn = SCENARIOS[name]
    expected, got = outcome(fn, torch), outcome(fn, rg)
    assert got == expected


# ------------------------------------------------------------------ checkpoints written by torch
def torch_bytes(obj) -> bytes:
    buf = io.BytesIO()
    torch.save(obj, buf)
    return buf.getvalue()


def test_load_torch_state_dict_and_bfloat16():
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.BatchNorm1d(3))
    sd = rg.load(io.BytesIO(torch_bytes(m.state_dict())), map_location="cpu", weights_only=True)
    assert list(sd) == list(m.state_dict()) and sd._metadata == m.state_dict()._metadata
    for k, v in m.state_dict().items():
        assert sd[k].tolist() == v.tolist() and str(sd[k].dtype).split(".")[-1] == str(v.dtype).split(".")[-1]
    # bfloat16 (retrograd keeps it as float32 values): refused before the fix
    bf = torch.tensor([1.5, -2.0, 3.140625, 1e30], dtype=torch.bfloat16)
    got = rg.load(io.BytesIO(torch_bytes({"bf": bf, "p": torch.nn.Parameter(bf.float())})))
    assert got["bf"].tolist() == bf.float().tolist()
    assert type(got["p"]).__name__ == "Parameter" and got["p"].requires_grad


def test_load_torch_views_share_memory():
    base = torch.arange(6.)
    out = rg.load(io.BytesIO(torch_bytes([base, base[2:4], base.view(2, 3).t()])))
    out[0][2] = -1.0
    assert out[1].tolist() == [-1.0, 3.0] and out[2].tolist()[2][0] == -1.0


def test_view_files_are_version_2_and_plain_files_version_1():
    def header(obj):
        buf = io.BytesIO()
        rg.save(obj, buf)
        return __import__("json").loads(zipfile.ZipFile(buf).read("retrograd.json"))
    t = rg.arange(4.)
    assert header([t, rg.ones(2)])["version"] == 1
    assert header([t, t[1:]])["version"] == 2


def test_hostile_view_geometry_refused():
    t = rg.arange(4.)
    buf = io.BytesIO()
    rg.save([t, t[1:]], buf)
    zin = zipfile.ZipFile(io.BytesIO(buf.getvalue()))
    import json
    head = json.loads(zin.read("retrograd.json"))
    head["root"]["v"][1]["view"]["offset"] = 10**9  # points far outside the 4-element storage
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zo:
        for info in zin.infolist():
            zo.writestr(info, json.dumps(head) if info.filename == "retrograd.json" else zin.read(info.filename))
    with pytest.raises(RuntimeError, match="storage of 4 elements"):
        rg.load(io.BytesIO(out.getvalue()))


class Evil:
    def __reduce__(self):
        return (os.system, ("touch /tmp/retrograd_pwned_sweep",))


@pytest.mark.parametrize("how", ["pickle", "torch_zip"])
def test_hostile_payload_rejected_and_not_run(how):
    if os.path.exists("/tmp/retrograd_pwned_sweep"):
        os.remove("/tmp/retrograd_pwned_sweep")
    if how == "pickle":
        data = pickle.dumps({"x": Evil()})
    else:  # a real torch checkpoint whose data.pkl was swapped for the payload
        zin = zipfile.ZipFile(io.BytesIO(torch_bytes({"w": torch.ones(2)})))
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w") as zo:
            for info in zin.infolist():
                payload = zin.read(info.filename)
                zo.writestr(info, pickle.dumps({"x": Evil()}, protocol=2) if info.filename.endswith("data.pkl")
                            else payload)
        data = out.getvalue()
    for lib in (torch, rg):  # both refuse with the same exception type
        with pytest.raises(pickle.UnpicklingError):
            lib.load(io.BytesIO(data))
    assert not os.path.exists("/tmp/retrograd_pwned_sweep")


def test_truncated_and_corrupted_files_raise_runtime_error():
    buf = io.BytesIO()
    rg.save({"w": rg.ones(100)}, buf)
    data = buf.getvalue()
    for cut in (10, len(data) // 2, len(data) - 1):
        with pytest.raises(RuntimeError, match="truncated|corrupted"):
            rg.load(io.BytesIO(data[:cut]))
    # torch does not CRC-check; retrograd does, so flipped tensor bytes are an error, not silent garbage
    bad = bytearray(data)
    start = data.index(b"\x93NUMPY") + 200
    bad[start:start + 8] = b"\xff" * 8
    with pytest.raises(RuntimeError, match="corrupted"):
        rg.load(io.BytesIO(bytes(bad)))
