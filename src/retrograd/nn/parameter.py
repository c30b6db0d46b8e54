"""``Parameter`` (a Tensor that a Module registers as trainable) and ``Buffer``."""
from __future__ import annotations

from .._tensor import Tensor

__all__ = ["Parameter", "Buffer"]


def _as_tensor_data(data):
    if data is None:
        from .._creation import empty

        return empty(0)
    if not isinstance(data, Tensor):
        # PyTorch calls ``data.detach()`` on anything that is not exactly a Tensor
        raise AttributeError(f"'{type(data).__name__}' object has no attribute 'detach'")
    return data


class Parameter(Tensor):
    """A Tensor that is a module parameter: assigning it to a Module attribute registers it.

    It shares memory with ``data``; operations on a Parameter return plain Tensors.

    >>> import retrograd as torch
    >>> p = torch.nn.Parameter(torch.ones(2))
    >>> p
    Parameter containing:
    tensor([1., 1.], requires_grad=True)
    >>> type(p * 2).__name__
    'Tensor'
    """

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True):
        data = _as_tensor_data(data)
        t = object.__new__(cls)
        Tensor._init(t, data._data, False)
        t._vc = data._vcounter()
        if requires_grad:
            if not (data.is_floating_point() or data.is_complex()):
                # the message of PyTorch's Tensor._make_subclass (requires_grad_ words it differently)
                raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
            t.requires_grad_(True)
        return t

    def __init__(self, data: Tensor | None = None, requires_grad: bool = True) -> None:
        pass  # everything happens in __new__

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    __str__ = __repr__

    def __reduce_ex__(self, protocol):
        return (_rebuild_parameter, (self._data, self._requires_grad))

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        # like PyTorch's Parameter.__deepcopy__: data and requires_grad only, the .grad is not copied
        new = Parameter(Tensor._wrap(self._data.copy(), False, None, 0), self._requires_grad)
        memo[id(self)] = new
        return new


def _rebuild_parameter(data, requires_grad):
    return Parameter(Tensor._wrap(data, False, None, 0), requires_grad)


class _BufferMeta(type):
    # ``isinstance(t, Buffer)`` is True for tensors made by ``Buffer(...)``, as in PyTorch.
    def __instancecheck__(cls, instance) -> bool:
        if cls is Buffer:
            return isinstance(instance, Tensor) and getattr(instance, "_is_buffer", False)
        return super().__instancecheck__(instance)


class Buffer(Tensor, metaclass=_BufferMeta):
    """Marks a tensor as a module buffer when assigned to a Module attribute.

    >>> import retrograd as torch
    >>> m = torch.nn.Module()
    >>> m.running = torch.nn.Buffer(torch.zeros(2))
    >>> list(dict(m.named_buffers()))
    ['running']
    """

    def __new__(cls, data: Tensor | None = None, *, persistent: bool = True):
        data = _as_tensor_data(data)
        t = data.detach()
        if data.requires_grad:
            t.requires_grad_(True)
        t.__dict__["persistent"] = persistent
        t.__dict__["_is_buffer"] = True
        return t
