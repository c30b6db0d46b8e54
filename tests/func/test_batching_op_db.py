"""Every op of the test table (tests/op_db) under ``vmap``: the batched replay (each op's
batching rule, or its per-element fallback) must give what running the op on each batch
element alone gives.

Batch of 3 float64 samples (three seeds of the same spec sample); two ways of mapping: every
tensor argument mapped, and only the first one (the others shared, unbatched), which takes
the rules' batched-with-unbatched paths.  Tolerance 1e-9 relative: a batched NumPy call and
the per-element calls do the same float64 arithmetic, up to BLAS blocking in matmuls.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import retrograd
from op_db import T, all_specs
from retrograd.func import _vmap

SPECS = [s for s in all_specs() if not s.nondeterministic]
# Ops that may refuse vmap with PyTorch's in-place error (they write a batched value into a window
# of a tensor that the trace does not know as batched): they raise or are right, never wrong.
REFUSED = {"as_strided_scatter": "output with shape"}
CASES = [pytest.param(s, i, mode, id=f"{s.name}-{i}-{mode}") for s in SPECS for i in range(len(s.samples))
         if any(isinstance(a, T) for a in s.samples[i].args)
         for mode in (("all", "first") if sum(isinstance(a, T) for a in s.samples[i].args) > 1 else ("all",))]
B = 3


def _values(spec, i, seed):
    rng = np.random.default_rng(1000 * i + seed)
    sample = spec.samples[i]

    def mk(v):
        if isinstance(v, T):
            return retrograd.from_numpy(np.array(v.make(rng, "float64"), copy=True))
        if isinstance(v, list) and v and all(isinstance(x, T) for x in v):
            return [mk(x) for x in v]
        return v

    return [mk(a) for a in sample.args], {k: mk(v) for k, v in sample.kwargs.items()}


def _flat(out):
    if isinstance(out, (tuple, list)):
        return [y for o in out for y in _flat(o)]
    return [out]


@pytest.mark.parametrize("spec,i,mode", CASES)
def test_vmap_matches_per_element(spec, i, mode):
    _vmap._checked.clear()  # (each case's replay is checked afresh: the test's f is one function for all)
    per = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            for seed in range(B):
                a, k = _values(spec, i, seed)
                per.append(_flat(spec.invoke(retrograd, a, k)))
        except Exception:
            pytest.skip("the op refuses this sample")
    args, kwargs = _values(spec, i, 0)
    mapped = [j for j, a in enumerate(args) if isinstance(a, retrograd.Tensor)]
    if mode == "first":
        mapped = mapped[:1]
    if not mapped or any(not isinstance(o, retrograd.Tensor) for o in per[0]):
        pytest.skip("nothing to map, or a non-tensor result")
    batched = []
    for j in mapped:
        batched.append(retrograd.stack([_values(spec, i, seed)[0][j] for seed in range(B)]))
    shared = [a if isinstance(a, retrograd.Tensor) else a for a in args]

    def f(*ts):
        full = list(shared)
        for j, t in zip(mapped, ts):
            full[j] = t
        return tuple(_flat(spec.invoke(retrograd, full, kwargs)))

    # per-element reference with the shared arguments as vmap sees them (element 0's)
    ref = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for b in range(B):
            ref.append(f(*[x[b] for x in batched]))
        if any(tuple(r[k].shape) != tuple(ref[0][k].shape) for r in ref for k in range(len(r))):
            with pytest.raises(RuntimeError):  # (output shapes that depend on the data: PyTorch refuses too)
                retrograd.vmap(f)(*batched)
            return
        try:
            got = retrograd.vmap(f)(*batched)
        except RuntimeError as exc:
            if str(exc).startswith("vmap:") or str(exc).startswith(REFUSED.get(spec.name, "vmap:")):
                return  # (a refusal PyTorch's vmap makes too: data-dependent control flow, .item())
            raise
    for k, g in enumerate(got):
        want = retrograd.stack([r[k] for r in ref])
        assert g.dtype == want.dtype and tuple(g.shape) == tuple(want.shape), (k, g.dtype, want.dtype, g.shape,
                                                                              want.shape)
        np.testing.assert_allclose(g.numpy(), want.numpy(), rtol=1e-9, atol=1e-12, equal_nan=True)
