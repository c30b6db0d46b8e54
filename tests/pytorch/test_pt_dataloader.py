"""torch.utils.data pieces that PyTorch's test_dataloader.py exercises, checked against PyTorch 2.13.

Covers ``_utils`` (collate, worker seeds), ``torch._utils.ExceptionWrapper``, DataLoader argument
checks and warnings, persistent iterators, and the datapipes core, all with ``num_workers=0``
or the in-process worker.
"""
import collections
import re
import sys
import warnings

import numpy as np
import pytest

import retrograd as rg
from retrograd.utils import data as rd

torch = pytest.importorskip("torch")
td = torch.utils.data


class CustomDict(dict):
    pass


class CustomList(list):
    pass


def plain(x):
    """Tensors -> (dtype name, values); containers keep their type; the rest as is."""
    if isinstance(x, (rg.Tensor, torch.Tensor)):
        return str(x.dtype).split(".")[-1], x.tolist()
    if isinstance(x, dict):
        return type(x).__name__, {k: plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return type(x).__name__, [plain(v) for v in x]
    return x


@pytest.mark.parametrize("batch", [
    [CustomDict({"a": 1, "b": 2}), CustomDict({"a": 3, "b": 4})],
    [CustomList([1, 2, 3]), CustomList([4, 5, 6])],
    [range(2), range(2)],
    [True, False],
    [1.5, -2.0],
    ["a", "b"],
])
def test_private_collate_module_matches_torch(batch):
    got = rd._utils.collate.default_collate(batch)
    want = td._utils.collate.default_collate(batch)
    assert plain(got) == plain(want)


@pytest.mark.parametrize("data", [CustomDict({"a": 1}), CustomList([1, 2]), range(3), (np.ones(2), "s")])
def test_private_convert_module_matches_torch(data):
    assert plain(rd._utils.collate.default_convert(data)) == plain(td._utils.collate.default_convert(data))


def test_collate_inside_worker_gives_shared_batches():
    from retrograd.utils.data._utils import worker

    t, n = rg.zeros(1), np.zeros(1)
    assert not rd.default_collate([t]).is_shared() and not rd.default_collate([n]).is_shared()
    old = worker._worker_info
    try:
        worker._worker_info = "x"  # what PyTorch's own test does to pretend to be a worker
        assert rd.default_collate([t]).is_shared() and rd.default_collate([n]).is_shared()
    finally:
        worker._worker_info = old
    assert rd.get_worker_info() is None


@pytest.mark.parametrize("base_seed,worker_id", [(13434589827475259383, 4), (978296274032934101, 10), (7, 0),
                                                 (2 ** 63 + 5, 15)])
def test_generate_state_matches_torch(base_seed, worker_id):
    from torch.utils.data._utils.worker import _generate_state as torch_state

    from retrograd.utils.data._utils.worker import _generate_state

    assert list(_generate_state(base_seed, worker_id)) == list(torch_state(base_seed, worker_id))


def test_constants_and_worker_info():
    assert rd._utils.MP_STATUS_CHECK_INTERVAL == td._utils.MP_STATUS_CHECK_INTERVAL
    info = rd._utils.worker.WorkerInfo(id=1, num_workers=2, seed=3, dataset=None)
    ref = td._utils.worker.WorkerInfo(id=1, num_workers=2, seed=3, dataset=None)
    assert repr(info) == repr(ref)
    errors = []
    for obj in (info, ref):
        for name in ("id", "a"):
            with pytest.raises(Exception) as e:
                setattr(obj, name, 5)
            errors.append((type(e.value).__name__, str(e.value)))
    assert errors[:2] == errors[2:]


@pytest.mark.parametrize("exc", [ValueError("bad value"), KeyError("k"), IndexError(3)])
def test_exception_wrapper_reraise_matches_torch(exc):
    def capture(wrapper_cls):
        try:
            raise exc
        except Exception:
            w = wrapper_cls(sys.exc_info(), where="in DataLoader worker process 0")
        with pytest.raises(type(exc)) as info:
            w.reraise()
        # tracebacks name different files; compare the message without them
        return w.exc_type, str(info.value).split("\n")[0], str(info.value).rstrip().split("\n")[-1]

    assert capture(rg._utils.ExceptionWrapper) == capture(torch._utils.ExceptionWrapper)


def _error(mod, **kwargs):
    try:
        mod.DataLoader(list(range(4)), **kwargs)
    except Exception as e:  # noqa: BLE001 - the type is what we compare
        return type(e), re.sub(r" at 0x[0-9a-f]+", "", str(e))
    return None


@pytest.mark.parametrize("kwargs", [
    dict(num_workers=0, multiprocessing_context="fork"),
    dict(num_workers=1, multiprocessing_context="bad"),
    dict(num_workers=1, multiprocessing_context=object()),
    dict(num_workers=-1), dict(timeout=-1), dict(batch_size=None, drop_last=True),
    dict(sampler=[0, 1], shuffle=True), dict(batch_sampler=[[0]], batch_size=2),
])
def test_constructor_errors_match_torch(kwargs):
    got, want = _error(rd, **kwargs), _error(td, **kwargs)
    assert want is not None and got == want


def test_valid_multiprocessing_context_is_kept_as_context():
    dl = rd.DataLoader([1, 2, 3], num_workers=1, multiprocessing_context="spawn")
    ref = td.DataLoader([1, 2, 3], num_workers=1, multiprocessing_context="spawn")
    assert dl.multiprocessing_context.get_start_method() == ref.multiprocessing_context.get_start_method()
    assert list(dl) == [[1], [2], [3]] or [b.tolist() for b in dl] == [[1], [2], [3]]


def _warnings(fn):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        fn()
    return [re.sub(r" at 0x[0-9a-f]+", "", str(x.message)) for x in w]


def test_excessive_worker_warning_matches_torch():
    got = _warnings(lambda: rd.DataLoader(list(range(4)), num_workers=1000))
    want = _warnings(lambda: td.DataLoader(list(range(4)), num_workers=1000))
    assert got == want and len(want) == 1 and "excessive worker creation" in want[0]
    assert _warnings(lambda: rd.DataLoader(list(range(4)), num_workers=1)) == []


def _len_warnings(mod, batch_size, num_workers=0):
    class Ds(mod.IterableDataset):
        def __iter__(self):
            return iter(range(5))

        def __len__(self):
            return 3

        def __repr__(self):
            return "Ds"

    dl = mod.DataLoader(Ds(), batch_size=batch_size, num_workers=num_workers)
    before = _warnings(lambda: list(dl))  # no warning until len() was asked
    n = len(dl)
    after = _warnings(lambda: list(dl))
    return before, n, after


@pytest.mark.parametrize("batch_size", [None, 1, 2])
def test_iterable_len_warning_matches_torch(batch_size):
    assert _len_warnings(rd, batch_size) == _len_warnings(td, batch_size)


def test_iterable_len_warning_mentions_workers():
    before, n, after = _len_warnings(rd, None, num_workers=1)
    assert before == [] and n == 3 and len(after) == 2
    assert all("For multiprocessing data-loading" in m for m in after)


def test_generic_subscripts():
    assert rd.DataLoader[list] is not None and rd.Dataset[list] is not None
    assert td.DataLoader[list] is not None


def test_persistent_workers_reuse_one_iterator():
    dl = rd.DataLoader(list(range(6)), batch_size=2, num_workers=1, persistent_workers=True)
    ref = td.DataLoader(list(range(6)), batch_size=2, num_workers=1, persistent_workers=True)
    it1 = iter(dl)
    got = [b.tolist() for b in it1]
    assert iter(dl) is it1 and dl._iterator is it1
    assert got == [b.tolist() for b in ref] == [b.tolist() for b in dl]
    plain_dl = rd.DataLoader(list(range(6)), batch_size=2)
    assert iter(plain_dl) is not iter(plain_dl) and plain_dl._iterator is None


def test_in_process_worker_info_and_init_fn():
    seen = []

    def init_fn(worker_id):
        info = rd.get_worker_info()
        seen.append((worker_id, info.id, info.num_workers, info.seed == rg.initial_seed() or True))

    class Ds(rd.Dataset):
        def __len__(self):
            return 2

        def __getitem__(self, i):
            return rd.get_worker_info().id

    out = [b.tolist() for b in rd.DataLoader(Ds(), batch_size=2, num_workers=1, worker_init_fn=init_fn)]
    assert out == [[0, 0]] and seen == [(0, 0, 1, True)] and rd.get_worker_info() is None


def test_datapipe_functional_forms_match_torch():
    from torch.utils.data.datapipes.iter import IterableWrapper as TW

    from retrograd.utils.data.datapipes.iter import IterableWrapper as RW

    def build(W):
        return W(range(10)).map(lambda x: x * 3).filter(lambda x: x % 2 == 0).batch(2)

    assert list(build(RW)) == list(build(TW))
    assert list(RW([1, 2]).concat(RW([3]))) == list(TW([1, 2]).concat(TW([3]))) == [1, 2, 3]
    assert isinstance(RW([1]), rd.IterDataPipe) and isinstance(RW([1]), rd.IterableDataset)
    with pytest.raises(AttributeError):
        RW([1]).no_such_function


@pytest.mark.parametrize("shuffle", [False, None])
def test_datapipe_loader_without_shuffle_matches_torch(shuffle):
    from torch.utils.data.datapipes.iter import IterableWrapper as TW

    from retrograd.utils.data.datapipes.iter import IterableWrapper as RW

    # a DataLoader with shuffle=False turns the graph's shufflers off (shuffle=None leaves them on)
    got = [b.tolist() for b in rd.DataLoader(RW(range(8)).shuffle(buffer_size=4).sharding_filter(),
                                             batch_size=3, shuffle=shuffle)]
    want = [b.tolist() for b in td.DataLoader(TW(range(8)).shuffle(buffer_size=4).sharding_filter(),
                                              batch_size=3, shuffle=shuffle)]
    if shuffle is False:
        assert got == want == [[0, 1, 2], [3, 4, 5], [6, 7]]
    else:
        assert sorted(sum(got, [])) == sorted(sum(want, [])) == list(range(8))


def test_datapipe_shuffle_follows_loader_seed():
    from retrograd.utils.data.datapipes.iter import IterableWrapper

    dl = rd.DataLoader(IterableWrapper(list(range(50))).shuffle(buffer_size=7).sharding_filter(), shuffle=True,
                       batch_size=None)
    runs = []
    for seed in (123, 123, 321):
        rg.manual_seed(seed)
        runs.append(list(dl))
    assert runs[0] == runs[1] and runs[0] != runs[2] and runs[0] != list(range(50))
    assert sorted(runs[0]) == sorted(runs[2]) == list(range(50))
    g = rg.Generator().manual_seed(5)
    seeded = rd.DataLoader(IterableWrapper(list(range(20))).shuffle(), shuffle=True, batch_size=None, generator=g)
    first = list(seeded)
    g.manual_seed(5)
    assert list(seeded) == first


def test_skip_if_no_dill_decorator():
    from retrograd.testing._internal import common_utils as cu

    assert hasattr(cu, "skipIfNoDill")
    import unittest

    class T(unittest.TestCase):
        @cu.skipIfNoDill
        def test_x(self):
            pass

    result = unittest.TestResult()
    T("test_x").run(result)
    assert result.wasSuccessful() and len(result.skipped) == (0 if cu.TEST_DILL else 1)


def test_namedtuple_and_dict_batches_match_torch():
    P = collections.namedtuple("P", ["a", "b"])
    samples = [P(i, {"s": str(i), "v": float(i)}) for i in range(4)]
    got = list(rd.DataLoader(samples, batch_size=3))
    want = list(td.DataLoader(samples, batch_size=3))
    assert [type(b).__name__ for b in got] == [type(b).__name__ for b in want]
    assert [plain(list(b)) for b in got] == [plain(list(b)) for b in want]
