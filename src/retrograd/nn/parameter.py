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


# ---------------------------------------------------------------------------------------------
# Uninitialized parameters and buffers (what lazy modules hold before their first forward)
# ---------------------------------------------------------------------------------------------
import os as _os  # noqa: E402
import sys as _sys  # noqa: E402

__all__ += ["UninitializedTensorMixin", "UninitializedParameter", "UninitializedBuffer", "is_lazy"]

_PKG_DIR = _os.path.dirname(_os.path.dirname(_os.path.abspath(__file__)))
_RAW = Tensor.__dict__["_data"]  # the slot descriptor: reads the array without the guard below

# Tensor members that work on an uninitialized tensor (the same list as PyTorch's): everything else
# that reads the data raises.  Properties ``dtype``, ``ndim``, ``data``, ``device`` also work.
_ALLOWED = ("size", "copy_", "is_complex", "is_floating_point", "half", "float", "double", "char", "short",
            "int", "long", "cuda", "cpu", "to", "get_device")
# operator dunders named as PyTorch names the method it reports
_DUNDER_NAMES = {"__add__": "add", "__radd__": "add", "__iadd__": "add_", "__sub__": "sub", "__isub__": "sub_",
                 "__mul__": "mul", "__rmul__": "mul", "__imul__": "mul_", "__truediv__": "div",
                 "__itruediv__": "div_", "__neg__": "neg", "__abs__": "abs", "__pow__": "pow",
                 "__matmul__": "matmul"}


def _caller_description(obj) -> str:
    """Which public function the user called when ``obj``'s data was read, in PyTorch's wording.

    Only runs on the error path: walks up from the reading frame to the outermost public frame
    inside retrograd (the function the user called) and names it as a Tensor method when ``obj``
    is its first argument, as a function otherwise.
    """
    frame = _sys._getframe(2)
    best = None
    while frame is not None:
        code = frame.f_code
        if not code.co_filename.startswith(_PKG_DIR):
            if best is not None:
                break
        elif not code.co_name.startswith("_") or code.co_name in _DUNDER_NAMES or code.co_name in (
                "__getitem__", "__len__", "__iter__", "__float__", "__int__", "__bool__"):
            if code.co_name not in ("forward", "apply") and not code.co_name.startswith("<"):
                best = frame
        frame = frame.f_back
    if best is None:
        return "<unknown function>"
    name = best.f_code.co_name
    first = best.f_code.co_varnames[0] if best.f_code.co_argcount else None
    if first is not None and best.f_locals.get(first) is obj:
        if name in _DUNDER_NAMES:
            return f"<method '{_DUNDER_NAMES[name]}' of 'torch._C.TensorBase' objects>"
        if name.startswith("__") or name == "getitem":  # (Tensor.__getitem__ is a function named getitem)
            name = "__getitem__" if name == "getitem" else name
            return f"<slot wrapper '{name}' of 'torch._C.TensorBase' objects>"
        return f"<method '{name}' of 'torch._C.TensorBase' objects>"
    return f"<built-in function {name}>"


def _uninitialized_error(obj, where: str) -> ValueError:
    exc = ValueError(
        f"Attempted to use an uninitialized parameter in {where}. "
        "This error happens when you are using a `LazyModule` or "
        f"explicitly manipulating `torch.nn.parameter.{type(obj).__name__}` "
        "objects. When using LazyModules Call `forward` with a dummy batch "
        "to initialize the parameters before calling torch functions")
    exc._retrograd_final = True  # the op layer must pass it on as it is (see _ops/_registry._translate)
    return exc


def _unlocked(name: str):
    # the Tensor method ``name``, run with this tensor's data readable
    def method(self, *args, **kwargs):
        d = self.__dict__
        d["_lazy_open"] = d.get("_lazy_open", 0) + 1
        try:
            return getattr(Tensor, name)(self, *args, **kwargs)
        finally:
            d["_lazy_open"] -= 1
    method.__name__ = name
    return method


class UninitializedTensorMixin:
    """What :class:`UninitializedParameter` and :class:`UninitializedBuffer` share.

    The tensor holds an empty placeholder until :meth:`materialize` gives it a shape; until
    then only dtype/device queries and conversions work, anything else raises ``ValueError``
    (and ``shape`` raises ``RuntimeError``), with PyTorch's messages.
    """

    cls_to_become: type = Tensor

    # Every op reads ``_data``: guarding it here (only on these classes) is what makes any use of
    # the placeholder fail, without a check on the hot path of ordinary tensors.
    @property
    def _data(self):
        if self.__dict__.get("_lazy_open"):
            return _RAW.__get__(self)
        raise _uninitialized_error(self, _caller_description(self))

    @_data.setter
    def _data(self, value) -> None:
        _RAW.__set__(self, value)

    @property
    def shape(self):
        raise RuntimeError(
            "Can't access the shape of an uninitialized parameter or buffer. "
            "This error usually happens in `load_state_dict` when trying to load "
            "an uninitialized parameter into an initialized one. "
            "Call `forward` to initialize the parameters before accessing their attributes.")

    @property
    def dtype(self):
        from .. import _dtype as D

        return D.from_numpy_dtype(_RAW.__get__(self).dtype)

    @property
    def ndim(self) -> int:
        return _RAW.__get__(self).ndim

    @property
    def data(self) -> Tensor:
        return Tensor._wrap(_RAW.__get__(self), False, None, 0)

    @data.setter
    def data(self, value: Tensor) -> None:
        if not isinstance(value, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(value).__name__}")
        _RAW.__set__(self, value._data)
        self._vc = value._vcounter()

    def __hash__(self) -> int:
        return id(self)

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"

    __str__ = __repr__

    def requires_grad_(self, requires_grad: bool = True):
        raise _uninitialized_error(self, "<method 'requires_grad_' of 'torch._C.TensorBase' objects>")

    def share_memory_(self):
        raise RuntimeError(
            "Can't share memory on an uninitialized parameter or buffer. "
            "Call `forward` to initialize the parameters before calling "
            "`module.share_memory()`.")

    def materialize(self, shape, device=None, dtype=None) -> None:
        """Give the tensor real (uninitialised) storage of ``shape``; it becomes ``cls_to_become``.

        >>> import retrograd as torch
        >>> p = torch.nn.parameter.UninitializedParameter()
        >>> p.materialize((2, 3))
        >>> type(p).__name__, p.shape
        ('Parameter', torch.Size([2, 3]))
        """
        from .. import _creation as C

        if dtype is None:
            dtype = self.dtype
        new = C.empty(shape, device=device, dtype=dtype)
        if self._requires_grad and not new.is_floating_point():
            raise RuntimeError("data set to a tensor that requires gradients must be floating point or "
                               "complex dtype")
        self.data = new
        self.__dict__.pop("_lazy_open", None)
        self.__class__ = self.cls_to_become

    def __reduce_ex__(self, protocol):
        return (_rebuild_uninitialized, (type(self), self._requires_grad, self.dtype))

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = _rebuild_uninitialized(type(self), self._requires_grad, self.dtype)
        memo[id(self)] = result
        return result


for _name in _ALLOWED:
    setattr(UninitializedTensorMixin, _name, _unlocked(_name))


def _rebuild_uninitialized(cls, requires_grad, dtype):
    return cls(requires_grad, None, dtype)


def _placeholder(device, dtype):
    from .._creation import empty

    return empty(0, device=device, dtype=dtype)


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A Parameter whose shape is not known yet (lazy modules hold these until their first forward).

    Only dtype/device conversions and :meth:`materialize` work on it; it then becomes a
    :class:`Parameter`.

    >>> import retrograd as torch
    >>> p = torch.nn.parameter.UninitializedParameter()
    >>> p
    <UninitializedParameter>
    >>> p.materialize((2,))
    >>> p.shape
    torch.Size([2])
    """

    cls_to_become = Parameter

    def __new__(cls, requires_grad: bool = True, device=None, dtype=None):
        data = _placeholder(device, dtype)
        t = object.__new__(cls)
        Tensor._init(t, data._data, False)
        if requires_grad:
            if not data.is_floating_point():
                raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
            t._requires_grad = True
        return t

    def __init__(self, requires_grad: bool = True, device=None, dtype=None) -> None:
        pass  # everything happens in __new__


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer whose shape is not known yet; :meth:`materialize` turns it into a plain Tensor.

    >>> import retrograd as torch
    >>> b = torch.nn.parameter.UninitializedBuffer()
    >>> b
    <UninitializedBuffer>
    >>> b.materialize(3)
    >>> type(b).__name__, b.shape
    ('Tensor', torch.Size([3]))
    """

    cls_to_become = Tensor

    def __new__(cls, requires_grad: bool = False, device=None, dtype=None, persistent: bool = True):
        data = _placeholder(device, dtype)
        t = object.__new__(cls)
        Tensor._init(t, data._data, False)
        if requires_grad:
            if not data.is_floating_point():
                raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
            t._requires_grad = True
        t.__dict__["persistent"] = persistent
        t.__dict__["_is_buffer"] = True
        return t

    def __init__(self, requires_grad: bool = False, device=None, dtype=None, persistent: bool = True) -> None:
        pass  # everything happens in __new__


def _keep_buffer_class(name: str):
    # PyTorch converts what the allowed conversions return back to the subclass for buffers
    # (so ``module.double()`` keeps a lazy buffer lazy); it does not for parameters.
    base = _unlocked(name)

    def method(self, *args, **kwargs):
        out = base(self, *args, **kwargs)
        if isinstance(out, Tensor) and not isinstance(out, UninitializedBuffer):
            new = UninitializedBuffer(out._requires_grad, None, None, self.__dict__.get("persistent", True))
            new._data = out._data
            return new
        return out
    method.__name__ = name
    return method


for _name in ("half", "float", "double", "char", "short", "int", "long", "cuda", "cpu", "to"):
    setattr(UninitializedBuffer, _name, _keep_buffer_class(_name))


def is_lazy(param) -> bool:
    """True for an :class:`UninitializedParameter` or :class:`UninitializedBuffer`.

    >>> import retrograd as torch
    >>> torch.nn.parameter.is_lazy(torch.nn.parameter.UninitializedParameter())
    True
    """
    return isinstance(param, UninitializedTensorMixin)
