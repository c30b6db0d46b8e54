"""Global settings (float32 matmul precision, deterministic mode, flush denormal), against torch."""

import pytest

import retrograd

torch = pytest.importorskip("torch")

from ._error_compare import _err as _err_api  # noqa: E402


def _err(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        return type(e).__name__, str(e).split(" (Triggered")[0]
    return None


def test_settings():
    assert retrograd.get_float32_matmul_precision() == torch.get_float32_matmul_precision() == "highest"
    retrograd.set_float32_matmul_precision("high")
    assert retrograd.get_float32_matmul_precision() == "high"
    with pytest.warns(UserWarning, match="foo is not one of 'highest', 'high', or 'medium'"):
        retrograd.set_float32_matmul_precision("foo")
    assert retrograd.get_float32_matmul_precision() == "high"
    retrograd.set_float32_matmul_precision("highest")
    assert retrograd.get_deterministic_debug_mode() == 0 and not retrograd.are_deterministic_algorithms_enabled()
    retrograd.set_deterministic_debug_mode("warn")
    assert retrograd.get_deterministic_debug_mode() == 1
    assert retrograd.is_deterministic_algorithms_warn_only_enabled()
    retrograd.set_deterministic_debug_mode(2)
    assert retrograd.get_deterministic_debug_mode() == 2 and retrograd.are_deterministic_algorithms_enabled()
    retrograd.set_deterministic_debug_mode(0)
    assert not retrograd.are_deterministic_algorithms_enabled()
    for bad in ["bad", 5]:
        assert _err(lambda: retrograd.set_deterministic_debug_mode(bad)) == \
            _err(lambda: torch.set_deterministic_debug_mode(bad))
    retrograd.set_warn_always(True)
    assert retrograd.is_warn_always_enabled()
    retrograd.set_warn_always(False)
    assert not retrograd.is_warn_always_enabled()
    assert isinstance(retrograd.compiled_with_cxx11_abi(), bool)
    assert retrograd.get_num_interop_threads() >= 1
    x = retrograd.ones(2)
    assert retrograd.get_device(x) == -1 and retrograd.is_signed(x) and not retrograd.is_inference(x)
    assert not retrograd.is_signed(retrograd.ones(2, dtype=retrograd.uint8))
    assert _err(lambda: retrograd.get_device(3)) == _err(lambda: torch.get_device(3))


def test_set_flush_denormal_argument_check():
    # NumPy cannot switch the CPU's flush-to-zero mode: retrograd reports False (torch: True on x86)
    assert retrograd.set_flush_denormal(False) is False
    for bad in (1, "a"):
        r, t = _err_api(lambda: retrograd.set_flush_denormal(bad), lambda: torch.set_flush_denormal(bad))
        assert r == t
