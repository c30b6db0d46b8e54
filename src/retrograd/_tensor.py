"""class Tensor: NumPy data plus the autograd state PyTorch users know.

Math methods are not written here: ``_tensor_methods.py`` binds each op-table function
as a method in one line.  This file holds the data model, the autograd attributes,
conversions and printing.
"""
from __future__ import annotations

import sys
import warnings
import weakref
from typing import Callable

import numpy as np

from . import _dtype as D
from . import _layout
from ._size import CPU, Size, check_device, device
from .autograd import grad_mode
from .autograd import graph as _graph
from . import autograd as _autograd
from .utils.hooks import HookDict, RemovableHandle

__all__ = ["Tensor"]

_ndarray = np.ndarray
_generic = np.generic
_array = np.array
_asarray = np.asarray
_state = grad_mode.state
# C++ type names PyTorch's messages use for some dtypes (set_'s, ...)
_CPP_NAMES = {"float64": "double", "float32": "float", "float16": "c10::Half", "int64": "long int", "int32": "int",
              "int16": "short int", "int8": "signed char", "uint8": "unsigned char", "bool": "bool"}

# Version counters are one-element int64 arrays, not lists: NumPy arrays are not tracked
# by Python's cyclic GC, and a graph of many small tensors otherwise pays for every list
# in each full collection.  ``vc[0] += 1`` and ``vc[0]`` work the same either way.
# A tensor's counter is made on first need (``_vcounter``): most tensors (backward
# intermediates, no-grad results) are never saved, viewed or modified in place.
_VC0 = np.zeros(1, dtype=np.int64)
_new_vc = _VC0.copy


# Per-tensor autograd state kept in __dict__ when set (see Tensor.__slots__): deepcopy
# makes it afresh rather than copying it.
_AUTOGRAD_FIELDS = frozenset({"_grad", "_base", "_retains_grad", "_hooks"})


def bump_version(t: "Tensor") -> None:
    """Record an in-place write to ``t`` (and to every tensor sharing its counter)."""
    vc = t._vc
    if vc is None:
        vc = t._vc = _new_vc()
    vc[0] += 1

_SCALAR_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half", "int64": "Long",
                 "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool",
                 "bfloat16": "BFloat16", "complex32": "ComplexHalf", "complex64": "ComplexFloat",
                 "complex128": "ComplexDouble", "float8_e4m3fn": "Float8_e4m3fn", "float8_e5m2": "Float8_e5m2",
                 "float8_e4m3fnuz": "Float8_e4m3fnuz", "float8_e5m2fnuz": "Float8_e5m2fnuz", "quint8": "QUInt8",
                 "qint8": "QInt8", "qint32": "QInt32", "quint4x2": "QUInt4x2", "quint2x4": "QUInt2x4"}


def _scalar_type_name(d: D.dtype) -> str:
    return _SCALAR_NAMES[d.name]


def _legacy_type_name(npd) -> str:
    return f"torch.{_SCALAR_NAMES[D.from_numpy_dtype(npd).name]}Tensor"


NONLEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
    "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. "
    "If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor "
    "instead. See github.com/pytorch/pytorch/pull/30531 for more information. (Triggered internally at "
    "/__w/pytorch/pytorch/build/aten/src/ATen/core/TensorBody.h:493.)")  # torch's text, byte for byte


def check_inplace(target: "Tensor", others: tuple = ()) -> None:
    """PyTorch's refusals of in-place writes that would corrupt the graph."""
    if target._inference_flag() and not _state.inference:
        raise RuntimeError("Inplace update to inference tensor outside InferenceMode is not allowed."
                           "You can make a clone to get a normal tensor before doing inplace update."
                           "See https://github.com/pytorch/rfcs/pull/17 for more details.")
    if not _state.enabled:
        return
    if target._base is not None:
        from ._views import check_view_inplace

        check_view_inplace(target, others)
    elif target._requires_grad and target._grad_fn is None:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")


class Tensor:
    """A multi-dimensional array that records the operations applied to it.

    >>> import retrograd as torch
    >>> x = torch.tensor([1., 2.], requires_grad=True)
    >>> (x * x).sum().backward()
    >>> x.grad
    tensor([2., 4.])
    """

    # Every op writes the slots; the fields below them are rarely set, so they are class-level
    # defaults (an instance that sets one gets it in its __dict__): creating a Tensor, which
    # every op and every backward rule does, writes five attributes instead of ten.
    __slots__ = ("_data", "_requires_grad", "_grad_fn", "_output_nr", "_vc", "__weakref__", "__dict__")
    _grad = None
    _accum = None  # weakref to this leaf's AccumulateGrad node
    _base = None
    _retains_grad = False
    _hooks = None
    _shared_vc = False  # (detach() sets it: shares its version counter, though not a view)

    __array_priority__ = 1000  # ndarray (op) Tensor defers to Tensor's reflected operators

    # ------------------------------------------------------------------ construction
    def __new__(cls, *args, **kwargs):
        return object.__new__(cls)

    def __init__(self, *args, dtype=None, device=None, requires_grad: bool = False) -> None:
        # Legacy ``torch.Tensor(data)`` / ``torch.Tensor(2, 3)``: float32 by default.
        check_device(device)
        dt = dtype or D.get_default_dtype()
        if len(args) == 1 and not isinstance(args[0], (int, np.integer)):
            a = args[0]
            data = _asarray(a._data if isinstance(a, Tensor) else a).astype(dt.np, copy=not isinstance(a, Tensor))
        elif args and all(isinstance(a, (int, np.integer)) for a in args):
            data = np.zeros(tuple(int(a) for a in args), dtype=dt.np)
        elif len(args) == 1 and isinstance(args[0], (tuple, list, Size)):
            data = _asarray(args[0], dtype=dt.np)
        else:
            data = np.zeros((0,), dtype=dt.np)
        self._init(data, requires_grad)

    def _init(self, data, requires_grad=False) -> None:
        self._data = data
        self._requires_grad = False
        self._grad_fn = None
        self._output_nr = 0
        self._vc = None
        if requires_grad:
            self._set_requires_grad(True)

    @staticmethod
    def _wrap(data, requires_grad: bool, grad_fn, output_nr: int, vc=None) -> "Tensor":
        """The fast constructor every op uses (no validation)."""
        t = _new(Tensor)
        if type(data) is _ndarray:
            t._data = data
        elif isinstance(data, _generic):  # NumPy ops on 0-d arrays return scalars
            t._data = data.__array__()  # (a fresh 0-d array: half of np.array's cost)
        else:
            t._data = _asarray(data)
        t._requires_grad = requires_grad
        t._grad_fn = grad_fn
        t._output_nr = output_nr
        t._vc = vc  # (None: made on first need, see _vcounter)
        if _state.inference:
            t.__dict__["_inference"] = True
        return t

    # ------------------------------------------------------------------ basic properties
    @property
    def shape(self) -> Size:
        return Size(self._data.shape)

    def size(self, dim: int | None = None):
        if dim is None:
            return Size(self._data.shape)
        return self._data.shape[self._wrap_dim(dim)]

    def _wrap_dim(self, dim: int, ndim: int | None = None) -> int:
        n = self._data.ndim if ndim is None else ndim
        lo, hi = (-n, n - 1) if n else (-1, 0)
        if not isinstance(dim, (int, np.integer)) or dim < lo or dim > hi:
            if not isinstance(dim, (int, np.integer)):
                raise TypeError(f"dim must be an int, got {type(dim).__name__}")
            raise IndexError(f"Dimension out of range (expected to be in range of [{lo}, {hi}], but got {dim})")
        return dim % n if n else 0

    @property
    def dtype(self) -> D.dtype:
        return D.from_numpy_dtype(self._data.dtype)

    @property
    def device(self) -> device:
        return CPU

    @property
    def is_cuda(self) -> bool:
        return False

    @property
    def is_sparse(self) -> bool:
        return False

    @property
    def is_quantized(self) -> bool:
        return False

    @property
    def is_meta(self) -> bool:
        return False

    @property
    def layout(self):
        return _layout.strided  # (dense NumPy data: always strided)

    @property
    def ndim(self) -> int:
        return self._data.ndim

    def dim(self) -> int:
        return self._data.ndim

    ndimension = dim

    def numel(self) -> int:
        return int(self._data.size)

    nelement = numel

    def element_size(self) -> int:
        return self._data.itemsize

    @property
    def itemsize(self) -> int:
        return self._data.itemsize

    @property
    def nbytes(self) -> int:
        return self._data.nbytes

    def stride(self, dim: int | None = None):
        d = self._data
        st = tuple(s // d.itemsize for s in d.strides)
        if not d.size and d.ndim and not any(st):
            # NumPy gives a fresh empty array all-zero strides; torch gives it contiguous ones
            acc, cs = 1, []
            for n in reversed(d.shape):
                cs.append(acc)
                acc *= max(n, 1)
            st = tuple(reversed(cs))
        return st if dim is None else st[self._wrap_dim(dim)]

    def is_contiguous(self, memory_format=None) -> bool:
        if memory_format is None:
            return bool(self._data.flags.c_contiguous)
        _layout.check_memory_format("is_contiguous", memory_format)
        return _layout.is_contiguous_as(self._data, memory_format)

    def is_floating_point(self) -> bool:
        return self._data.dtype.kind == "f"

    def is_complex(self) -> bool:
        return False

    def is_signed(self) -> bool:
        return self.dtype.is_signed

    def untyped_storage(self):
        """The memory this tensor views, as bytes (see ``retrograd._storage``)."""
        from ._storage import UntypedStorage

        return UntypedStorage(self._data)

    def storage(self):
        """The memory this tensor views, as elements of its dtype (deprecated in torch: warns once)."""
        from ._storage import typed_storage_of

        return typed_storage_of(self._data, self.dtype)

    def data_ptr(self) -> int:
        # an empty tensor points at no memory in torch (0), whatever array it was sliced from
        return self._data.__array_interface__["data"][0] if self._data.size else 0

    def get_device(self) -> int:
        return -1

    # ------------------------------------------------------------------ autograd attributes
    @property
    def requires_grad(self) -> bool:
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        if self._grad_fn is not None:
            # (torch adds the detach() hint only when the flag is being turned off)
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables." + ("" if value else
                " If you want to use a computed variable in a subgraph that doesn't require differentiation use "
                "var_no_grad = var.detach()."))
        # (PyTorch words this refusal differently in each entry point; we follow each one)
        self._set_requires_grad(value, "only Tensors of floating point and complex dtype can require gradients")

    def requires_grad_(self, requires_grad: bool = True) -> "Tensor":
        return self._set_requires_grad(requires_grad, "only Tensors of floating point dtype can require gradients")

    def _set_requires_grad(self, requires_grad: bool,
                           int_msg: str = "Only Tensors of floating point and complex dtype can require gradients"
                           ) -> "Tensor":
        if self._grad_fn is not None:
            if not requires_grad:
                raise RuntimeError(
                    "you can only change requires_grad flags of leaf variables. If you want to use a "
                    "computed variable in a subgraph that doesn't require differentiation use "
                    "var_no_grad = var.detach().")
            return self
        if requires_grad and self._data.dtype.kind not in "fc":
            raise RuntimeError(int_msg)
        if requires_grad and self._inference_flag() and not _state.inference:
            raise RuntimeError("Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.")
        self._requires_grad = bool(requires_grad)
        return self

    @property
    def grad_fn(self):
        g = self._grad_fn
        if g is not None and "_view_error" in self.__dict__:
            raise RuntimeError(self.__dict__["_view_error"])  # (see _views._regenerate)
        return g

    @property
    def is_leaf(self) -> bool:
        g = self._grad_fn
        if g is not None and "_view_error" in self.__dict__:
            raise RuntimeError(self.__dict__["_view_error"])
        return g is None

    @property
    def output_nr(self) -> int:
        return self._output_nr

    @property
    def grad(self) -> "Tensor | None":
        if self._grad is None and self._grad_fn is not None and not self._retains_grad:  # (as torch: only unset)
            warnings.warn(NONLEAF_GRAD_WARNING, UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value: "Tensor | None") -> None:
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type {type(value).__name__}")
            if value is self:
                raise RuntimeError("can't assign Variable as its own grad")
            if value._data.shape != self._data.shape:
                raise RuntimeError(
                    f"attempting to assign a gradient of size '[{', '.join(map(str, value._data.shape))}]' to a "
                    f"tensor of size '[{', '.join(map(str, self._data.shape))}]'. Please ensure that the gradient "
                    "and the tensor are the same size")
            if value._data.dtype != self._data.dtype:
                names = {"float64": "double", "float32": "float", "float16": "c10::Half", "int64": "long int"}
                raise RuntimeError(
                    f"attempting to assign a gradient with dtype '{names.get(value.dtype.name, value.dtype.name)}' to a tensor "
                    f"with grad_dtype '{_scalar_type_name(self.dtype)}'. The gradient must match the tensor's grad_dtype "
                    "(defaults to the tensor's dtype). You can set the tensor's grad_dtype attribute with a "
                    "specific dtype, or None to allow any dtype. Set grad_dtype with caution. Diverging the "
                    "dtypes of a tensor and its gradient may break downstream systems that assume they match.")
        self._grad = value

    @grad.deleter
    def grad(self) -> None:
        self._grad = None

    @property
    def retains_grad(self) -> bool:
        return self._retains_grad

    def retain_grad(self) -> None:
        """Keep this non-leaf tensor's gradient in ``.grad`` after backward."""
        if not self._requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self._grad_fn is None or self._retains_grad:
            return
        node = self._grad_fn
        if node._retains is None:
            node._retains = {}
        node._retains[self._output_nr] = weakref.ref(self)
        self._retains_grad = True

    @property
    def _version(self) -> int:
        if "_inference" in self.__dict__:
            raise RuntimeError("Inference tensors do not track version counter.")
        vc = self._vc
        return 0 if vc is None else int(vc[0])

    def _vcounter(self):
        """This tensor's version counter, made now if it has none yet (to share or save it)."""
        vc = self._vc
        if vc is None:
            vc = self._vc = _new_vc()
        return vc

    def _vc_shared(self) -> bool:
        return self._base is not None or self._shared_vc

    def _is_view(self) -> bool:
        return self._base is not None

    def _grad_accumulator(self):
        """This leaf's AccumulateGrad node (made on demand, held weakly like PyTorch)."""
        acc = self._accum() if self._accum is not None else None
        if acc is None:
            # (AccumulateGrad's constructor inlined: a training step makes one per parameter,
            # the previous step's having died with its graph, as in PyTorch)
            acc = _new(_AccumulateGrad)
            acc._next = acc._next_nr = ()
            acc._seq = _SINK_SEQ
            acc._site_code = None
            acc.variable = self
            acc._post_acc_hooks = None
            self._accum = weakref.ref(acc)
            if self._hooks:
                # Hooks live on the tensor; the sink runs them before accumulating.
                acc._tensor_pre_hooks = {0: self._hooks}
                self.__dict__["_accum_strong"] = acc
        return acc

    def _accum_node(self):
        return self._accum() if self._accum is not None else None

    def _use_count(self) -> int:
        """How many autograd owners this tensor has: itself, its live AccumulateGrad node (a graph
        built on this leaf holds it) and the live views it tracks.

        PyTorch's (debugging) count of references to the tensor's C++ impl.  An approximation:
        saved-for-backward references and views of a leaf that requires grad, which PyTorch
        also counts, are not counted here.

        >>> import retrograd as torch
        >>> a = torch.ones(2, requires_grad=True)
        >>> b = a * 2
        >>> a._use_count()
        2
        >>> del b
        >>> a._use_count()
        1
        """
        n = 1 if self._accum is None or self._accum() is None else 2
        refs = self.__dict__.get("_views")
        if refs:
            n += sum(1 for r in refs if r() is not None)
        return n

    def _inference_flag(self) -> bool:
        try:
            return self.__dict__.get("_inference", False)
        except AttributeError:
            return False

    def is_inference(self) -> bool:
        return self._inference_flag()

    # ------------------------------------------------------------------ hooks
    def register_hook(self, hook: Callable) -> RemovableHandle:
        """``hook(grad)`` runs when this tensor's gradient is computed; may return a new grad."""
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self._grad_fn is not None:
            return self._grad_fn._register_tensor_hook(self._output_nr, hook)
        if self._hooks is None:
            self._hooks = HookDict()
            acc = self._grad_accumulator()
            acc._tensor_pre_hooks = {0: self._hooks}
            self.__dict__["_accum_strong"] = acc
        h = RemovableHandle(self._hooks)
        self._hooks[h.id] = hook
        return h

    def register_post_accumulate_grad_hook(self, hook: Callable) -> RemovableHandle:
        """``hook(tensor)`` runs after a leaf's ``.grad`` was updated."""
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self._grad_fn is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
        acc = self._grad_accumulator()
        self.__dict__["_accum_strong"] = acc
        if acc._post_acc_hooks is None:
            acc._post_acc_hooks = HookDict()
        h = RemovableHandle(acc._post_acc_hooks)
        acc._post_acc_hooks[h.id] = hook
        return h

    # ------------------------------------------------------------------ autograd entry points
    def backward(self, gradient: "Tensor | None" = None, retain_graph: bool | None = None,
                 create_graph: bool = False, inputs=None) -> None:
        """Accumulate d(self)/d(leaf) into each leaf's ``.grad`` (see autograd.backward)."""
        if gradient is None and inputs is None and not create_graph and self._grad_fn is not None:
            d = self._data
            if d.size == 1 and d.dtype.kind == "f":
                # ``loss.backward()``: what autograd.backward does for it, without its argument
                # handling (it runs once per training step, right after the forward's cache churn)
                _run_backward((self,), (Tensor._wrap(np.ones(d.shape, d.dtype), False, None, 0),),
                              bool(retain_graph), False)
                return
        _autograd.backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    def detach(self) -> "Tensor":
        """A tensor sharing data (and version counter) with self, outside the graph."""
        d = self.__dict__
        if "_inference" in d:  # an inference tensor's alias is one too, in or out of the mode
            t = Tensor._wrap(self._data, False, None, 0)
            t.__dict__["_inference"] = True
            return t
        t = Tensor._wrap(self._data, False, None, 0, self._vcounter())
        td = t.__dict__
        td["_shared_vc"] = True  # not a view (PyTorch: detach()._base is None), but shares data
        if _state.inference:
            del td["_inference"]  # a view of a normal tensor stays a normal tensor
        return t

    def set_(self, source: "Tensor | None" = None, storage_offset: int = 0, size=None, stride=None) -> "Tensor":
        """Make self an alias of ``source``'s memory (its geometry, or ``size`` / ``stride`` from
        ``storage_offset``); with no source, an empty tensor.  In place; self's version counter.

        set_ has no derivative (PyTorch records a node that fails in backward): here a set_
        that would need one fails right away.  (``Tensor.set_`` is ``_tensor_methods._set_``,
        which calls this one for these two forms; its docstring holds the example.)
        """
        if source is not None and not isinstance(source, Tensor):
            raise TypeError(f"set_() received an invalid combination of arguments - got ({type(source).__name__}), "
                            "but expected one of:\n * ()\n * (Tensor source)\n"
                            " * (Tensor source, int storage_offset, tuple of ints size, tuple of ints stride = None)")
        check_inplace(self)
        if source is None:
            data = np.empty((0,), dtype=self._data.dtype)
        else:
            if source._data.dtype != self._data.dtype:
                raise RuntimeError(f"Could not set tensor of type {_CPP_NAMES.get(source._data.dtype.name, source._data.dtype.name)}"
                                   f" to a tensor of type {_CPP_NAMES.get(self._data.dtype.name, self._data.dtype.name)}")
            data = source._data
            if size is not None:
                from ._ops.strided import as_strided

                with grad_mode.no_grad():
                    data = as_strided(source, tuple(size), stride, storage_offset)._data
        if _state.enabled and (self._requires_grad or (source is not None and source._requires_grad)):
            raise RuntimeError("the derivative for 'set_' is not implemented.")
        self._data = data
        bump_version(self)
        return self

    def detach_(self) -> "Tensor":
        if self._base is not None and self._grad_fn is not None:
            raise RuntimeError("Can't detach views in-place. Use detach() instead. If you are using "
                               "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view "
                               "is set as True, gradients are views of DDP buckets, and hence detach_() "
                               "cannot be called on these gradients. To fix this error, please refer to "
                               "the Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution.")
        self._grad_fn = None
        self._output_nr = 0
        self._requires_grad = False
        self.__dict__.pop("_fw_tangent", None)  # detached for forward AD too, as detach() is
        return self

    @property
    def data(self) -> "Tensor":
        # Same memory, but its own version counter: writes through ``.data`` are hidden
        # from autograd (PyTorch's semantics, and why ``.data`` is discouraged).
        return Tensor._wrap(self._data, False, None, 0)

    @property
    def volatile(self) -> bool:
        """Removed in PyTorch 0.4: always False (with PyTorch's warning)."""
        warnings.warn("volatile was removed (Variable.volatile is always False)", UserWarning, stacklevel=2)
        return False

    @data.setter
    def data(self, value: "Tensor") -> None:
        if not isinstance(value, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(value).__name__}")
        if self._requires_grad and value._data.dtype.kind not in "fc":
            raise RuntimeError("data set to a tensor that requires gradients must be floating point or complex dtype")
        # (the tensor keeps its own version counter, as in PyTorch: views of it still share it)
        self._data = value._data

    # ------------------------------------------------------------------ conversions
    def item(self):
        if self._data.size != 1:
            raise RuntimeError(f"a Tensor with {self._data.size} elements cannot be converted to Scalar")
        return self._data.reshape(()).item()

    def tolist(self):
        return self._data.tolist()

    def numpy(self, *, force: bool = False) -> np.ndarray:
        if self._requires_grad and not force and _state.enabled:  # (allowed under no_grad, as in PyTorch)
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
        return self._data

    def __array__(self, dtype=None, copy=None):
        if dtype is not None:
            return self._data.astype(dtype, copy=bool(copy))
        return self._data.copy() if copy else self._data

    def _scalar(self, kind: str):
        if self._data.size != 1:
            raise RuntimeError(f"a Tensor with {self._data.size} elements cannot be converted to Scalar")
        if self._requires_grad:
            warnings.warn("Converting a tensor with requires_grad=True to a scalar may lead to unexpected behavior.\n"
                          "Consider using tensor.detach() first.", UserWarning, stacklevel=3)
        return self._data.reshape(()).item()

    def __float__(self) -> float:
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return float(self._scalar("float"))

    def __int__(self) -> int:
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return int(self._scalar("int"))

    def __index__(self) -> int:
        if self._data.dtype.kind not in "iub" or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self._data.reshape(()).item())

    def __complex__(self) -> complex:
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return complex(self._scalar("complex"))

    def __bool__(self) -> bool:
        if self._data.size != 1:
            if self._data.size == 0:
                raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self._data.reshape(()).item())

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __reversed__(self) -> "Tensor":
        """The tensor flipped along dim 0 (a 0-d tensor is its own reverse), as torch."""
        return self if self._data.ndim == 0 else self.flip(0)

    def __contains__(self, element) -> bool:
        """``element in t``: any entry equal to a number, or any match of a broadcast tensor."""
        import numbers

        if not isinstance(element, (Tensor, numbers.Number)):
            raise RuntimeError(f"Tensor.__contains__ only supports Tensor or scalar, but you passed in a "
                               f"{type(element)}.")
        return bool((element == self).any().item())

    def __hash__(self) -> int:
        return id(self)

    def __format__(self, spec: str) -> str:
        if self._data.ndim == 0:
            return self.item().__format__(spec)
        if spec:
            raise TypeError("unsupported format string passed to Tensor.__format__")
        return repr(self)

    def __reduce_ex__(self, protocol):
        return (_rebuild, (self._data, self._requires_grad))

    def __deepcopy__(self, memo):
        if self._grad_fn is not None:
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) support the deepcopy protocol at the moment.  If you were attempting to deepcopy a module, this may be because of a torch.nn.utils.weight_norm usage, see https://github.com/pytorch/pytorch/pull/103001")
        if id(self) in memo:
            return memo[id(self)]
        new = object.__new__(type(self))
        Tensor._init(new, self._data.copy(), False)
        new._requires_grad = self._requires_grad
        for k, v in self.__dict__.items():
            if not k.startswith("_accum") and k not in _AUTOGRAD_FIELDS:
                import copy

                new.__dict__[k] = copy.deepcopy(v, memo)
        if self._grad is not None:
            new._grad = self._grad.__deepcopy__(memo)
        memo[id(self)] = new
        return new

    # ------------------------------------------------------------------ dtype / device moves
    def to(self, *args, **kwargs) -> "Tensor":
        """``to(dtype)``, ``to(device)``, ``to(device, dtype)``, ``to(other)``; copy only when needed."""
        from ._to_args import parse_to_args

        dtype, copy, fmt = parse_to_args(args, kwargs)
        if fmt is not None and fmt is not _layout.preserve_format:
            # (a layout change first, then the dtype cast keeps the new strides)
            _layout.check_memory_format("to", fmt)
            same = self._to_dtype(dtype, copy)
            if same is self and _layout.suggest_format(self._data) is fmt:
                return self  # PyTorch aliases when nothing changes and the strides suggest ``fmt``
            if self._data.strides == _layout.format_strides(self._data, fmt):
                return same  # already laid out so: no copy, as in torch
            return self.clone(memory_format=fmt)._to_dtype(dtype, False)
        return self._to_dtype(dtype, copy)

    def _to_dtype(self, dtype, copy: bool) -> "Tensor":
        if dtype is None or dtype.np == self._data.dtype:
            return self.clone() if copy else self
        from . import _ops

        return _ops.to_dtype(self, dtype)

    def type(self, dtype=None, non_blocking: bool = False, **kwargs):
        """With no argument, the legacy type name; else this tensor cast to a dtype, a legacy
        type (``torch.DoubleTensor``) or its name (``'torch.DoubleTensor'``).

        >>> import retrograd as torch
        >>> x = torch.ones(2)
        >>> x.type(), x.type(torch.DoubleTensor).dtype
        ('torch.FloatTensor', torch.float64)
        """
        if dtype is None:
            return _legacy_type_name(self._data.dtype)
        if dtype is Tensor:  # (PyTorch: the default tensor type)
            dtype = D.get_default_dtype()
        elif isinstance(dtype, type) and isinstance(getattr(dtype, "dtype", None), D.dtype):
            dtype = dtype.dtype  # a legacy type class (retrograd.FloatTensor ...) names its dtype
        if isinstance(dtype, str):
            names = {f"torch.{v}Tensor": k for k, v in _SCALAR_NAMES.items()}
            names.update({f"retrograd.{v}Tensor": k for k, v in _SCALAR_NAMES.items()})
            if dtype not in names:
                raise ValueError(f"invalid type: '{dtype}'")
            dtype = getattr(D, names[dtype]) if names[dtype] != "bool" else D.bool_
        elif not isinstance(dtype, D.dtype):
            raise ValueError(f"invalid type: '{getattr(dtype, '__name__', dtype)}'")
        return self.to(dtype)

    def type_as(self, other: "Tensor") -> "Tensor":
        return self.to(other.dtype)

    def cpu(self, *args, **kwargs) -> "Tensor":
        return self

    def cuda(self, *args, **kwargs) -> "Tensor":
        raise AssertionError("Torch not compiled with CUDA enabled")

    def pin_memory(self, *args, **kwargs) -> "Tensor":
        # pinned host memory only exists for an accelerator to copy from (torch raises the same)
        raise RuntimeError("Cannot access accelerator device when none is available.")

    def share_memory_(self) -> "Tensor":
        """Mark the storage as shared (NumPy memory is already visible to forked workers).

        >>> import retrograd as torch
        >>> torch.ones(1).share_memory_().is_shared()
        True
        """
        from ._storage import _root

        # the root that untyped_storage() reports, so storage().is_shared() agrees
        root = _root(self._data)
        _SHARED[id(root)] = root
        return self

    def is_pinned(self) -> bool:
        return False

    def is_shared(self) -> bool:
        """Whether ``share_memory_()`` was called on this storage (on this tensor or a view)."""
        from ._storage import _root

        root = _root(self._data)
        return _SHARED.get(id(root)) is root

    def is_set_to(self, tensor: "Tensor") -> bool:
        """True if both tensors use the same memory with the same offset, sizes and strides.

        >>> import retrograd as torch
        >>> a = torch.ones(4)
        >>> a.is_set_to(a[:]), a.is_set_to(a.clone()), a.is_set_to(a.view(2, 2))
        (True, False, False)
        """
        if not isinstance(tensor, Tensor):
            raise TypeError(f"is_set_to(): argument 'tensor' (position 1) must be Tensor, not "
                            f"{type(tensor).__name__}")
        a, b = self._data, tensor._data
        return (a is b or (_storage_root(a) is _storage_root(b) and a.shape == b.shape and a.strides == b.strides
                           and a.__array_interface__["data"][0] == b.__array_interface__["data"][0]))

    # the casts below take ``memory_format`` (default: preserve the layout) as in PyTorch
    def float(self, memory_format=None) -> "Tensor":
        return self.to(D.float32, memory_format=memory_format)

    def double(self, memory_format=None) -> "Tensor":
        return self.to(D.float64, memory_format=memory_format)

    def half(self, memory_format=None) -> "Tensor":
        return self.to(D.float16, memory_format=memory_format)

    def bfloat16(self, memory_format=None) -> "Tensor":
        return self.to(D.bfloat16, memory_format=memory_format)

    def long(self, memory_format=None) -> "Tensor":
        return self.to(D.int64, memory_format=memory_format)

    def int(self, memory_format=None) -> "Tensor":
        return self.to(D.int32, memory_format=memory_format)

    def short(self, memory_format=None) -> "Tensor":
        return self.to(D.int16, memory_format=memory_format)

    def char(self, memory_format=None) -> "Tensor":
        return self.to(D.int8, memory_format=memory_format)

    def byte(self, memory_format=None) -> "Tensor":
        return self.to(D.uint8, memory_format=memory_format)

    def bool(self, memory_format=None) -> "Tensor":
        return self.to(D.bool_, memory_format=memory_format)

    # ------------------------------------------------------------------ printing
    def __repr__(self, *, tensor_contents=None) -> str:
        from ._printing import format_tensor

        suffixes = []
        if self._grad_fn is not None:
            name = self._grad_fn.name()
            if name.startswith("torch::autograd::"):
                name = name[17:]
            suffixes.append(f"grad_fn=<{name}>")
        elif self._requires_grad:
            suffixes.append("requires_grad=True")
        if "_fw_tangent" in self.__dict__:  # a dual tensor: forward AD's tangent, printed as torch does
            from .autograd.forward_ad import _get

            tangent = _get(self)
            if tangent is not None:
                suffixes.append(f"tangent={tangent}")
        dt = self.dtype
        cls = type(self)
        # PyTorch prints a subclass instance under its class name (``My([1.])``); plain tensors
        # and Parameters (which add their own "Parameter containing:" line) print "tensor(".
        prefix = "tensor(" if cls is Tensor or _is_parameter_class(cls) else cls.__name__ + "("
        return format_tensor(self._data, dt.name, is_default_float=dt is D.get_default_dtype(), suffixes=suffixes,
                             prefix=prefix)

    __str__ = __repr__


_new = object.__new__
# storages (root arrays, by id) marked by share_memory_(); an entry goes when its array does
_SHARED: "weakref.WeakValueDictionary" = weakref.WeakValueDictionary()


def _storage_root(a: np.ndarray) -> np.ndarray:
    """The array owning ``a``'s memory: views of one storage share it (NumPy's ``base`` chain)."""
    while isinstance(a.base, np.ndarray):
        a = a.base
    return a


def _is_parameter_class(cls) -> bool:
    # (no import: the Tensor layer sits below nn; a class can only be Parameter once nn.parameter is loaded)
    mod = sys.modules.get("retrograd.nn.parameter")
    return mod is not None and cls is mod.Parameter


_AccumulateGrad = _graph.AccumulateGrad
_SINK_SEQ = sys.maxsize  # an AccumulateGrad's creation number: sinks run as soon as ready


def _rebuild(data, requires_grad):
    t = Tensor._wrap(np.array(data), False, None, 0)
    t._requires_grad = requires_grad
    return t


def _run_backward(*args):
    """The engine's run_backward (bound on first use: the engine imports this module)."""
    global _run_backward
    from .autograd.engine import run_backward

    _run_backward = run_backward
    return run_backward(*args)
