"""retrograd.utils.hooks: RemovableHandle (deepcopy, pickle, ids), unserializable hooks, against torch."""

import copy
import pickle
import warnings

import pytest

import retrograd as rg

torch = pytest.importorskip("torch")


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
