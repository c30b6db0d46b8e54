"""``torch.testing._internal.two_tensor``: PyTorch's ``TwoTensor`` test subclass (not supported).

``TwoTensor`` is a wrapper tensor subclass that runs every op on two inner tensors through
``__torch_dispatch__``; retrograd has no dispatcher-level subclass mechanism, so the name is
importable (test modules that mention it load) and constructing one raises ``NotImplementedError``.

>>> from retrograd.testing._internal.two_tensor import TwoTensor
>>> try:
...     TwoTensor(None, None)
... except NotImplementedError as e:
...     print("not supported")
not supported
"""
from __future__ import annotations

__all__ = ["TwoTensor"]


class TwoTensor:
    """Placeholder for PyTorch's ``__torch_dispatch__`` wrapper subclass; raises when constructed."""

    def __new__(cls, *args, **kwargs):
        raise NotImplementedError(
            "TwoTensor is a __torch_dispatch__ wrapper subclass; retrograd does not support "
            "wrapper tensor subclasses")
