"""``torch.backends``: the switches of back ends retrograd does not have (cuDNN, CUDA, MPS ...).

Each submodule answers like PyTorch built for the CPU only: ``is_available()`` / ``is_built()``
are False, flags can be set and read back, and nothing changes how retrograd computes.

>>> import retrograd as torch
>>> torch.backends.cuda.is_built(), torch.backends.mps.is_available()
(False, False)
"""
from __future__ import annotations

from . import cpu, cuda, cudnn, mkldnn, mps, quantized  # noqa: F401

__all__ = ["cpu", "cuda", "cudnn", "mkldnn", "mps", "quantized"]
