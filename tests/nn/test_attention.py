"""retrograd.nn.attention: SDPBackend and sdpa_kernel, against torch."""
from __future__ import annotations

import pytest

import retrograd
import retrograd.nn.attention as RA

TA = pytest.importorskip("torch.nn.attention")


# ---------------------------------------------------------------------------------------------- attention
def test_sdp_backend_enum():
    assert [(m.name, m.value) for m in RA.SDPBackend] == \
        [(k, v.value) for k, v in TA.SDPBackend.__members__.items()]
    for name in ["MATH", "ERROR", "CUDNN_ATTENTION"]:
        r, t = getattr(RA.SDPBackend, name), getattr(TA.SDPBackend, name)
        assert repr(r) == repr(t) and str(r) == str(t) and int(r) == int(t)
        assert (r == 0) == (t == 0)
    with pytest.raises(TypeError):
        RA.SDPBackend.MATH < RA.SDPBackend.FLASH_ATTENTION  # noqa: B015
    assert RA.WARN_FOR_UNFUSED_KERNELS is TA.WARN_FOR_UNFUSED_KERNELS


def _names(backends):
    return [b.name for b in backends]


# (torch's C++ priority table has no slot for ERROR: ``[ERROR]`` with ``set_priority=True`` corrupts its
# flags, so that one combination is left out)
@pytest.mark.parametrize("arg, set_priority", [("MATH", False), ("MATH", True), ([], False), ([], True),
                                               (["FLASH_ATTENTION", "MATH", "FLASH_ATTENTION"], False),
                                               (["CUDNN_ATTENTION", "MATH", "CUDNN_ATTENTION"], True),
                                               (["ERROR"], False)])
def test_sdpa_kernel_state_matches_torch(arg, set_priority):
    def conv(mod):
        return getattr(mod.SDPBackend, arg) if isinstance(arg, str) else [getattr(mod.SDPBackend, a) for a in arg]

    got = []
    for mod in (RA, TA):
        before = _names(mod._cur_sdpa_kernel_backends(with_priority=True))
        with mod.sdpa_kernel(conv(mod), set_priority=set_priority) as ctx:
            assert ctx == {}
            inside = (_names(mod._cur_sdpa_kernel_backends()), _names(mod._cur_sdpa_kernel_backends(True)))
        after = _names(mod._cur_sdpa_kernel_backends(with_priority=True))
        got.append((before, inside, after))
    assert got[0] == got[1]


@pytest.mark.parametrize("bad", [0, "math", (RA.SDPBackend.MATH,), None])
def test_sdpa_kernel_rejects_non_backends(bad):
    tbad = (TA.SDPBackend.MATH,) if isinstance(bad, tuple) else bad
    with pytest.raises(AssertionError) as t:
        with TA.sdpa_kernel(tbad):
            pass
    with pytest.raises(AssertionError) as r:
        with RA.sdpa_kernel(bad):
            pass
    assert str(r.value) == str(t.value)


def test_sdpa_kernel_is_a_noop_for_attention_and_restores_on_error():
    q = retrograd.randn(2, 3, 4, requires_grad=True)
    ref = retrograd.nn.functional.scaled_dot_product_attention(q, q, q)
    with pytest.raises(KeyError):
        with RA.sdpa_kernel([RA.SDPBackend.FLASH_ATTENTION]):
            out = retrograd.nn.functional.scaled_dot_product_attention(q, q, q)
            raise KeyError("boom")
    assert (out - ref).abs().max().item() == 0.0
    assert "MATH" in _names(RA._cur_sdpa_kernel_backends())
