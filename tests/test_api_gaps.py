"""Small torch 2.13 APIs client code hits (utils.data, optim.Muon, checkpoint, autograd.graph, nn.init,
nn.utils memory-format converters, utils.hooks), checked against real PyTorch."""
import collections
import copy
import functools
import pickle
import warnings

import numpy as np
import pytest

import retrograd as rg
from retrograd.utils import data as rd

torch = pytest.importorskip("torch")
import torch.utils.checkpoint as tcp  # noqa: E402
import torch.utils.data as td  # noqa: E402

import retrograd.utils.checkpoint as rcp  # noqa: E402


def raises_like(tfn, rfn):
    """Both calls raise the same exception type with the same message (retrograd. read as torch.)."""
    with pytest.raises(Exception) as te:
        tfn()
    with pytest.raises(Exception) as re_:
        rfn()
    assert type(re_.value).__name__ == type(te.value).__name__
    assert str(re_.value).replace("retrograd.", "torch.") == str(te.value), (str(re_.value), str(te.value))


def same(a, b, path="x"):
    """torch structure ``a`` and retrograd structure ``b`` hold the same things."""
    if isinstance(a, torch.Tensor):
        assert isinstance(b, rg.Tensor), path
        assert str(a.dtype).split(".")[1] == b.dtype.name, path
        np.testing.assert_array_equal(b.numpy(), a.numpy(), err_msg=path)
    elif isinstance(a, dict):
        assert type(a) is type(b) and list(a) == list(b), path
        for k in a:
            same(a[k], b[k], f"{path}[{k!r}]")
    elif isinstance(a, (list, tuple)):
        assert type(a) is type(b) and len(a) == len(b), (path, type(a), type(b))
        for i, (x, y) in enumerate(zip(a, b)):
            same(x, y, f"{path}[{i}]")
    else:
        assert type(a) is type(b) and a == b, (path, a, b)


# ------------------------------------------------------------------ 1. utils.data
def test_stack_dataset_tuple_dict_and_getitems():
    xs, ys = list(range(5)), "abcde"
    for lib in (td, rd):
        assert lib.StackDataset(xs, ys)[2] == (2, "c")
        assert lib.StackDataset(a=xs, b=ys)[4] == {"a": 4, "b": "e"}
        assert len(lib.StackDataset(a=xs, b=ys)) == 5
    tds, rds = td.StackDataset(xs, ys), rd.StackDataset(xs, ys)
    assert rds.__getitems__([0, 3]) == tds.__getitems__([0, 3])
    assert rd.StackDataset(a=xs, b=ys).__getitems__([1, 2]) == td.StackDataset(a=xs, b=ys).__getitems__([1, 2])
    # batched fetch through a nested dataset that has __getitems__ (TensorDataset via Subset)
    tt = torch.arange(10.).view(5, 2)
    rt = rg.arange(10.).view(5, 2)
    tb = next(iter(td.DataLoader(td.StackDataset(td.Subset(td.TensorDataset(tt), [4, 3, 2, 1, 0]), xs),
                                 batch_size=3)))
    rb = next(iter(rd.DataLoader(rd.StackDataset(rd.Subset(rd.TensorDataset(rt), [4, 3, 2, 1, 0]), xs),
                                 batch_size=3)))
    same(tb, rb)


def test_stack_dataset_errors():
    raises_like(lambda: td.StackDataset([1], b=[2]), lambda: rd.StackDataset([1], b=[2]))
    raises_like(lambda: td.StackDataset(), lambda: rd.StackDataset())
    raises_like(lambda: td.StackDataset([1, 2], [3]), lambda: rd.StackDataset([1, 2], [3]))
    raises_like(lambda: td.StackDataset(a=[1, 2], b=[3]), lambda: rd.StackDataset(a=[1, 2], b=[3]))

    class Short:
        def __len__(self):
            return 3

        def __getitems__(self, idx):
            return [0]
    raises_like(lambda: td.StackDataset(Short()).__getitems__([0, 1]),
                lambda: rd.StackDataset(Short()).__getitems__([0, 1]))


@pytest.mark.parametrize("n", [1, 5, 8, 11, 23])
@pytest.mark.parametrize("replicas", [1, 2, 3, 4])
@pytest.mark.parametrize("shuffle,drop_last", [(False, False), (False, True), (True, False), (True, True)])
def test_distributed_sampler_indices_match_torch(n, replicas, shuffle, drop_last):
    ds = list(range(n))
    for rank in range(replicas):
        for seed, epoch in [(0, 0), (7, 3)]:
            ts = td.DistributedSampler(ds, num_replicas=replicas, rank=rank, shuffle=shuffle, seed=seed,
                                       drop_last=drop_last)
            rs = rd.DistributedSampler(ds, num_replicas=replicas, rank=rank, shuffle=shuffle, seed=seed,
                                       drop_last=drop_last)
            ts.set_epoch(epoch)
            rs.set_epoch(epoch)
            assert list(rs) == list(ts)
            assert len(rs) == len(ts) and rs.total_size == ts.total_size


def test_distributed_sampler_padding_wraps_more_than_once_and_errors():
    # 2 samples over 5 replicas: the index list is repeated more than once to pad
    for rank in range(5):
        assert list(rd.DistributedSampler([0, 1], 5, rank, shuffle=False)) == \
            list(td.DistributedSampler([0, 1], 5, rank, shuffle=False))
    raises_like(lambda: td.DistributedSampler(range(4)), lambda: rd.DistributedSampler(range(4)))
    raises_like(lambda: td.DistributedSampler(range(4), num_replicas=2),
                lambda: rd.DistributedSampler(range(4), num_replicas=2))
    raises_like(lambda: td.DistributedSampler(range(4), num_replicas=2, rank=2),
                lambda: rd.DistributedSampler(range(4), num_replicas=2, rank=2))
    raises_like(lambda: td.DistributedSampler(range(4), num_replicas=2, rank=-1),
                lambda: rd.DistributedSampler(range(4), num_replicas=2, rank=-1))
    # inside a DataLoader
    tl = td.DataLoader(list(range(9)), batch_size=2, sampler=td.DistributedSampler(range(9), 2, 1, seed=3))
    rl = rd.DataLoader(list(range(9)), batch_size=2, sampler=rd.DistributedSampler(range(9), 2, 1, seed=3))
    same(list(tl), list(rl))


Pair = collections.namedtuple("Pair", ["a", "b"])


def test_default_collate_namedtuple_numpy_strings_nested_dicts():
    assert td.default_collate is not None and rd.default_collate is not None
    batch = [{"p": Pair(np.array([1., 2.], dtype=np.float32), "s"), "d": {"n": np.int64(i), "f": 0.5 * i},
              "l": [i, b"x"]} for i in range(3)]
    same(td.default_collate(batch), rd.default_collate(batch))
    same(td.default_convert(batch[0]), rd.default_convert(batch[0]))
    same(td.default_convert(Pair(np.ones(2), [np.zeros(1)])), rd.default_convert(Pair(np.ones(2), [np.zeros(1)])))
    raises_like(lambda: td.default_collate([np.array(["a"]), np.array(["b"])]),
                lambda: rd.default_collate([np.array(["a"]), np.array(["b"])]))


def test_get_worker_info_none_in_main_process():
    assert td.get_worker_info() is None
    assert rd.get_worker_info() is None


# ------------------------------------------------------------------ 2. optim.Muon
def _muon_run(lib, kw, shape, steps=20, dtype="float32", seed=0):
    rng = np.random.default_rng(seed)
    w0 = rng.standard_normal(shape).astype(dtype)
    targets = [rng.standard_normal(shape).astype(dtype) for _ in range(steps)]
    w = lib.nn.Parameter(lib.tensor(w0.copy()))
    opt = lib.optim.Muon([w], **kw)
    for t in targets:
        opt.zero_grad()
        (w * w * lib.tensor(t)).sum().backward()
        opt.step()
    return w.detach().numpy().copy(), opt


@pytest.mark.parametrize("shape", [(4, 7), (9, 3), (16, 16), (6, 12)])
@pytest.mark.parametrize("kw", [dict(lr=0.02), dict(lr=0.05, nesterov=False, weight_decay=0.01),
                                dict(lr=rg.tensor(0.01), adjust_lr_fn="match_rms_adamw", ns_steps=3),
                                dict(lr=0.03, momentum=0.5, adjust_lr_fn="original", eps=1e-3)])
def test_muon_20_steps_match_torch(shape, kw):
    tkw = {k: (torch.tensor(v.item()) if isinstance(v, rg.Tensor) else v) for k, v in kw.items()}
    t, topt = _muon_run(torch, tkw, shape)
    r, ropt = _muon_run(rg, kw, shape)
    # The Newton-Schulz iteration runs in bfloat16: a float32 accumulation near a bfloat16 rounding
    # tie can round the other way (one bfloat16 ulp); everything else is bit-identical.
    np.testing.assert_allclose(r, t, rtol=0, atol=1e-4)
    sd_t, sd_r = topt.state_dict(), ropt.state_dict()
    assert list(sd_r["state"][0]) == list(sd_t["state"][0]) == ["momentum_buffer"]
    assert sorted(sd_r["param_groups"][0]) == sorted(sd_t["param_groups"][0])


def test_muon_float64_and_exact_bits_small():
    t, _ = _muon_run(torch, dict(lr=0.02), (5, 8), dtype="float64")
    r, _ = _muon_run(rg, dict(lr=0.02), (5, 8), dtype="float64")
    np.testing.assert_allclose(r, t, rtol=0, atol=1e-12)
    t, _ = _muon_run(torch, dict(lr=0.02), (5, 8), steps=3)
    r, _ = _muon_run(rg, dict(lr=0.02), (5, 8), steps=3)
    np.testing.assert_array_equal(r, t)


def test_muon_newton_schulz_matches_torch_bf16():
    from torch.optim._muon import _zeropower_via_newtonschulz as tns

    from retrograd.optim.muon import _newton_schulz

    rng = np.random.default_rng(3)
    total = bad = 0
    for shape in [(8, 8), (33, 20), (20, 33), (5, 17), (64, 48)]:
        g = rng.standard_normal(shape).astype(np.float32)
        ref = tns(torch.from_numpy(g), (3.4445, -4.7750, 2.0315), 5, 1e-7).float().numpy()
        ours = _newton_schulz(g, (3.4445, -4.7750, 2.0315), 5, 1e-7)
        np.testing.assert_allclose(ours, ref, rtol=0, atol=0.02)  # at most a few bfloat16 ulps
        if g.size < 1000:  # (long float32 sums: GEMM order decides more near-tie roundings)
            total += ref.size
            bad += int((ref != ours).sum())
    assert bad <= total * 0.01


def test_muon_errors_match_torch():
    tp, rp = torch.nn.Parameter(torch.ones(2, 2)), rg.nn.Parameter(rg.ones(2, 2))
    for kw in [dict(lr=-1.0), dict(momentum=-0.1), dict(weight_decay=-1.0), dict(adjust_lr_fn="x")]:
        raises_like(lambda: torch.optim.Muon([tp], **kw), lambda: rg.optim.Muon([rp], **kw))
    raises_like(lambda: torch.optim.Muon([torch.nn.Parameter(torch.ones(3))]),
                lambda: rg.optim.Muon([rg.nn.Parameter(rg.ones(3))]))
    raises_like(lambda: torch.optim.Muon([tp], lr=torch.ones(2)), lambda: rg.optim.Muon([rp], lr=rg.ones(2)))

    def step(lib, p, **kw):
        p.grad = lib.ones(2, 2)
        lib.optim.Muon([p], **kw).step()
    raises_like(lambda: step(torch, tp, ns_steps=100), lambda: step(rg, rp, ns_steps=100))
    raises_like(lambda: step(torch, tp, ns_coefficients=(1.0, 2.0)), lambda: step(rg, rp, ns_coefficients=(1.0, 2.0)))


# ------------------------------------------------------------------ 3. utils.checkpoint
def _sac_grads(lib, cp, context_fn):
    rng = np.random.default_rng(0)
    x = lib.tensor(rng.standard_normal((4, 4)), requires_grad=True)
    y = lib.tensor(rng.standard_normal((4, 4)), requires_grad=True)

    def fn(a, b):
        return lib.sigmoid(lib.matmul(lib.matmul(a, b), b)) * b

    out = cp.checkpoint(fn, x, y, use_reentrant=False, context_fn=context_fn)
    # (torch refuses a second backward through a selective-checkpoint region, so first order only)
    gx, gy = lib.autograd.grad((out * out).sum(), (x, y))
    return [t.detach().numpy() for t in (out, gx, gy)]


def test_selective_checkpoint_results_and_grads_match_torch():
    def t_policy(ctx, op, *args, **kwargs):
        return tcp.CheckpointPolicy.MUST_SAVE if op == torch.ops.aten.mm.default else \
            tcp.CheckpointPolicy.PREFER_RECOMPUTE

    def r_policy(ctx, op, *args, **kwargs):
        return rcp.CheckpointPolicy.MUST_SAVE if op is rg.mm else rcp.CheckpointPolicy.PREFER_RECOMPUTE

    cases = [(functools.partial(tcp.create_selective_checkpoint_contexts, t_policy),
              functools.partial(rcp.create_selective_checkpoint_contexts, r_policy)),
             (functools.partial(tcp.create_selective_checkpoint_contexts, [torch.ops.aten.mm.default]),
              functools.partial(rcp.create_selective_checkpoint_contexts, [rg.mm, "mm"]))]
    for tctx, rctx in cases:
        for a, b in zip(_sac_grads(torch, tcp, tctx), _sac_grads(rg, rcp, rctx)):
            np.testing.assert_allclose(b, a, rtol=1e-12, atol=1e-12)


def test_checkpoint_policy_and_sac_errors():
    assert [(p.name, p.value) for p in rcp.CheckpointPolicy] == [(p.name, p.value) for p in tcp.CheckpointPolicy]
    raises_like(lambda: tcp.create_selective_checkpoint_contexts(3), lambda: rcp.create_selective_checkpoint_contexts(3))
    with pytest.raises(ValueError, match="Expected op in `op_list` to be an OpOverload but got: 3"):
        rcp.create_selective_checkpoint_contexts([3])
    fwd, rec = rcp.create_selective_checkpoint_contexts(lambda *a, **k: rcp.CheckpointPolicy.MUST_SAVE)
    with fwd, rec:
        pass
    assert rcp.SelectiveCheckpointContext(is_recompute=False, op_output=1).op_output == 1


def test_checkpoint_settings_and_device_states():
    x = rg.ones(3, requires_grad=True)
    with rcp.set_checkpoint_early_stop(False):
        assert rcp._enable_checkpoint_early_stop is False
        out = rcp.checkpoint(lambda t: (t.exp() * t).sum(), x, use_reentrant=False)
    assert rcp._enable_checkpoint_early_stop is None
    out.backward()
    tx = torch.ones(3, requires_grad=True)
    tcp.checkpoint(lambda t: (t.exp() * t).sum(), tx, use_reentrant=False).backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-6)
    with rcp.set_checkpoint_debug_enabled(True):
        assert rcp._checkpoint_debug_enabled is True
        with rcp.set_checkpoint_debug_enabled(None):
            assert rcp._checkpoint_debug_enabled is None
        assert rcp._checkpoint_debug_enabled is True
    assert rcp._checkpoint_debug_enabled is None
    assert rcp.get_device_states(rg.ones(2), 3) == tcp.get_device_states(torch.ones(2), 3) == ([], [])
    rcp.set_device_states([], [])
    assert rcp.DefaultDeviceType.get_device_type() == tcp.DefaultDeviceType.get_device_type() == "cpu"
    with rcp.GraphExecGroup():
        with pytest.raises(RuntimeError, match="GraphExecGroup contexts cannot be nested"):
            rcp.GraphExecGroup().__enter__()


def test_checkpoint_function_name():
    tx, rx = torch.ones(2, requires_grad=True), rg.ones(2, requires_grad=True)
    ty = tcp.CheckpointFunction.apply(lambda t: t.exp(), True, tx)
    ry = rcp.CheckpointFunction.apply(lambda t: t.exp(), True, rx)
    assert type(ry.grad_fn).__name__ == type(ty.grad_fn).__name__ == "CheckpointFunctionBackward"
    assert type(rcp.checkpoint(lambda t: t.exp(), rx, use_reentrant=True).grad_fn).__name__ == \
        "CheckpointFunctionBackward"
    ty.sum().backward()
    ry.sum().backward()
    np.testing.assert_allclose(rx.grad.numpy(), tx.grad.numpy(), rtol=1e-6)


# ------------------------------------------------------------------ 4. autograd.graph
def test_increment_version_bumps_and_triggers_saved_tensor_check():
    for lib in (torch, rg):
        a = lib.ones(2)
        lib.autograd.graph.increment_version(a)
        lib.autograd.graph.increment_version([a, a])
        assert a._version == 3
    def run(lib):
        x = lib.ones(3, requires_grad=True)
        y = x.clone()
        z = (y * y).sum()
        lib.autograd.graph.increment_version(y)
        z.backward()
    raises_like(lambda: run(torch), lambda: run(rg))
    raises_like(lambda: torch.autograd.graph.increment_version(3), lambda: rg.autograd.graph.increment_version(3))
    raises_like(lambda: torch.autograd.graph.increment_version([torch.ones(1), 2]),
                lambda: rg.autograd.graph.increment_version([rg.ones(1), 2]))
    with rg.inference_mode():
        t = rg.ones(2)
    rg.autograd.graph.increment_version(t)  # no counter: no error, as in torch


def _mutation_grads(lib):
    rng = np.random.default_rng(1)
    a = lib.tensor(rng.standard_normal((2, 3)), requires_grad=True)
    with lib.autograd.graph.allow_mutation_on_saved_tensors():
        b = a.clone()
        c = b.exp()          # saves its output
        out = (b ** 2).sum() + (c * b).sum()
        b.sin_()             # b is saved by pow and mul
        c.mul_(3)            # c is saved by exp and mul
        ga, = lib.autograd.grad(out, a, create_graph=True)
        gga, = lib.autograd.grad(ga.sum(), a)
    return ga.detach().numpy(), gga.numpy(), b.detach().numpy(), c.detach().numpy()


def test_allow_mutation_on_saved_tensors_matches_torch():
    for x, y in zip(_mutation_grads(torch), _mutation_grads(rg)):
        np.testing.assert_allclose(y, x, rtol=1e-12, atol=1e-12)

    def outside(lib):
        with lib.autograd.graph.allow_mutation_on_saved_tensors():
            a = lib.ones(2, 3, requires_grad=True)
            b = a.clone()
            out = (b ** 2).sum()
            b.sin_()
        out.backward()
    raises_like(lambda: outside(torch), lambda: outside(rg))

    def nested(lib):
        with lib.autograd.graph.allow_mutation_on_saved_tensors():
            with lib.autograd.graph.allow_mutation_on_saved_tensors():
                pass
    raises_like(lambda: nested(torch), lambda: nested(rg))
    with rg.autograd.graph.allow_mutation_on_saved_tensors():  # usable again after the error
        pass
    # without the context the usual error
    def plain(lib):
        a = lib.ones(2, requires_grad=True)
        b = a.clone()
        out = (b ** 2).sum()
        b.sin_()
        out.backward()
    raises_like(lambda: plain(torch), lambda: plain(rg))


def test_register_multi_grad_hook_exists_and_runs():
    seen = []
    a, b = rg.ones(2, requires_grad=True), rg.ones(2, requires_grad=True)
    rg.autograd.graph.register_multi_grad_hook((a, b), lambda gs: seen.append([g is not None for g in gs]))
    (a * 2).sum().backward()
    assert seen == [[True, False]]


# ------------------------------------------------------------------ 5. nn.init deprecated aliases
ALIASES = [("uniform", ()), ("normal", ()), ("constant", (0.5,)), ("xavier_uniform", ()), ("xavier_normal", ()),
           ("kaiming_uniform", ()), ("kaiming_normal", ()), ("orthogonal", ()), ("sparse", (0.5,)), ("eye", ()),
           ("dirac", ())]


@pytest.mark.parametrize("name,args", ALIASES)
def test_nn_init_deprecated_aliases(name, args):
    shape = (3, 2, 3) if name == "dirac" else (4, 3)

    def call(lib):
        lib.manual_seed(0)
        w = lib.empty(*shape)
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            out = getattr(lib.nn.init, name)(w, *args)
        assert out is w
        return w.numpy(), [(r.category, str(r.message)) for r in rec]

    tw, twarn = call(torch)
    rw, rwarn = call(rg)
    assert rwarn == twarn == [(FutureWarning, f"`nn.init.{name}` is now deprecated in favor of `nn.init.{name}_`.")]
    if name in ("constant", "eye", "dirac", "uniform", "normal", "xavier_uniform", "xavier_normal",
                "kaiming_uniform", "kaiming_normal"):
        np.testing.assert_allclose(rw, tw, rtol=1e-6, atol=1e-7)
    assert getattr(rg.nn.init, name).__name__ == name


# ------------------------------------------------------------------ 6. conv weight memory format
def _conv_strides(lib, fn_name, fmt_name):
    lib.manual_seed(0)
    nn = lib.nn
    if fn_name.endswith("2d_weight_memory_format"):
        m = nn.Sequential(nn.Conv2d(3, 4, 3), nn.ReLU(), nn.Sequential(nn.ConvTranspose2d(4, 2, 2), nn.Conv2d(2, 5, 1)),
                          nn.Conv3d(2, 2, 1), nn.Linear(2, 2))
    else:
        m = nn.Sequential(nn.Conv3d(3, 4, 3), nn.Sequential(nn.ConvTranspose3d(4, 2, 2)), nn.Conv2d(2, 2, 3))
    out = getattr(nn.utils, fn_name)(m, getattr(lib, fmt_name))
    assert out is m
    return [(n, tuple(p.stride()), type(p).__name__, p.detach().numpy().copy()) for n, p in m.named_parameters()]


@pytest.mark.parametrize("fn_name,fmt_name", [("convert_conv2d_weight_memory_format", "channels_last"),
                                              ("convert_conv2d_weight_memory_format", "contiguous_format"),
                                              ("convert_conv3d_weight_memory_format", "channels_last_3d"),
                                              ("convert_conv3d_weight_memory_format", "contiguous_format")])
def test_convert_conv_weight_memory_format_strides(fn_name, fmt_name):
    t, r = _conv_strides(torch, fn_name, fmt_name), _conv_strides(rg, fn_name, fmt_name)
    assert [x[:3] for x in r] == [x[:3] for x in t]
    for (_, _, _, a), (_, _, _, b) in zip(t, r):
        assert a.shape == b.shape


def test_convert_conv_weight_memory_format_errors_and_training():
    raises_like(lambda: torch.nn.utils.convert_conv3d_weight_memory_format(torch.nn.Conv3d(2, 2, 1),
                                                                          torch.channels_last),
                lambda: rg.nn.utils.convert_conv3d_weight_memory_format(rg.nn.Conv3d(2, 2, 1), rg.channels_last))
    raises_like(lambda: torch.nn.utils.convert_conv2d_weight_memory_format(torch.nn.Conv2d(2, 2, 1),
                                                                          torch.preserve_format),
                lambda: rg.nn.utils.convert_conv2d_weight_memory_format(rg.nn.Conv2d(2, 2, 1), rg.preserve_format))
    # the converted weight is still the module's Parameter and trains
    m = rg.nn.utils.convert_conv2d_weight_memory_format(rg.nn.Conv2d(2, 3, 2), rg.channels_last)
    w_before = m.weight.detach().clone()
    m(rg.ones(1, 2, 3, 3)).sum().backward()
    assert m.weight.grad is not None and m.weight.grad.shape == m.weight.shape
    rg.optim.SGD(m.parameters(), lr=0.1).step()
    assert not np.allclose(m.weight.detach().numpy(), w_before.numpy())


# ------------------------------------------------------------------ 7. utils.hooks
def _hook_fn(module, inp, out):
    return out * 2


def test_removable_handle_deepcopy_and_pickle_like_torch():
    def run(lib):
        res = []
        m = lib.nn.Linear(2, 2)
        h = m.register_forward_hook(_hook_fn)
        m2, h2 = copy.deepcopy((m, h))
        res.append(len(m2._forward_hooks))
        h2.remove()
        res += [len(m2._forward_hooks), len(m._forward_hooks), h2.id == h.id]
        h3 = copy.deepcopy(h)  # alone: its dict copy dies with it
        res.append(h3.hooks_dict_ref() is None)
        h3.remove()
        m4, h4 = pickle.loads(pickle.dumps((m, h)))
        res.append(len(m4._forward_hooks))
        h4.remove()
        res += [len(m4._forward_hooks), len(m._forward_hooks)]
        hp = m.register_forward_pre_hook(lambda mod, a, k: None, with_kwargs=True)
        m5, hp5 = copy.deepcopy((m, hp))
        hp5.remove()
        res += [len(m5._forward_pre_hooks), len(m5._forward_pre_hooks_with_kwargs), len(m._forward_pre_hooks)]
        res.append(len(pickle.loads(pickle.dumps(h)).__getstate__()))
        return res
    assert run(rg) == run(torch)


def test_removable_handle_state_restores_next_id():
    h = rg.utils.hooks.RemovableHandle(rg.utils.hooks.HookDict())
    big = rg.utils.hooks.RemovableHandle.next_id + 1000
    h.__setstate__((None, big))
    assert rg.utils.hooks.RemovableHandle.next_id == big + 1
    assert h.hooks_dict_ref() is None
    h.remove()  # dead reference: nothing to do


def test_unserializable_hook_and_warn_if_has_hooks():
    import torch.utils.hooks as th

    import retrograd.utils.hooks as rh

    def run(lib, hooks_mod):
        t = lib.ones(2, requires_grad=True)
        t.register_hook(lambda g: g)
        t.register_hook(hooks_mod.unserializable_hook(lambda g: g))
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            hooks_mod.warn_if_has_hooks(t)
            hooks_mod.warn_if_has_hooks(lib.ones(1))
        return [(r.category, str(r.message).split(" on tensor")[1]) for r in rec]
    assert run(rg, rh) == run(torch, th)
    assert len(run(rg, rh)) == 1
    assert set(rh.__all__) == set(th.__all__)
    assert rh.BackwardHook.__name__ in ("BackwardHook", "_BackwardHook")


def test_allow_mutation_with_custom_function_save_for_backward():
    def run(lib):
        class Sq(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x

            @staticmethod
            def backward(ctx, g):
                x, = ctx.saved_tensors
                return 2 * x * g
        with lib.autograd.graph.allow_mutation_on_saved_tensors():
            a = lib.tensor([1., 2., -3.], requires_grad=True)
            b = a.clone()
            y = Sq.apply(b)
            b.mul_(10)
            y.sum().backward()
        return a.grad.numpy()
    np.testing.assert_array_equal(run(rg), run(torch))
