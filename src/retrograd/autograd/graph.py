"""Graph nodes: the backward functions a forward pass records.

``Node`` is the base of every ``grad_fn``: ``name()``, ``next_functions``, hooks and
``metadata`` as in PyTorch.  ``OpNode`` runs an op-table entry's backward rules;
``AccumulateGrad`` writes into a leaf's ``.grad``.  Each op gets its own tiny subclass of
``OpNode`` named like PyTorch's (``MulBackward0``), so ``type(y.grad_fn).__name__`` and
reprs match what PyTorch code (and torchviz) expects.
"""
from __future__ import annotations

import itertools
import sys
import weakref
from typing import Any, Callable

import numpy as np

from ..utils.hooks import HookDict, RemovableHandle
from . import _error_details, _sites, grad_mode
from . import forward_ad as _forward_ad

__all__ = ["Node", "OpNode", "AccumulateGrad", "SavedTensor", "saved_tensors_hooks",
           "save_on_cpu", "disable_saved_tensors_hooks", "register_multi_grad_hook",
           "GradientEdge", "get_gradient_edge", "increment_version", "allow_mutation_on_saved_tensors"]

_new_vc = np.zeros(1, dtype=np.int64).copy  # a fresh version counter (see _tensor.py)


def _Tensor():
    """The Tensor class (its module imports this one, so it is looked up when first needed)."""
    global _tensor_cls
    if _tensor_cls is None:
        from .._tensor import Tensor as _tensor_cls
    return _tensor_cls


_tensor_cls = None

# Creation order; the engine runs ready nodes newest first, as PyTorch does.
_seq = itertools.count()

FREED_MSG = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward."
)


INFERENCE_SAVE_MSG = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in inference mode in "
    "computation tracked by autograd. To work around this, you can make a clone to get a normal tensor and use it "
    "in autograd, or use `torch.no_grad()` instead of `torch.inference_mode()`.")

# Set once inference_mode is first entered: from then on saving checks for inference tensors.
_inference_used = [False]


def _creation_site() -> tuple[str, int] | None:
    """file:line of the first frame outside retrograd: where the user made this node."""
    f = sys._getframe(2)
    while f is not None:
        name = f.f_globals.get("__name__", "")
        if not name.startswith("retrograd"):
            return (f.f_code.co_filename, f.f_lineno)
        f = f.f_back
    return None


def _line_at(code, offset: int) -> int | None:
    """The source line of bytecode ``offset`` in ``code`` (what ``frame.f_lineno`` gives)."""
    for start, end, line in code.co_lines():
        if start <= offset < end:
            return line
    return code.co_firstlineno


class _HookField:
    """A node field that is None until set; setting it marks the node ``_hooked``.

    The engine checks the one flag per node instead of four hook fields, and looks at
    the fields only on hooked nodes.
    """

    def __set_name__(self, owner, name: str) -> None:
        self.name = name

    def __get__(self, obj, cls=None):
        if obj is None:
            return self
        return obj.__dict__.get(self.name)

    def __set__(self, obj, value) -> None:
        d = obj.__dict__
        d[self.name] = value
        d["_hooked"] = True


class Node:
    """Base class of backward functions (``grad_fn``)."""

    # The creation site is two slots, the code object and the bytecode offset, not a
    # (file, line) tuple: one container fewer per recorded op for the garbage collector,
    # and the line number (a linear walk of the line table) is found only when asked.
    # Edges are two parallel tuples, ``_next`` (the child nodes, None for an input that
    # needs no grad) and ``_next_nr`` (which output of each child; shared constants when all
    # are 0), instead of PyTorch's tuple of pairs: one allocation per recorded op instead
    # of three.  ``next_functions`` builds PyTorch's form on request.
    __slots__ = ("_next", "_next_nr", "_seq", "_site_code", "_site_at", "__weakref__", "__dict__")

    _name = "Node"
    _call_on_none = False  # engine skips the node when every incoming grad is None
    # Rarely set per node: class-level defaults, so recording a node writes only what it uses
    # (an instance that sets one gets it in its __dict__).
    _n_fixed = 0  # the number of outputs when every node of the class has the same (0: ask _num_outputs)
    # For the engine's hot loop (see OpNode): a compiled first-order backward on arrays, and
    # whether release() only drops ``saved`` (then the engine does that inline).
    _fast_backward = None
    _releases_saved = False
    _hooked = False  # set by the four fields below: the engine's one check per node
    _post_hooks = _HookField()
    _pre_hooks = _HookField()
    _tensor_pre_hooks = _HookField()  # {output_nr: HookDict}
    _retains = _HookField()  # {output_nr: weakref to a tensor that retains its grad}
    _metadata = None
    _trace = None
    _in_meta = ()

    def __init__(self) -> None:
        self._next: tuple = ()
        self._next_nr: tuple = ()
        self._seq = next(_seq)
        self._site_code = None

    @property
    def next_functions(self) -> tuple:
        """((node, output_nr), ...): where each input's gradient goes, as in PyTorch."""
        return tuple(zip(self._next, self._next_nr))

    @next_functions.setter
    def next_functions(self, edges) -> None:
        edges = tuple(edges)
        self._next = tuple(n for n, _ in edges)
        self._next_nr = tuple(nr for _, nr in edges)

    @property
    def _site(self) -> tuple[str, int] | None:
        """(file, line) of the user code that created this node, or None."""
        code = self._site_code
        if code is None:
            return None
        at = self._site_at
        if at is None:  # set as a (file, line) pair
            return code
        return (code.co_filename, _line_at(code, at))

    @_site.setter
    def _site(self, site: tuple[str, int] | None) -> None:
        self._site_code, self._site_at = site, None

    # ---- PyTorch's public surface -------------------------------------------------
    def name(self) -> str:
        return self._name

    def __repr__(self) -> str:
        return f"<{self._name} object at {hex(id(self))}>"

    @property
    def metadata(self) -> dict:
        if self._metadata is None:
            self._metadata = {}
        return self._metadata

    def register_hook(self, fn: Callable) -> RemovableHandle:
        """``fn(grad_inputs, grad_outputs)`` runs after this node; may return new grad_inputs."""
        if self._post_hooks is None:
            self._post_hooks = HookDict()
        h = RemovableHandle(self._post_hooks)
        self._post_hooks[h.id] = fn
        return h

    def register_prehook(self, fn: Callable) -> RemovableHandle:
        """``fn(grad_outputs)`` runs before this node; may return new grad_outputs."""
        if self._pre_hooks is None:
            self._pre_hooks = HookDict()
        h = RemovableHandle(self._pre_hooks)
        self._pre_hooks[h.id] = fn
        return h

    def _register_tensor_hook(self, output_nr: int, fn: Callable) -> RemovableHandle:
        if self._tensor_pre_hooks is None:
            self._tensor_pre_hooks = {}
        d = self._tensor_pre_hooks.get(output_nr)
        if d is None:
            d = self._tensor_pre_hooks[output_nr] = HookDict()
        h = RemovableHandle(d)
        d[h.id] = fn
        return h

    def _num_outputs(self) -> int:
        return 1

    # ---- what the engine calls ----------------------------------------------------
    def apply(self, grads: list, needed: tuple | None = None) -> list:
        """Grads w.r.t. each input (one per ``next_functions`` entry) from output grads."""
        raise NotImplementedError

    def release(self) -> None:
        """Drop saved tensors after a backward that did not retain the graph."""

    def __call__(self, *grads):
        n = self._num_outputs()
        if len(grads) != n:
            raise TypeError(f"expected {n} arguments, got {len(grads)} instead")
        out = self.apply(list(grads))
        return out[0] if len(out) == 1 else tuple(out)  # (PyTorch: one gradient alone, several as a tuple)


class SavedTensor:
    """A tensor saved for backward, with the version it had when saved.

    Outputs are saved as raw data (not the Tensor) so that out -> grad_fn -> saved ->
    out is no reference cycle; unpacking rebuilds a Tensor whose grad_fn is the node.
    """

    __slots__ = ("tensor", "arr", "vc", "version", "output_nr", "packed", "unpack_hook",
                 "grad_fn_name", "empty")

    def __init__(self, t=None, is_output: bool = False) -> None:
        if t is None:
            raise RuntimeError("Trying to create a SavedTensor object from Python is forbidden.")
        self.empty = None  # "none": stands for a saved None; "freed": what a released node held
        vc = t._vc
        if vc is None:  # (a tensor's version counter is made when first needed)
            vc = t._vc = _new_vc()
        if not _inference_used[0] and not _saved_hooks_stack:  # the common case, kept short
            self.vc = vc
            self.version = vc[0]
            self.unpack_hook = None
            self.packed = None
            self._keep(t, is_output)
            return
        if _inference_used[0] and not grad_mode.state.inference and t.__dict__.get("_inference") and (
                t._data.ndim or t._data.flags.writeable):  # read-only 0-d: a shared scalar constant
            raise RuntimeError(INFERENCE_SAVE_MSG)
        self.vc = t._vc
        self.version = t._vc[0]
        self.unpack_hook = None
        hooks = _saved_hooks_stack[-1] if _saved_hooks_stack else None
        if hooks is not None and t._data.ndim == 0 and not t._data.flags.writeable and not t._requires_grad:
            hooks = None  # a Python number the op wrapped: PyTorch saves it as a Scalar, which no hook sees
        if hooks is not None:
            pack, self.unpack_hook = hooks
            # What unpacking reattaches the hook's result to (PyTorch restores autograd metadata):
            # the node for an output, else the input's own grad_fn or its leaf accumulator.
            if is_output:
                self.grad_fn_name = None
            elif t._grad_fn is not None:
                self.grad_fn_name = (t._grad_fn, t._output_nr)
            elif t._requires_grad:
                self.grad_fn_name = (None, t._grad_accumulator())
            else:
                self.grad_fn_name = None
            self.tensor = None
            self.arr = None
            self.output_nr = t._output_nr if is_output else -1
            # Unpacking reattaches the autograd links, so the hook's own ops need no graph (and a
            # hook like ``t * 1`` must not save ``t`` again through itself).
            prev = grad_mode.state.enabled
            grad_mode.state.enabled = False
            try:
                self.packed = pack(t)
            finally:
                grad_mode.state.enabled = prev
            if t._vc[0] != self.version:
                raise RuntimeError(
                    "A saved tensor pack hook is modifying its input in place. Tensors provided as input to pack "
                    "hook cannot be modified by in-place operations as this can lead to unexpected side-effects. "
                    "Please open an issue if you need to perform in-place operations on the input to a pack hook.")
            return
        self.packed = None
        self._keep(t, is_output)

    def _keep(self, t, is_output: bool) -> None:
        """Hold an output as raw data (no out -> node -> saved -> out cycle), an input as itself."""
        if is_output:
            self.tensor = None
            self.arr = t._data
            self.output_nr = t._output_nr
            if _forward_ad._level.active:
                # (the op table gives the output its tangent after this; unpacking must see it, so
                # forward-over-reverse differentiates ``out`` too: the output's attribute dict,
                # which holds no reference back to the output, in the slot hooks use otherwise)
                self.packed = t.__dict__
        else:
            self.tensor = t
            self.arr = None
            self.output_nr = -1

    def unpack(self, node=None):
        if self.unpack_hook is None:  # the common case first
            if self.vc[0] != self.version:
                self._raise_modified(node)
            if self.tensor is not None:
                return self.tensor
            r = _Tensor()._wrap(self.arr, True, node, self.output_nr, vc=self.vc)  # a saved output
            if self.packed is not None and "_fw_tangent" in self.packed:
                r.__dict__["_fw_tangent"] = self.packed["_fw_tangent"]
            return r
        Tensor = _Tensor()

        if self.unpack_hook is not None:
            t = self.unpack_hook(self.packed)
            if not isinstance(t, Tensor):
                raise TypeError("Output of saved tensor unpack_hook expected to be a Tensor but got result of type "
                                f"{type(t).__name__}")
            if self.output_nr >= 0:
                return Tensor._wrap(t._data, True, node, self.output_nr)
            link = self.grad_fn_name
            if link is None:
                return t
            gf, second = link
            if gf is not None:
                return Tensor._wrap(t._data, True, gf, second)
            r = Tensor._wrap(t._data, True, None, 0)
            r._accum = weakref.ref(second)
            r.__dict__["_accum_strong"] = second
            return r
        if self.vc[0] != self.version:
            self._raise_modified(node)
        if self.tensor is not None:
            return self.tensor
        return Tensor._wrap(self.arr, True, node, self.output_nr, vc=self.vc)

    @property
    def data(self):
        """What is held: a hook's packed object as-is, else the saved input itself, or for a saved
        output a detached tensor of its value (PyTorch's ``SavedTensor.data``)."""
        if self.unpack_hook is not None:
            return self.packed
        if self.tensor is not None:
            return self.tensor
        return _Tensor()._wrap(self.arr, False, None, 0, vc=self.vc)

    def register_hooks(self, *hooks) -> None:
        """``register_hooks(pack_hook, unpack_hook)``: pack the saved value now with ``pack_hook``;
        ``unpack_hook`` restores it when backward needs it."""
        if len(hooks) != 2 or not all(callable(h) for h in hooks):
            raise TypeError("register_hooks(): incompatible function arguments. The following argument types are "
                            "supported:\n    1. (self: SavedTensor, arg0: Callable, arg1: Callable) -> None")
        pack_hook, unpack_hook = hooks
        if self.empty == "none":
            raise RuntimeError("Calling register_hooks on a saved tensor with value None is forbidden")
        if self.empty == "freed":
            raise RuntimeError("Calling register_hooks on a saved tensor after it has been freed. Saved intermediate "
                               "values of the graph are freed when you call .backward() or autograd.grad(). Specify "
                               "retain_graph=True if you need to backward through the graph a second time or if you "
                               "need to access saved values after calling backward.")
        if self.unpack_hook is not None:
            raise RuntimeError("Calling register_hooks on a saved tensor whose hooks have already been set. Hint: only "
                               "one pair of hooks is allowed at a time.")
        Tensor = _Tensor()
        t = self.tensor
        if t is not None:  # an input: unpacking reattaches its own autograd links
            self.grad_fn_name = ((t._grad_fn, t._output_nr) if t._grad_fn is not None else
                                 (None, t._grad_accumulator()) if t._requires_grad else None)
            value = t
        else:  # an output, kept as data: unpacking reattaches it to the node
            self.grad_fn_name = None
            value = Tensor._wrap(self.arr, False, None, 0, vc=self.vc)
        version = value._version
        prev = grad_mode.state.enabled
        grad_mode.state.enabled = False
        try:
            packed = pack_hook(value)
        finally:
            grad_mode.state.enabled = prev
        if value._version != version:
            raise RuntimeError(
                "A saved tensor pack hook is modifying its input in place. Tensors provided as input to pack hook "
                "cannot be modified by in-place operations as this can lead to unexpected side-effects. Please open "
                "an issue if you need to perform in-place operations on the input to a pack hook.")
        self.packed = packed
        self.unpack_hook = unpack_hook
        self.tensor = None
        self.arr = None

    @classmethod
    def _placeholder(cls, kind: str) -> "SavedTensor":
        """A SavedTensor holding nothing: a saved None (``kind="none"``) or a freed value (``"freed"``)."""
        st = object.__new__(cls)
        st.tensor = st.arr = st.vc = st.version = st.packed = st.unpack_hook = st.grad_fn_name = None
        st.output_nr = -1
        st.empty = kind
        return st

    @classmethod
    def _of_input(cls, t, version: int) -> "SavedTensor":
        """A SavedTensor describing an input an OpNode saved directly as (tensor, version)."""
        st = object.__new__(cls)
        st.tensor, st.arr, st.vc, st.version = t, None, t._vcounter(), version
        st.empty = None
        st.output_nr, st.packed, st.unpack_hook, st.grad_fn_name = -1, None, None, None
        return st

    def unpack_data(self, node):
        """The saved value's NumPy array (what ``unpack(node)._data`` gives, without a Tensor)."""
        if self.unpack_hook is None:
            if self.vc[0] != self.version:
                self._raise_modified(node)
            t = self.tensor
            return t._data if t is not None else self.arr
        return self.unpack(node)._data

    def _raise_modified(self, node):
        t = self.tensor
        if t is not None:
            data, gf, nr = t._data, t._grad_fn, t._output_nr
        else:
            data, gf, nr = self.arr, node, self.output_nr
        from .._tensor import _legacy_type_name

        desc = f"[{_legacy_type_name(data.dtype)} [{', '.join(map(str, data.shape))}]]"
        if gf is not None:
            import re

            # (PyTorch's short name: "Backward0" dropped, other numbers kept: Add, Max1, Fill2)
            short = re.sub(r"Backward(\d*)$", lambda m: "" if m.group(1) == "0" else m.group(1), gf.name())
            desc += f", which is output {nr} of {short},"
        raise RuntimeError(
            "one of the variables needed for gradient computation has been modified by an "
            f"inplace operation: {desc} is at version {self.vc[0]}; expected version "
            f"{self.version} instead. Hint: enable anomaly detection to find the operation "
            "that failed to compute its gradient, with torch.autograd.set_detect_anomaly(True, "
            "check_nan=False)." + _error_details.inplace_details(node, self.vc, self.version)
        )


class _Released(tuple):
    """The (empty, falsy) ``saved`` of a node whose saved tensors were freed.

    Each backward pass frees into its own instance (``_Run.freed``), which says which
    backward call freed them (``site``) and when (``seq``: nodes created later have a larger
    ``_seq``); ``_RELEASED`` stands for a release outside any pass.
    """

    site = None
    seq = None


_RELEASED = _Released()


def _freed_marker() -> _Released:
    """What a node releasing its saved tensors now holds: the running pass's marker."""
    from ._pass_state import _local

    return _local.stack[-1].freed if _local.stack else _RELEASED


def _freed_error(node) -> RuntimeError:
    """PyTorch's "backward through the graph a second time" error, with what retrograd adds."""
    from ._error_details import freed_details

    return RuntimeError(FREED_MSG + freed_details(node))


class OpNode(Node):
    """The backward of one op-table entry: runs its per-input rules.

    ``saved`` is a flat tuple of (entry, version) pairs, one pair per name in
    ``op.saved_names``.  An input saved in the common case (no saved-tensor hooks) is
    the Tensor itself with the version it had; anything else (an output, which is kept
    as raw data to avoid a reference cycle; a hooked or checked save) is a SavedTensor
    (or list of them) with version None.  No SavedTensor objects and no dict per op:
    recording is cheaper and leaves fewer objects for the cyclic garbage collector.
    """

    __slots__ = ("op", "saved", "static")
    _releases_saved = True
    out_meta = None  # ((shape, dtype), ...) of a multi-output op's outputs (set in __dict__)

    @property
    def next_functions(self) -> tuple:
        """As PyTorch lists them: no entry for an input the op never differentiates (a loss's
        target or class weights, a ``where`` condition, an index); the engine's own edge
        lists (``_next``) keep one entry per input."""
        rules = self.op.rules
        return tuple((n, nr) for n, nr, r in zip(self._next, self._next_nr, rules) if r is not None) \
            if None in rules else tuple(zip(self._next, self._next_nr))

    @next_functions.setter
    def next_functions(self, edges) -> None:
        Node.next_functions.fset(self, edges)

    @property
    def released(self) -> bool:
        """Whether a backward without retain_graph has freed what this node saved."""
        return type(self.saved) is _Released

    def _num_outputs(self) -> int:
        return self.op.n_out

    def apply(self, grads: list, needed: tuple | None = None) -> list:
        op = self.op
        if type(self.saved) is _Released:
            raise _freed_error(self)
        if op.fast_backward is not None and not _grad_state.enabled and not _prof_state.on:
            out = op.fast_backward(self, grads, needed)  # the op's declared fast path (autograd/_array_backward.py)
            if out is not None:
                return out
        g = grads[0] if op.n_out == 1 else _materialize(grads, self.out_meta)
        saved = self.saved
        out = []
        append = out.append
        nf = self._next
        plans = op.arg_plan
        i = -1
        for rule in op.rules:
            i += 1
            if rule is None or nf[i] is None or (needed is not None and not needed[i]):
                append(None)
                continue
            args = []
            for kind, key in plans[i]:
                if kind == 0:  # g
                    args.append(g)
                elif kind == 1:  # a saved input or output
                    v = saved[key]
                    ver = saved[key + 1]
                    if ver is None:
                        args.append(v.unpack(self))
                    else:
                        vc = v._vc
                        if (0 if vc is None else vc[0]) != ver:
                            SavedTensor._of_input(v, ver)._raise_modified(self)
                        args.append(v)
                elif kind == 2:  # a static argument
                    args.append(self.static[key])
                elif kind == 3:  # an input's shape
                    args.append(self._in_meta[key][0])
                else:  # an input's dtype
                    from .._dtype import from_numpy_dtype

                    args.append(from_numpy_dtype(self._in_meta[key][1]))
            append(rule(*args))
        return out

    def release(self) -> None:
        if self.saved:
            self.saved = _freed_marker()

    def saved_items(self) -> list:
        """[(name, SavedTensor or list of them)] of what this node holds for backward."""
        s = self.saved
        if not s:
            return []
        out = []
        for k, name in enumerate(self.op.saved_names):
            v, ver = s[2 * k], s[2 * k + 1]
            out.append((name, v if ver is None else SavedTensor._of_input(v, ver)))
        return out

    def __getattr__(self, name: str) -> Any:
        # PyTorch exposes what a node saved as grad_fn._saved_<name>: tensors under the
        # schema's names (self, other, result), and sizes and arguments (self_sym_sizes, dim).
        if name.startswith("_raw_saved_"):
            return self._raw_saved(name[11:])
        if name.startswith("_saved_"):
            key = name[7:]
            op = self.op
            inputs = op.inputs
            alias = {"self": inputs[0] if inputs else None, "result": "out",
                     "other": inputs[1] if len(inputs) > 1 else None}
            tkey = alias.get(key, key)
            if tkey in op.saved_names:
                if self.released:
                    raise _freed_error(self)
                for k, v in self.saved_items():
                    if k == tkey:
                        return v.unpack(self) if hasattr(v, "unpack") else v
            static = self.static
            if static:
                if key in static:
                    return static[key]
                if key == "dim" and "dims" in static:
                    return tuple(static["dims"])
            if key == "self_sym_sizes" and self._in_meta:
                return tuple(self._in_meta[0][0])
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")


def _op_raw_saved(self, key: str):
    """``grad_fn._raw_saved_<key>``: the SavedTensor itself (stable: an input saved as a plain
    (tensor, version) pair is turned into a SavedTensor in place, so hooks registered on it last)."""
    op = self.op
    inputs = op.inputs
    alias = {"self": inputs[0] if inputs else None, "result": "out",
             "other": inputs[1] if len(inputs) > 1 else None}
    tkey = alias.get(key, key)
    if tkey not in op.saved_names:
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '_raw_saved_{key}'")
    if self.released:
        return SavedTensor._placeholder("freed")
    k = op.saved_names.index(tkey)
    saved = list(self.saved)
    v, ver = saved[2 * k], saved[2 * k + 1]
    if ver is not None:
        v = SavedTensor._of_input(v, ver)
        saved[2 * k], saved[2 * k + 1] = v, None
        self.saved = tuple(saved)
    return v


OpNode._raw_saved = _op_raw_saved


def _materialize(grads: list, out_meta) -> list:
    """Multi-output rules see zeros for outputs that got no gradient."""
    from .. import _creation

    return [g if g is not None else _creation.zeros(shape, dtype=dt)
            for g, (shape, dt) in zip(grads, out_meta)]


class AccumulateGrad(Node):
    """The sink for a leaf: accumulates the incoming gradient into ``variable.grad``."""

    __slots__ = ("variable", "_post_acc_hooks")
    _name = "torch::autograd::AccumulateGrad"
    _n_fixed = 1

    def __init__(self, variable) -> None:
        super().__init__()
        self.variable = variable
        self._post_acc_hooks = None
        self._seq = sys.maxsize  # leaves' sinks run as soon as they are ready

    def __repr__(self) -> str:
        return f"<AccumulateGrad object at {hex(id(self))}>"

    def apply(self, grads: list, needed=None) -> list:
        accumulate_into_leaf(self.variable, grads[0])
        return []


AccumulateGrad.__name__ = "AccumulateGrad"


def accumulate_leaf(node: AccumulateGrad, g, run) -> None:
    """AccumulateGrad: the leaf's ``.grad``, then its post-accumulate hooks."""
    accumulate_into_leaf(node.variable, g, run)
    for fn in list((node._post_acc_hooks or {}).values()):
        if fn(node.variable) is not None:
            raise RuntimeError("Tensor post accumulate grad hooks should return None.")


def accumulate_into_leaf(var, g, run=None) -> None:
    """PyTorch's AccumulateGrad: first grad is stored (copied if shared), later ones added."""
    cur = var._grad
    if cur is None:
        if grad_mode.state.enabled and g._requires_grad:
            from .. import _creation

            # Building a graph: the stored grad is a differentiable copy (CopyBackwards).
            var._grad = _creation.empty(g.shape, dtype=var.dtype).copy_(g)
            return
        data = g._data
        # The gradient's array becomes .grad unless something else may hold or write it: a
        # view, a read-only array, one already handed to another leaf or passed in by the caller
        # (``run.fresh``), or a tensor sharing its version counter.
        if data.base is not None or (run is not None and id(data) in run.fresh) or g._base is not None \
                or g._shared_vc or not data.flags.writeable:
            data = data.copy()
        if data.strides != var._data.strides and data.ndim > 1:
            # PyTorch: the grad of a dense leaf takes the leaf's layout (row-major, channels_last
            # ...), of a non-dense one row-major; np.empty_like's order 'K' gives exactly that
            want = np.empty_like(var._data)
            if want.strides != data.strides:
                want[...] = data
                data = want
        if run is not None:
            run.fresh.add(id(data))
        var._grad = _Tensor()._wrap(data, False, None, 0) if type(g) is _Tensor() else g.detach()
    elif grad_mode.state.enabled:
        var._grad = cur + g
    elif cur._data.flags.writeable and cur._data.shape == g._data.shape:
        cur._data += g._data
        cur._vcounter()[0] += 1
    else:
        var._grad = cur + g


# ---- what a gradient hook may return ------------------------------------------------------
def checked_hook_value(hook, new, old):
    """A hook's replacement for gradient ``old``: a Tensor of the same dtype and shape (PyTorch's checks)."""
    if not isinstance(new, _Tensor()):
        raise TypeError(f"expected Variable, but hook returned '{type(new).__name__}'")
    name = getattr(hook, "__name__", type(hook).__name__)
    if new._data.dtype != old._data.dtype:
        raise RuntimeError(f"hook '{name}' has changed the type of value (was {old.type()} got {new.type()})")
    if new._data.shape != old._data.shape:
        raise RuntimeError(f"hook '{name}' has changed the size of value")
    if new is not old:
        _sites.note_hook_result(hook, new, old)  # (explain(): a hook that zeroed a gradient)
    return new


def checked_hook_values(hook, res, old: list) -> list:
    """A node hook's replacement gradients: a tuple as long as ``old``, each checked as above."""
    if not isinstance(res, tuple):
        raise TypeError(f"expected tuple, but hook returned '{type(res).__name__}'")
    if len(res) != len(old):
        raise RuntimeError(f"hook '{getattr(hook, '__name__', type(hook).__name__)}' has returned an incorrect "
                           f"number of values (got {len(res)}, but expected {len(old)})")
    out = []
    for r, o in zip(res, old):
        if r is not None and o is None:
            raise RuntimeError("can't replace a None gradient with a non-None value")
        out.append(None if r is None else checked_hook_value(hook, r, o))
    return out


# ---- saved tensor hooks ---------------------------------------------------------------
_saved_hooks_stack: list = []


class saved_tensors_hooks:
    """Context manager: pack/unpack hooks for tensors saved for backward.

    >>> import retrograd as torch
    >>> x = torch.tensor(2., requires_grad=True)
    >>> with torch.autograd.graph.saved_tensors_hooks(lambda t: t * 1, lambda t: t):
    ...     y = x * x
    >>> y.backward(); x.grad
    tensor(4.)
    """

    def __init__(self, pack_hook: Callable, unpack_hook: Callable) -> None:
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        if _disabled_msg[0] is not None:
            raise RuntimeError(_disabled_msg[0])
        _saved_hooks_stack.append((self.pack_hook, self.unpack_hook))
        return self

    def __exit__(self, *exc) -> None:
        _saved_hooks_stack.pop()


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors go to (and come back from) CPU memory; on retrograd that is a copy."""

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda") -> None:
        def pack(t):
            return t.detach().clone()

        def unpack(t):
            return t

        super().__init__(pack, unpack)


_disabled_msg: list = [None]


class disable_saved_tensors_hooks:
    """Inside, using ``saved_tensors_hooks`` raises RuntimeError(error_message)."""

    def __init__(self, error_message: str) -> None:
        self.msg = error_message

    def __enter__(self):
        if _saved_hooks_stack:
            raise RuntimeError(self.msg)
        self.prev = _disabled_msg[0]
        _disabled_msg[0] = self.msg

    def __exit__(self, *exc):
        _disabled_msg[0] = self.prev


# ---- gradient edges and multi-grad hooks -----------------------------------------------
class GradientEdge(tuple):
    """(node, output_nr): where a tensor's gradient enters the graph."""

    def __new__(cls, node, output_nr):
        self = super().__new__(cls, (node, output_nr))
        self._meta = None  # ((shape, numpy dtype) of the gradient, when the edge was taken from a tensor)
        return self

    @property
    def node(self):
        return self[0]

    @property
    def output_nr(self):
        return self[1]


def get_gradient_edge(tensor) -> GradientEdge:
    """The edge of ``tensor``'s gradient: its grad_fn, or its AccumulateGrad for a leaf."""
    if not tensor.requires_grad:
        raise RuntimeError("It is not possible to get the gradient edge for a Tensor that does not require gradients")
    if tensor._grad_fn is not None:
        edge = GradientEdge(tensor._grad_fn, tensor._output_nr)
    else:
        edge = GradientEdge(tensor._grad_accumulator(), 0)
    edge._meta = (tensor._data.shape, tensor._data.dtype)
    return edge


def _edge_meta(edge: GradientEdge) -> tuple:
    """(shape, numpy dtype) of the gradient ``edge`` takes: recorded, or read off its node when it can be."""
    meta = getattr(edge, "_meta", None)
    if meta is not None:
        return meta
    node, nr = edge
    if type(node) is AccumulateGrad:
        v = node.variable
        return v._data.shape, v._data.dtype
    out_meta = getattr(node, "_out_meta", None) or getattr(node, "out_meta", None)
    if out_meta and nr < len(out_meta) and out_meta[nr] is not None:
        return out_meta[nr]
    return (), np.dtype(np.float32)  # unknown: taken as a scalar (the engine checks the gradient's shape later)


def register_multi_grad_hook(tensors, fn: Callable, *, mode: str = "all") -> RemovableHandle:
    """Call ``fn`` once per backward, after the grads of all ``tensors`` are computed.

    mode="all": ``fn(grads)`` gets a tuple with None for tensors that got no grad.
    mode="any": ``fn(grad)`` runs on the first of them to get a gradient.
    """
    if mode not in ("all", "any"):
        raise ValueError(f"Expects mode to be one of ('all', 'any') but got {mode}")
    from . import engine

    tensors = tuple(tensors)
    handles = []
    if mode == "all":
        state: dict = {}

        def make(i):
            def hook(g):
                run_id = engine.current_run_id()
                if state.get("run") != run_id:
                    needed = [engine.will_receive_grad(t) for t in tensors]
                    state.update(run=run_id, grads=[None] * len(tensors), left=sum(needed))
                state["grads"][i] = g
                state["left"] -= 1
                if state["left"] == 0:
                    fn(state["grads"])
            return hook
    else:
        state = {}

        def make(i):
            def hook(g):
                run_id = engine.current_run_id()
                if state.get("run") != run_id:
                    state["run"] = run_id
                    fn(g)
            return hook
    for i, t in enumerate(tensors):
        if t.requires_grad:
            handles.append(t.register_hook(make(i)))

    class _Multi(RemovableHandle):
        def __init__(self):
            self._hs = handles

        def remove(self):
            for h in self._hs:
                h.remove()

    return _Multi()


from .memory_report import memory_report, set_module_tracking  # noqa: E402,F401  (retrograd's own)


# ---- version bumps and mutation of saved tensors -----------------------------------------
def increment_version(tensor) -> None:
    """Record an in-place change made behind autograd's back (e.g. through ``.numpy()``).

    Bumps ``tensor._version`` (or each tensor's in an iterable), so a backward that needs a
    saved copy of it raises the usual "modified by an inplace operation" error.  Inference
    tensors have no version counter and are left alone, as in PyTorch.

    >>> import retrograd as torch
    >>> t = torch.zeros(2)
    >>> torch.autograd.graph.increment_version(t); t._version
    1
    """
    Tensor = _Tensor()
    if isinstance(tensor, Tensor):
        tensors = (tensor,)
    else:
        try:
            tensors = tuple(tensor)
        except TypeError:
            raise RuntimeError("increment_version expect a Iterable[Tensor] as input") from None
        if not all(isinstance(t, Tensor) for t in tensors):
            raise RuntimeError("increment_version expects each element of the iterable to be a tensor")
    from .._tensor import bump_version

    for t in tensors:
        if not t._inference_flag():
            bump_version(t)


_mutation_ctx_active = [False]
_OUTSIDE_MUTATION_CTX = ("Trying to backward outside of the 'allow_mutation_on_saved_tensors' context"
                         "in which the graph was originally recorded.")  # (PyTorch's text, no space)


class _Handle:
    """What the graph keeps for a tensor saved inside ``allow_mutation_on_saved_tensors``."""

    __slots__ = ("__weakref__",)


class _AllowMutationOnSavedContext:
    """State of one ``allow_mutation_on_saved_tensors`` block: the copies of the tensors it saved."""

    def __init__(self) -> None:
        # handle -> copy; an entry goes when its graph (which holds the handle) is freed
        self.cloned: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    def clear(self) -> None:
        self.cloned.clear()


class allow_mutation_on_saved_tensors:
    """Context manager in which tensors saved for backward may be modified in place.

    Backward (run inside the same block) still sees the values the forward saved.  PyTorch
    copies a saved tensor when an in-place op is about to write to it; retrograd cannot
    intercept every write, so it copies each tensor when it is saved (same results, more
    memory).  Blocks do not nest; backward after the block has ended raises AssertionError.

    >>> import retrograd as torch
    >>> with torch.autograd.graph.allow_mutation_on_saved_tensors():
    ...     a = torch.ones(3, requires_grad=True)
    ...     b = a.clone()
    ...     out = (b ** 2).sum()
    ...     _ = b.sin_()
    ...     out.backward()
    >>> a.grad
    tensor([2., 2., 2.])
    """

    def __init__(self) -> None:
        self.ctx = _AllowMutationOnSavedContext()

        def pack(t):
            handle = _Handle()
            self.ctx.cloned[handle] = t.detach().clone()
            return handle

        def unpack(handle):
            if not _mutation_ctx_active[0] or handle not in self.ctx.cloned:
                raise AssertionError(_OUTSIDE_MUTATION_CTX)
            return self.ctx.cloned[handle]

        self.hooks = saved_tensors_hooks(pack, unpack)

    def __enter__(self) -> _AllowMutationOnSavedContext:
        if _mutation_ctx_active[0]:
            raise RuntimeError("allow_mutation_on_saved_tensors contexts cannot be nested")
        self.hooks.__enter__()
        _mutation_ctx_active[0] = True
        return self.ctx

    def __exit__(self, *exc) -> None:
        self.hooks.__exit__(*exc)
        self.ctx.clear()
        _mutation_ctx_active[0] = False


def _weak(t):
    return weakref.ref(t)


# (bound late: the Tensor module imports this one)
from .profiler import _state as _prof_state  # noqa: E402

_grad_state = grad_mode.state

