"""``torch.backends.cuda`` without CUDA: flags to read back, never built.

>>> import retrograd as torch
>>> torch.backends.cuda.is_built()
False
"""
from __future__ import annotations

import types

__all__ = ["is_built", "matmul"]


def is_built() -> bool:
    return False


matmul = types.SimpleNamespace(allow_tf32=False, allow_fp16_reduced_precision_reduction=True,
                               allow_bf16_reduced_precision_reduction=True)
