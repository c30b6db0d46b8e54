"""Views share storage and version with their base; in-place writes through views rewrite
the base's history (CopySlices) and regenerate other views' grad_fn; PyTorch's refusals.
Scenarios run on retrograd and torch and must log the same."""
import numpy as np
import pytest

import retrograd

torch = pytest.importorskip("torch")

from parity import same  # noqa: E402

from ..ops._indexing_helpers import LIBS, _base, _np  # noqa: E402


def t(lib, data, grad=True):
    return lib.tensor(data, dtype=lib.float64, requires_grad=grad)


def name(x):
    return type(x.grad_fn).__name__ if x.grad_fn is not None else None


def test_views_share_storage_version_and_base():
    def sc(lib, log):
        x = t(lib, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
        y = x * 1
        for v in (y[1:], y[0], y.t(), y.view(6), y.reshape(3, 2), y.transpose(0, 1), y.unsqueeze(0),
                  y.expand(2, 2, 3), y.narrow(1, 0, 2), y.select(1, 1), y.permute(1, 0), y[:, None]):
            log(v._is_view(), v._base is y, name(v))
        v = y[1:]
        v2 = v[:, 1:]
        log(v2._base is y, y._version, v._version)
        with lib.no_grad():
            v2.mul_(2)
        log(y._version, v._version, v2._version, y)
        d = x.detach()
        log(d._is_view(), d._base is None, x._is_view(), y.reshape(3, 2).t().contiguous()._is_view())

    same(sc)


@pytest.mark.parametrize("case", range(11))
def test_inplace_through_views_gives_correct_grads(case):
    def sc(lib, log):
        x = t(lib, [1.0, 2.0, 3.0])
        w = t(lib, 5.0)
        if case == 0:
            y = x.clone()
            y[1:].mul_(w)
            (y * y).sum().backward()
            log(x.grad, w.grad, name(y), y.grad_fn.name())
        elif case == 1:
            m = t(lib, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
            wv = t(lib, [7.0, 8.0, 9.0])
            y = m * 1
            v = y.t()
            v[:, 1].mul_(wv)
            (y ** 2).sum().backward()
            log(m.grad, wv.grad, name(y), name(v))
        elif case == 2:
            y = x * 1
            v = y[1:]
            v2 = v[0:1]
            v2.mul_(3)
            (y * y).sum().backward()
            log(x.grad, v._version, y._version, name(v2), name(v))
        elif case == 3:  # base written in place: an older view reads the new values
            y = x.clone()
            v = y[:2]
            y.mul_(2)
            (v * v).sum().backward()
            log(x.grad, name(v))
        elif case == 4:  # a view of a tensor that did not require grad picks up history
            z = lib.zeros(3, dtype=lib.float64)
            wv = t(lib, [1.0, 2.0])
            z[1:] = wv * 2
            z.sum().backward()
            log(wv.grad, z.requires_grad, z.is_leaf)
        elif case == 5:  # two overlapping writes, then backward through an earlier view
            m = t(lib, [[1.0, 2.0], [3.0, 4.0]])
            y = m.clone()
            a = y.view(4)
            a.add_(1)
            b = y.transpose(0, 1)
            b[0].mul_(m[0])
            (y * y).sum().backward()
            log(m.grad, name(y))
        elif case == 6:
            y = x.clone()
            y[0] = 7.0
            y.sum().backward()
            log(x.grad)
        elif case == 7:
            y = x.clone()
            v = y[1:]
            v.exp_()
            v.mul_(w)
            (y.sin()).sum().backward()
            log(x.grad, w.grad)
        elif case == 8:  # write through a view of a non-contiguous base
            m = t(lib, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
            y = (m * 1).t()  # non-contiguous, itself a view of m * 1
            s = y[1]
            s.mul_(w)
            (y ** 2).sum().backward()
            log(m.grad, w.grad)
        elif case == 10:  # a 0-d element view is a real view
            y = x.clone()
            y[0].mul_(w)
            y.sum().backward()
            log(y, x.grad, w.grad, name(y))
        else:
            y = x * 1
            u = y.unsqueeze(0)
            e = u.expand(2, 3)
            (e * e).sum().backward(retain_graph=True)
            log(x.grad)
            x.grad = None
            y.add_(1)
            (e * e).sum().backward()
            log(x.grad, name(e))

    same(sc)


@pytest.mark.parametrize("key", ["basic", "advanced", "bool", "mixed"])
def test_setitem_on_tensors_requiring_grad(key):
    def sc(lib, log):
        x = t(lib, [[1.0, -2.0, 3.0], [-4.0, 5.0, 6.0]])
        w = t(lib, [10.0, 20.0])
        y = x * 1
        if key == "basic":
            y[:, 1] = w
        elif key == "advanced":
            y[lib.tensor([0, 1]), lib.tensor([2, 0])] = w
        elif key == "bool":
            y[y < 0] = w
        else:
            y[1, [0, 2]] = w * w
        (y * y).sum().backward()
        log(x.grad, w.grad, y)

    same(sc)


def test_setitem_leaf_errors():
    def sc(lib, log):
        x = t(lib, [1.0, 2.0])
        for f in (lambda: x[0].mul_(2), lambda: x[0:1].mul_(2), lambda: x.mul_(2)):
            try:
                f()
            except RuntimeError as e:
                log(str(e))
        with lib.no_grad():
            x[0] = 5.0
        log(x)

    same(sc)


def test_no_grad_view_refusal_and_flags():
    def sc(lib, log):
        x = t(lib, [1.0, 2.0, 3.0, 4.0])
        y = x * 1
        with lib.no_grad():
            v = y[1:]
        log(v.requires_grad, v._is_view(), v.grad_fn, v.is_leaf)
        try:
            v.mul_(2)
        except RuntimeError as e:
            log(str(e))
        z = lib.zeros(3)
        with lib.no_grad():
            v2 = z[1:]
        v2.mul_(2.0)  # nothing requires grad: allowed
        try:
            v2.mul_(lib.tensor(2.0, requires_grad=True))
        except RuntimeError as e:
            log(str(e))
        with lib.no_grad():
            v.mul_(3)  # both in no_grad: allowed
        log(y)

    same(sc)


def test_multi_output_view_refusal():
    def sc(lib, log):
        x = t(lib, [1.0, 2.0, 3.0, 4.0])
        y = x * 1
        for f in (lambda: y.split(2)[1], lambda: y.chunk(2)[0], lambda: y.view(2, 2).unbind()[1]):
            try:
                f().mul_(2)
            except RuntimeError as e:
                log(str(e))
        with lib.no_grad():
            a, b = y.split(2)
        try:
            b.mul_(2)
        except RuntimeError as e:
            log(str(e))

    same(sc)


def test_inplace_on_base_regenerates_view_grad_fn_and_versions():
    def sc(lib, log):
        x = t(lib, [1.0, 2.0, 3.0])
        y = x * 1
        v = y[1:]
        log(name(v))
        y.mul_(2)
        log(name(v), v._version, v)
        (v * v).sum().backward()
        log(x.grad)

    same(sc)


def test_saved_view_modified_through_base_raises_version_error():
    def sc(lib, log):
        x = t(lib, [1.0, 2.0, 3.0])
        y = x * 1
        v = y[:2]
        z = v.sin()  # sin saves its input (the view)
        y.add_(1)
        z.sum().backward()

    log = same(sc)
    assert log[0][1] == "RuntimeError" and "modified by an inplace operation" in log[0][2]


def test_region_indices_for_strided_bases():
    from retrograd._ops.views_inplace import region_indices

    base = np.arange(24.0).reshape(4, 6).T  # non-contiguous
    view = base[1:4:2, ::3]
    idx = region_indices(base, view)
    assert np.array_equal(base.reshape(-1)[idx], view)
    cbase = np.arange(12.0).reshape(3, 4)
    cview = cbase[:, 1::2].T
    assert np.array_equal(cbase.reshape(-1)[region_indices(cbase, cview)], cview)


# ---------------------------------------------------------------------------- views
VIEWS = {
    "diagonal": lambda lib, x: x.diagonal(),
    "diagonal_offset": lambda lib, x: x.diagonal(1),
    "unbind": lambda lib, x: x.unbind()[1],
    "unbind_dim1": lambda lib, x: x.unbind(1)[2],
    "split": lambda lib, x: x.split(2)[1],
    "split_sizes": lambda lib, x: x.split([1, 3], 1)[1],
    "chunk": lambda lib, x: x.chunk(2, 1)[0],
    "tensor_split": lambda lib, x: x.tensor_split(2)[1],
    "unflatten": lambda lib, x: x.unflatten(1, (2, 2)),
    "ravel": lambda lib, x: x.ravel(),
    "broadcast_to": lambda lib, x: x[0].broadcast_to(2, 4),
    "broadcast_tensors": lambda lib, x: lib.broadcast_tensors(x[:, :1], x)[0],
    "meshgrid": lambda lib, x: lib.meshgrid(x[0], x[1], indexing="ij")[0],
    "atleast_3d": lambda lib, x: lib.atleast_3d(x),
    "ellipsis": lambda lib, x: x[...],
    "none": lambda lib, x: x[None, 1],
    "slice_step": lambda lib, x: x[::2, 1::2],
}


@pytest.mark.parametrize("name", sorted(VIEWS))
def test_views_share_memory_and_version_counter(name):
    seen = []
    for lib in LIBS:
        x = _base(lib)
        v = VIEWS[name](lib, x)
        root = x if name not in ("broadcast_to", "broadcast_tensors", "meshgrid", "none") else x
        assert v._base is root, f"{lib.__name__}: {name} is not a view of its input"
        before = v._version
        x.add_(1)
        assert v._version == x._version == before + 1
        seen.append(_np(v).copy())
    np.testing.assert_array_equal(seen[0], seen[1])


@pytest.mark.parametrize("name", ["diagonal", "diagonal_offset", "unflatten", "ravel", "tensor_split", "ellipsis",
                                  "slice_step"])
def test_writes_through_views_reach_the_base(name):
    res = []
    for lib in LIBS:
        x = _base(lib)
        VIEWS[name](lib, x).mul_(-2)
        res.append(_np(x).copy())
    np.testing.assert_array_equal(res[0], res[1])


def test_copies_are_not_views():
    for fn in (lambda x: x.flip(0), lambda x: x.roll(1), lambda x: x.rot90(), lambda x: x.diag(),
               lambda x: x.repeat(2, 1), lambda x: x.tril(), lambda x: x.t().ravel()._base):
        y = fn(_base(retrograd))
        x = _base(retrograd)
        assert y is None or not np.shares_memory(_np(y), _np(x))


@pytest.mark.parametrize("fn", [lambda x: x.unbind(), lambda x: x.split(2), lambda x: x.chunk(2, 1),
                                lambda x: x.split([1, 2])])
def test_multi_output_views_are_marked(fn):
    x = _base(retrograd, grad=True)
    outs = fn(x * 1)
    assert all(o.__dict__.get("_view_meta") == "multi" for o in outs)
    assert all(o._base is not None for o in outs)
    # made in grad mode they are marked even without grad (as torch: copying a tensor that requires
    # grad into one is refused), yet a plain in-place write stays allowed
    plain = fn(_base(retrograd))
    assert all(o.__dict__.get("_view_meta") == "multi" for o in plain)
    plain[0].add_(1)
    # torch refuses in-place writes to these outputs when they require grad
    with pytest.raises(RuntimeError, match="output of a function that returns multiple views"):
        fn(_base(torch, grad=True) * 1)[0].add_(1)


def test_multi_output_view_grads():
    res = []
    for lib in LIBS:
        x = _base(lib, grad=True)
        a, b, c = x.unbind(0)
        p, q = x.split([3, 1], 1)
        ((a * 2).sum() + c.sum() + (p * p).sum() + q.sum()).backward()
        res.append(_np(x.grad))
        assert type(a.grad_fn).__name__ == "UnbindBackward0" and a.grad_fn is c.grad_fn
        assert type(p.grad_fn).__name__ == "SplitWithSizesBackward0" and p.output_nr == 0 and q.output_nr == 1
    np.testing.assert_array_equal(res[0], res[1])
