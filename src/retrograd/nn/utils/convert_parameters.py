"""Flatten parameters into one vector and back."""
from __future__ import annotations

from ..._tensor import Tensor
from .._util import cat

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def parameters_to_vector(parameters) -> Tensor:
    """One 1-d tensor holding every parameter, flattened, in order (differentiable).

    >>> import retrograd as torch
    >>> torch.nn.utils.parameters_to_vector(torch.nn.Linear(2, 1).parameters()).shape
    torch.Size([3])
    """
    return cat([p.reshape(-1) for p in parameters], 0)


def vector_to_parameters(vec: Tensor, parameters) -> None:
    """Copy slices of ``vec`` into the parameters' data, in order."""
    if not isinstance(vec, Tensor):
        from ..modules.module import _typename

        raise TypeError(f"expected torch.Tensor, but got: {_typename(vec)}")
    pointer = 0
    for param in parameters:
        n = param.numel()
        param.data = vec[pointer:pointer + n].view_as(param).data
        pointer += n
