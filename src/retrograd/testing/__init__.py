"""``retrograd.testing``: ``assert_close`` and ``make_tensor``, as in ``torch.testing``.

>>> import retrograd as torch
>>> torch.testing.assert_close(torch.tensor([1., 2.]), torch.tensor([1., 2.]))
"""
from __future__ import annotations

from ._comparison import assert_allclose, assert_close
from ._creation import make_tensor

__all__ = ["assert_close", "assert_allclose", "make_tensor"]
