"""The few helpers of PyTorch's ``common_methods_invocations`` that plain tests import.

The OpInfo database itself is not provided (``@ops`` is unsupported, see docs/testing.md):
the OpInfo class names that test files import exist so those files import, but building one
raises ``NotImplementedError`` and the op lists (``op_db``, ``reduction_ops`` ...) are empty.

>>> import retrograd as torch
>>> from retrograd.testing._internal.common_methods_invocations import mask_not_all_zeros
>>> bool(mask_not_all_zeros((3, 4)).any())
True
"""
from __future__ import annotations

import retrograd

__all__ = [
    "mask_not_all_zeros", "OpInfo", "ReductionOpInfo", "ReductionPythonRefInfo", "UnaryUfuncInfo",
    "BinaryUfuncInfo", "op_db", "reduction_ops", "reference_masked_ops", "python_ref_db",
]


def mask_not_all_zeros(shape) -> "retrograd.Tensor":
    """A random boolean mask of ``shape`` with at least one True element (resampled until so)."""
    if retrograd.Size(shape).numel() == 0:
        raise ValueError("mask_not_all_zeros needs a non-empty shape")
    while True:
        result = retrograd.randn(shape).gt(0)
        if result.sum() > 0:
            return result


class OpInfo:
    """Placeholder for PyTorch's OpInfo: retrograd ships no OpInfo database."""

    def __init__(self, *args, **kwargs) -> None:
        raise NotImplementedError("retrograd has no OpInfo database (see docs/testing.md)")


class ReductionOpInfo(OpInfo):
    """Placeholder (see :class:`OpInfo`)."""


class ReductionPythonRefInfo(ReductionOpInfo):
    """Placeholder (see :class:`OpInfo`)."""


class UnaryUfuncInfo(OpInfo):
    """Placeholder (see :class:`OpInfo`)."""


class BinaryUfuncInfo(OpInfo):
    """Placeholder (see :class:`OpInfo`)."""


# Empty on purpose: tests that iterate these lists run no OpInfo samples.
op_db: list = []
reduction_ops: list = []
reference_masked_ops: list = []
python_ref_db: list = []
