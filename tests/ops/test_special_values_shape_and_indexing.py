"""Shape, view and indexing ops against PyTorch on edge cases: -1 inference and its errors,
0-d and empty tensors, no-op views, out-of-range dims / indices / starts, index dtypes,
multiple ellipses, index_put checks, scatter_reduce aliases and src larger than index.

Each case runs the same call on retrograd and torch and compares forward values, dtype,
shape, view-ness (``_is_view``, ``_base``, shared memory), grad_fn names, first-order
gradients and, for invalid calls, the exception type and the first line of its message."""
import numpy as np
import pytest

import retrograd as rg

torch = pytest.importorskip("torch")

A = np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 7
M = np.arange(12, dtype=np.float32).reshape(3, 4) - 5
MZ = np.array([[1., 0., 2., 3.], [0., 0., 2., 5.], [4., 4., 1., 1.]], np.float32)
V = np.arange(5, dtype=np.float32) * 1.5
S = np.array(2.5, dtype=np.float32)
E = np.zeros((0, 3), np.float32)
IX = [[0, 0, 2, 1], [2, 2, 2, 0]]
SRC = np.array([[1., 0., 2., 3.], [2., 0., 2., 0.]], np.float32)


def L(t, v):
    return t.tensor(v)


def _si(key, val):
    def f(t, x):
        y = x * 1
        y[key] = val
        return y
    return f


CASES = {
    # reshape / view: PyTorch's infer_size order and messages, views of empty tensors
    "reshape_m1": (lambda t, x: x.reshape(4, -1), [A]),
    "reshape_nc_copy": (lambda t, x: x.transpose(0, 1).reshape(-1), [A]),
    "reshape_2neg": (lambda t, x: x.reshape(-1, -1), [A]),
    "reshape_neg2": (lambda t, x: x.reshape(-2, 12), [A]),
    "reshape_bad": (lambda t, x: x.reshape(5, -1), [A]),
    "reshape_0_ambiguous": (lambda t, x: x.reshape(0, -1), [E]),
    "reshape_empty_view": (lambda t, x: x.reshape(3, 0), [E]),
    "view_nc_error": (lambda t, x: x.t().view(-1), [M]),
    "view_nc_ok": (lambda t, x: x[:, :, :2].view(6, 2), [A]),
    "flatten_same_dim": (lambda t, x: x.flatten(1, 1), [A]),
    "flatten_bad": (lambda t, x: x.flatten(2, 1), [A]),
    "unflatten_2neg": (lambda t, x: x.unflatten(-1, (-1, -1)), [A]),
    "unflatten_bad": (lambda t, x: x.unflatten(-1, (3, -1)), [A]),
    # squeeze / unsqueeze / transpose on 0-d and no-op dims
    "squeeze_noop_dim_is_view": (lambda t, x: x.squeeze(1), [A]),
    "squeeze_0d_dim0": (lambda t, x: x.squeeze(0), [S]),
    "squeeze_0d_dim1": (lambda t, x: x.squeeze(1), [S]),
    "squeeze_tuple": (lambda t, x: x.reshape(1, 2, 1, 12).squeeze((0, 1)), [A]),
    "unsqueeze_tuple": (lambda t, x: x.unsqueeze((0, 1)), [A]),
    "unsqueeze_oob": (lambda t, x: x.unsqueeze(4), [A]),
    "transpose_0d": (lambda t, x: x.transpose(0, -1), [S]),
    "permute_dup": (lambda t, x: x.permute(0, 0, 1), [A]),
    "movedim_dup_src": (lambda t, x: t.movedim(x, (0, -3), (1, 2)), [A]),
    "movedim_dup_dst": (lambda t, x: t.movedim(x, (0, 1), (1, -2)), [A]),
    "movedim_len": (lambda t, x: t.movedim(x, (0, 1), (1,)), [A]),
    "movedim": (lambda t, x: t.movedim(x, (0, 1), (2, 0)), [A]),
    "expand_size0_view": (lambda t, x: x.expand(0, 5), [V]),
    "expand_bad": (lambda t, x: x.expand(3, 3, 4), [A]),
    # repeat / tile / repeat_interleave
    "repeat_neg": (lambda t, x: x.repeat(-1, 2), [M]),
    "repeat_neg_lead": (lambda t, x: x.repeat(-1, 2, 3), [M]),
    "tile_varargs": (lambda t, x: x.tile(2, 3), [M]),
    "tile": (lambda t, x: t.tile(x, (2, 1, 2)), [M]),
    "rinter_neg": (lambda t, x: x.repeat_interleave(-1), [M]),
    "rinter_neg_tensor": (lambda t, x: x.repeat_interleave(L(t, [1, -1, 2]), dim=0), [M]),
    "rinter_float": (lambda t, x: x.repeat_interleave(L(t, [1., 2., 0.]), dim=0), [M]),
    "rinter_2d": (lambda t, x: x.repeat_interleave(L(t, [[1, 2, 0]]), dim=0), [M]),
    "rinter_only_2d": (lambda t, x: t.repeat_interleave(L(t, [[1, 2]])), [M]),
    "rinter_tensor": (lambda t, x: x.repeat_interleave(L(t, [1, 0, 2]), dim=0), [M]),
    # joining
    "cat_dtype": (lambda t, x, y: t.cat([x, y]), [M, np.ones((1, 4), np.float64)]),
    "cat_empty1d": (lambda t, x, y: t.cat([y, x], 1), [M, np.zeros(0, np.float32)]),
    "hstack_empty": (lambda t: t.hstack([]), []),
    "vstack_empty": (lambda t: t.vstack([]), []),
    "dstack_empty": (lambda t: t.dstack([]), []),
    "column_stack_empty": (lambda t: t.column_stack([]), []),
    "stack_mismatch": (lambda t, x, y: t.stack([x, y]), [M, M[:2].copy()]),
    # splitting
    "split_sizes_neg": (lambda t, x: x.split([5, -1], 1), [M]),
    "split_0d": (lambda t, x: x.split(1), [S]),
    "chunk_0d": (lambda t, x: x.chunk(2), [S]),
    "chunk_empty_views": (lambda t, x: x.chunk(2), [E]),
    "tsplit_0d": (lambda t, x: x.tensor_split(2), [S]),
    "tsplit_float_tensor": (lambda t, x: x.tensor_split(L(t, [1.])), [V]),
    "tsplit_int32_tensor": (lambda t, x: x.tensor_split(L(t, [1]).int()), [V]),
    "tsplit_empty_piece_view": (lambda t, x: x.tensor_split([1, 4], 1), [M]),
    "narrow_neglen": (lambda t, x: x.narrow(1, 0, -1), [M]),
    "narrow_start_oob": (lambda t, x: x.narrow(1, -5, 1), [M]),
    "narrow_start_oob2": (lambda t, x: x.narrow(1, 5, 0), [M]),
    "narrow_0d": (lambda t, x: x.narrow(0, 0, 1), [S]),
    "narrow_neg_start": (lambda t, x: x.narrow(-1, -2, 2), [M]),
    "select_oob": (lambda t, x: x.select(1, 4), [M]),
    "select_oob_empty": (lambda t, x: x.select(0, 0), [E]),
    "rot90_same_neg": (lambda t, x: x.rot90(1, (1, -1)), [M]),
    "diagonal_kbig_view": (lambda t, x: x.diagonal(7), [M]),
    "diag_embed": (lambda t, x: t.diag_embed(x, 1, 0, 2), [M]),
    # __getitem__
    "gi_int_oob": (lambda t, x: x[-4], [M]),
    "gi_zero_step": (lambda t, x: x[::0], [M]),
    "gi_neg_step": (lambda t, x: x[:, ::-1], [M]),
    "gi_empty_slice_view": (lambda t, x: x[3:1], [M]),
    "gi_two_ellipses": (lambda t, x: x[..., 1, ...], [A]),
    "gi_0d_slice": (lambda t, x: x[:], [S]),
    "gi_0d_int": (lambda t, x: x[0], [S]),
    "gi_0d_list": (lambda t, x: x[[0]], [S]),
    "gi_0d_none_int": (lambda t, x: x[None, 0], [S]),
    "gi_str": (lambda t, x: x["a"], [M]),
    "gi_adv_size0": (lambda t, x: x[[0, 0]], [E]),
    "gi_adv_dup": (lambda t, x: x[[0, 0, 2, 0]], [M]),
    "gi_adv_sl_adv": (lambda t, x: x[[0, 1], :, [0, 3]], [A]),
    "gi_int_sl_adv": (lambda t, x: x[0, :, [1, 3]], [A]),
    "gi_float_index": (lambda t, x: x[L(t, [0., 1.])], [M]),
    # __setitem__ / index_put
    "si_0d_fill_is_copy": (_si((), 3.0), [S]),
    "si_0d_ellipsis": (_si(Ellipsis, 3.0), [S]),
    "si_full_fill": (_si(Ellipsis, 3.0), [M]),
    "si_adv_dup": (_si([0, 0], 1.0), [M]),
    "si_view": (_si((slice(1, None), slice(None, None, 2)), 1.0), [M]),
    "ip_dtype": (lambda t, x, v: x.index_put((L(t, [1]),), v), [M, np.ones(4, np.float64)]),
    "ip_none_index": (lambda t, x, v: x.index_put((None, L(t, [1])), v), [M, np.ones(3, np.float32)]),
    "ip_list_index": (lambda t, x, v: x.index_put(([0, 1],), v), [M, np.ones(4, np.float32)]),
    "ip_value_shape": (lambda t, x, v: x.index_put((L(t, [1, 2]),), v), [M, np.ones(3, np.float32)]),
    "ip_value_lead_ones": (lambda t, x, v: x.index_put((L(t, [0, 1]),), v), [M, np.ones((2, 1, 4), np.float32)]),
    "ip_index_shapes": (lambda t, x, v: x.index_put((L(t, [0, 1]), L(t, [0, 1, 2])), v), [M, np.ones(2, np.float32)]),
    "ip_too_many": (lambda t, x, v: x.index_put((L(t, [1]), L(t, [1]), L(t, [0])), v), [M, np.ones(1, np.float32)]),
    "ip_scalar_value": (lambda t, x: x.index_put((L(t, [1]),), 1.0), [M]),
    "ip_acc_dup": (lambda t, x, v: x.index_put((L(t, [1, 1]),), v, True), [M, np.ones((2, 4), np.float32)]),
    "ip_inplace": (lambda t, x, v: (x * 1).index_put_((L(t, [1]),), v, accumulate=True), [M, np.ones(4, np.float32)]),
    # gather / scatter / index_* / masked_* / take: index dtypes, bounds, grads
    "gather_dup": (lambda t, x: x.gather(0, L(t, IX)), [M]),
    "gather_float": (lambda t, x: x.gather(0, L(t, [[1.]])), [M]),
    "gather_int16": (lambda t, x: x.gather(0, L(t, [[1]]).to(t.int16)), [M]),
    "gather_int32": (lambda t, x: x.gather(0, L(t, [[1]]).int()), [M]),
    "scatter_float": (lambda t, x: x.scatter(0, L(t, [[0.]]), 2.0), [M]),
    "scatter_add_float": (lambda t, x, s: x.scatter_add(0, L(t, [[0.]]), s), [M, SRC]),
    "tad_float": (lambda t, x: t.take_along_dim(x, L(t, [[0.]]), 1), [M]),
    "tad_int32": (lambda t, x: t.take_along_dim(x, L(t, [[0]]).int(), 1), [M]),
    "take_float": (lambda t, x: x.take(L(t, [1.])), [M]),
    "take_int32": (lambda t, x: x.take(L(t, [1]).int()), [M]),
    "take_dup": (lambda t, x: x.take(L(t, [1, 1, -1])), [M]),
    "is_oob_dim0": (lambda t, x: x.index_select(0, L(t, [3])), [M]),
    "is_oob_dim1": (lambda t, x: x.index_select(1, L(t, [4])), [M]),
    "is_neg_dim1": (lambda t, x: x.index_select(1, L(t, [-1])), [M]),
    "ia_float_idx": (lambda t, x, s: x.index_add(0, L(t, [1.]), s), [M, np.ones((1, 4), np.float32)]),
    "ia_dtype": (lambda t, x, s: x.index_add(0, L(t, [1]), s), [M, np.ones((1, 4), np.float64)]),
    "ia_dup_alpha": (lambda t, x, s: x.index_add(1, L(t, [1, 1]), s, alpha=2.5), [M, np.ones((3, 2), np.float32)]),
    "ic_int32": (lambda t, x, s: x.index_copy(0, L(t, [1]).int(), s), [M, np.ones((1, 4), np.float32)]),
    "ic_float": (lambda t, x, s: x.index_copy(0, L(t, [1.]), s), [M, np.ones((1, 4), np.float32)]),
    "ic_dtype": (lambda t, x, s: x.index_copy(0, L(t, [1]), s), [M, np.ones((1, 4), np.float64)]),
    "if_float": (lambda t, x: x.index_fill(1, L(t, [1.]), 1.0), [M]),
    "if_int32": (lambda t, x: x.index_fill(1, L(t, [1]).int(), 1.0), [M]),
    "ms_dtype": (lambda t, x, s: x.masked_scatter(x > 0, s), [M, np.ones(12, np.float64)]),
    "ms_int_mask": (lambda t, x, s: x.masked_scatter(L(t, [1, 0, 0, 1]), s), [M, np.ones(12, np.float32)]),
    "mf_int_mask": (lambda t, x: x.masked_fill(L(t, [1, 0, 0, 1]), 0.5), [M]),
    "msel_int_mask": (lambda t, x: x.masked_select(L(t, [1, 0, 0, 1])), [M]),
    "ms": (lambda t, x, s: x.masked_scatter(x > 0, s), [M, np.arange(12, dtype=np.float32) + 100]),
    "scatter_src_larger": (lambda t, x, s: x.scatter(0, L(t, [[0, 1, 2, 0]]), s), [M, np.ones((2, 4), np.float32)]),
    "scatter_add_src_larger": (lambda t, x, s: x.scatter_add(0, L(t, [[0, 1, 2, 0]]), s), [M, SRC]),
    "sr_sum_src_larger": (lambda t, x, s: x.scatter_reduce(1, L(t, [[0], [3], [2]]), s, "sum"), [MZ, MZ]),
    "sr_amax_src_larger": (lambda t, x, s: x.scatter_reduce(1, L(t, [[0], [3], [2]]), s, "amax"), [MZ, MZ]),
    "sr_max_alias": (lambda t, x, s: x.scatter_reduce(0, L(t, IX), s, "max"), [MZ, SRC]),
    "sr_min_alias_int": (lambda t, x, s: x.long().scatter_reduce(0, L(t, IX), s.long(), "min"), [MZ, SRC]),
    "sr_bad": (lambda t, x, s: x.scatter_reduce(0, L(t, IX), s, "foo"), [MZ, SRC]),
    "nonzero_tuple_views": (lambda t, x: t.nonzero(x, as_tuple=True), [M]),
    "nonzero_0d_tuple": (lambda t, x: x.nonzero(as_tuple=True), [S]),
    "where_1arg_views": (lambda t, x: t.where(x > 0), [M]),
}
for _red in ["sum", "prod", "mean", "amax", "amin"]:
    for _inc in [True, False]:
        CASES[f"sr_{_red}_{_inc}"] = ((lambda r, i: lambda t, x, s: x.scatter_reduce(0, L(t, IX), s, r, include_self=i))(
            _red, _inc), [MZ, SRC])


def _run(lib, fn, arrays):
    xs = [lib.tensor(a) for a in arrays]
    for x in xs:
        if x.dtype.is_floating_point:
            x.requires_grad_(True)
    try:
        return xs, fn(lib, *xs), None
    except Exception as e:  # noqa: BLE001 - the oracle decides which exceptions are right
        return xs, None, (type(e).__name__, str(e).split("\n")[0])


def _flat(o):
    return [y for e in o for y in _flat(e)] if isinstance(o, (tuple, list)) else [o]


def _shares(o, x, is_torch: bool) -> bool:
    if is_torch:
        return o.numel() > 0 and o.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
    return bool(o._data.size) and bool(np.shares_memory(o._data, x._data))


def _name(t):
    return None if t.grad_fn is None else type(t.grad_fn).__name__


@pytest.mark.parametrize("name", list(CASES))
def test_against_torch(name):
    fn, arrays = CASES[name]
    tx, to, terr = _run(torch, fn, arrays)
    rx, ro, rerr = _run(rg, fn, arrays)
    assert rerr == terr
    if terr is not None:
        return
    tl, rl = _flat(to), _flat(ro)
    assert len(tl) == len(rl)
    losses_t, losses_r = [], []
    rng = np.random.default_rng(0)
    for a, b in zip(tl, rl):
        assert tuple(b.shape) == tuple(a.shape)
        assert str(b.dtype).split(".")[-1] == str(a.dtype).split(".")[-1]
        np.testing.assert_allclose(b.detach().numpy().astype(np.float64), a.detach().numpy().astype(np.float64),
                                   rtol=1e-6, atol=1e-6)
        assert _name(b) == _name(a)
        assert b._is_view() == a._is_view()
        assert [b._base is q for q in rx] == [a._base is p for p in tx]
        assert [_shares(b, q, False) for q in rx] == [_shares(a, p, True) for p in tx]
        assert b._version == a._version
        if a.requires_grad and a.dtype.is_floating_point:
            w = rng.standard_normal(tuple(a.shape)).astype(np.float32)
            losses_t.append((a * torch.tensor(w)).sum())
            losses_r.append((b * rg.tensor(w)).sum())
    if not losses_t:
        return
    terr = rerr = None
    try:
        sum(losses_t).backward()
    except RuntimeError as e:
        terr = str(e).split("\n")[0]
    try:
        sum(losses_r).backward()
    except RuntimeError as e:
        rerr = str(e).split("\n")[0]
    assert rerr == terr
    if terr is None:
        for p, q in zip(tx, rx):
            assert (q.grad is None) == (p.grad is None)
            if p.grad is not None:
                np.testing.assert_allclose(q.grad.numpy(), p.grad.numpy(), rtol=1e-5, atol=1e-5)


def test_nonzero_tuple_shares_one_base():
    x = rg.tensor([[1., 0.], [2., 3.]])
    r, c = x.nonzero(as_tuple=True)
    assert r._base is c._base and r._base is not None
    assert r.tolist() == [0, 1, 1] and c.tolist() == [0, 0, 1]
