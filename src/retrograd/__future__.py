"""``torch.__future__``: switches for behaviour that is meant to become the default.

Both flags are process-wide and default to ``False``.  ``swap_module_params_on_conversion``
asks ``nn.Module`` conversions (``.to()``, ``.float()`` ...) and ``load_state_dict`` to keep
each parameter object and replace its contents (PyTorch uses ``torch.utils.swap_tensors``);
``overwrite_module_params_on_conversion`` asks conversions to assign new parameter objects.

>>> import retrograd.__future__ as future
>>> future.get_swap_module_params_on_conversion()
False
>>> future.set_swap_module_params_on_conversion(True); future.get_swap_module_params_on_conversion()
True
>>> future.set_swap_module_params_on_conversion(False)
"""
from __future__ import annotations

__all__ = ["set_overwrite_module_params_on_conversion", "get_overwrite_module_params_on_conversion",
           "set_swap_module_params_on_conversion", "get_swap_module_params_on_conversion"]

_overwrite_module_params_on_conversion: bool = False
_swap_module_params_on_conversion: bool = False


def set_overwrite_module_params_on_conversion(value: bool) -> None:
    """Set whether module conversions assign new parameter objects instead of changing them in place."""
    global _overwrite_module_params_on_conversion
    _overwrite_module_params_on_conversion = bool(value)


def get_overwrite_module_params_on_conversion() -> bool:
    """Whether module conversions assign new parameter objects (default ``False``)."""
    return _overwrite_module_params_on_conversion


def set_swap_module_params_on_conversion(value: bool) -> None:
    """Set whether module conversions and ``load_state_dict`` keep parameter objects and swap their contents."""
    global _swap_module_params_on_conversion
    _swap_module_params_on_conversion = bool(value)


def get_swap_module_params_on_conversion() -> bool:
    """Whether module conversions and ``load_state_dict`` swap parameter contents (default ``False``)."""
    return _swap_module_params_on_conversion
