"""retrograd.cpu and the deprecated torch.cpu.amp aliases, against torch."""

import warnings

import pytest

import retrograd as rg
import retrograd.cpu as rg_cpu

torch = pytest.importorskip("torch")


# ---------------------------------------------------------------- 8. torch.cpu
def test_cpu_namespace_like_torch():
    def run(C):
        s = C.Stream()
        with C.stream(s):
            inside = C.current_stream() is s
        return (C.is_available(), C.device_count(), C.current_device(), C.synchronize(), C.is_initialized(),
                C.set_device("cpu"), inside, C.current_stream() is s, C.Event().query(),
                "architecture" in C.get_capabilities())
    assert run(rg_cpu) == run(torch.cpu)


def test_cpu_amp_deprecated_aliases_like_torch():
    def run(C, T, get_autocast_dtype):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            ac = C.amp.autocast()
            with ac:
                enabled = T.is_autocast_enabled("cpu")
            scaler = C.amp.GradScaler()
            with C.amp.autocast(enabled=False):
                disabled = T.is_autocast_enabled("cpu")
        deprecations = [str(x.message) for x in w if x.category is FutureWarning]
        return (deprecations, enabled, disabled, str(ac.fast_dtype).split(".")[-1], type(ac).__name__,
                isinstance(ac, T.amp.autocast), isinstance(scaler, T.amp.GradScaler), scaler.get_scale(),
                str(get_autocast_dtype("cpu")).split(".")[-1], str(get_autocast_dtype("cuda")).split(".")[-1])
    # (torch.get_autocast_dtype is top-level in PyTorch; retrograd's lives in retrograd.amp)
    assert run(rg_cpu, rg, rg.amp.get_autocast_dtype) == run(torch.cpu, torch, torch.get_autocast_dtype)


def test_cpu_amp_imports_as_a_module():
    from retrograd.cpu.amp import GradScaler, autocast  # noqa: F401

    import retrograd.cpu.amp

    assert retrograd.cpu.amp.autocast is rg_cpu.amp.autocast
