"""The restricted pickle machine that reads ``data.pkl`` of a PyTorch zip checkpoint.

Python's own ``pickle.Unpickler`` cannot be made safe by ``find_class`` alone: its BUILD opcode
applies state (``__setstate__``, ``__dict__.update``, ``setattr``) to *any* object on the stack,
including the module-level objects that ``find_class`` admitted (a dtype, ``Size``, a rebuild
function), and SETITEM/APPEND call the target's own methods.  So this module runs its own small
pickle machine whose rules are:

* A global resolves only through ``_GLOBALS``: dtypes (which are values), storage types (which
  only ``persistent_load`` accepts), and a few constructors and rebuild functions, which are
  pushed as :class:`_Callable` records, never as the real class or function.  Nothing else is
  ever imported.  GLOBAL and STACK_GLOBAL are the only ways to name one (INST, OBJ, EXT1/2/4
  and NEWOBJ_EX are refused).
* REDUCE and NEWOBJ call only a ``_Callable``, with its arguments type-checked.
* State is applied only to objects created by this load, in the shapes PyTorch's
  ``weights_only`` unpickler accepts: BUILD only on an ``OrderedDict`` (a dict of attribute
  names, as ``state_dict()._metadata``); APPEND(S) only on lists, ADDITEMS only on sets,
  SETITEM(S) only on ``dict``/``OrderedDict``/``Counter``.
* Every declared length is compared with the bytes that remain before anything is allocated.
* The result may not be nested more than ``MAX_DEPTH`` levels deep.

Every refusal is a ``pickle.UnpicklingError`` that names the opcode, its byte position and the
global involved; nothing outside the returned object is ever changed.
"""
from __future__ import annotations

import pickle
import pickletools
import struct
from collections import Counter, OrderedDict
from typing import Any, Callable

import numpy as np

from . import _dtype as D
from ._checkpoint_zip import CorruptCheckpoint
from ._checkpoint_tensors import NUMERIC, is_int, make_tensor, strided
from ._size import Size, device
from ._tensor import Tensor

MAX_DEPTH = 256  # containers inside containers: the same limit as retrograd.save
_OPNAMES = {op.code.encode("latin-1")[0]: op.name for op in pickletools.opcodes}
_STRUCTS = {f: struct.Struct(f) for f in ("<i", "<H", "<I", "<Q", "<B", ">d")}


def _refuse(msg: str) -> pickle.UnpicklingError:
    return pickle.UnpicklingError(f"retrograd.load: {msg}")


# ------------------------------------------------------------------------------ the allowed globals
class _Callable:
    """What GLOBAL pushes for an allowed constructor or rebuild function: a name and a checked call.
    The real class or function never reaches the stack, so no opcode can modify it."""

    __slots__ = ("qualname", "call")

    def __init__(self, qualname: str, call: Callable) -> None:
        self.qualname = qualname
        self.call = call

    def __repr__(self) -> str:
        return f"<global {self.qualname}>"


class StorageType:
    """What GLOBAL pushes for ``torch.<X>Storage``: accepted only inside a persistent id."""

    __slots__ = ("qualname", "np")

    def __init__(self, name: str, npdt) -> None:
        self.qualname = f"torch.{name}"
        self.np = npdt  # None: bfloat16, read as its 16 bits and widened to float32

    def __repr__(self) -> str:
        return f"<global {self.qualname}>"


_STORAGES = {
    "FloatStorage": np.float32, "DoubleStorage": np.float64, "HalfStorage": np.float16,
    "BFloat16Storage": None, "LongStorage": np.int64, "IntStorage": np.int32, "ShortStorage": np.int16,
    "CharStorage": np.int8, "ByteStorage": np.uint8, "BoolStorage": np.bool_, "UntypedStorage": np.uint8,
}
_DTYPES = {"float32": "float32", "float": "float32", "float64": "float64", "double": "float64",
           "float16": "float16", "half": "float16", "bfloat16": "bfloat16", "int64": "int64", "long": "int64",
           "int32": "int32", "int": "int32", "int16": "int16", "short": "int16", "int8": "int8",
           "uint8": "uint8", "bool": "bool"}


def _args(args: tuple, lo: int, hi: int, what: str) -> tuple:
    if not lo <= len(args) <= hi:
        raise TypeError(f"{what} takes {lo} to {hi} arguments, got {len(args)}")
    return args


def _no_hooks(hooks, what: str) -> None:
    if hooks is not None and not (type(hooks) in (dict, OrderedDict) and not hooks):
        raise _refuse(f"{what}: tensors with backward hooks are not loaded")


def _rebuild_tensor_v2(*args) -> Tensor:
    storage, offset, size, stride, requires_grad, hooks, metadata = (_args(args, 6, 7, "_rebuild_tensor_v2")
                                                                     + (None,))[:7]
    _no_hooks(hooks, "_rebuild_tensor_v2")
    if metadata is not None and not (type(metadata) is dict and not any(metadata.values())):
        raise _refuse(f"_rebuild_tensor_v2: unsupported tensor metadata {metadata!r:.80}")
    return _rebuild_tensor(storage, offset, size, stride, requires_grad)


def _rebuild_tensor(*args) -> Tensor:
    storage, offset, size, stride, requires_grad = (_args(args, 4, 5, "_rebuild_tensor") + (False,))[:5]
    if not isinstance(storage, np.ndarray):
        raise _refuse(f"a tensor's storage is a {type(storage).__name__}, not a storage of this checkpoint")
    if type(requires_grad) is not bool:
        raise _refuse("a tensor's requires_grad must be a bool")
    arr = strided(storage, offset, size, stride, _refuse)
    return make_tensor(arr, requires_grad)


def _rebuild_parameter(*args) -> Tensor:
    data, requires_grad, hooks = _args(args, 3, 3, "_rebuild_parameter")
    return _parameter(data, requires_grad, hooks)


def _rebuild_parameter_with_state(*args) -> Tensor:
    data, requires_grad, hooks, state = _args(args, 4, 4, "_rebuild_parameter_with_state")
    if state is not None and not (type(state) in (dict, OrderedDict) and not state):
        raise _refuse("_rebuild_parameter_with_state: parameters with Python attributes are not loaded")
    return _parameter(data, requires_grad, hooks)


def _parameter(data, requires_grad, hooks) -> Tensor:
    if type(data) is not Tensor:
        raise _refuse(f"a parameter's data is a {type(data).__name__}, not a tensor of this checkpoint")
    if type(requires_grad) is not bool:
        raise _refuse("a parameter's requires_grad must be a bool")
    _no_hooks(hooks, "_rebuild_parameter")
    return make_tensor(data._data, requires_grad, parameter=True)


def _ordered_dict(*args) -> OrderedDict:
    if args and not (len(args) == 1 and type(args[0]) in (dict, list, OrderedDict)):
        raise TypeError("OrderedDict takes an optional dict or list of pairs")
    return OrderedDict(*args)


def _counter(*args) -> Counter:
    if args and not (len(args) == 1 and type(args[0]) in (dict, OrderedDict)):
        raise TypeError("Counter takes an optional dict")
    return Counter(*args)


def _size(*args) -> Size:
    (dims,) = _args(args, 1, 1, "Size") if args else ((),)
    if type(dims) not in (tuple, list) or not all(is_int(d) for d in dims):
        raise TypeError("Size takes a tuple of ints")
    return Size(dims)


def _device(*args) -> device:
    _args(args, 1, 2, "device")
    if type(args[0]) is not str or (len(args) == 2 and not (args[1] is None or is_int(args[1]))):
        raise TypeError("device takes a string and an optional int index")
    return device(*args)


def _encode(*args) -> bytes:  # how protocol 2 spells bytes: _codecs.encode(text, 'latin1')
    text, codec = _args(args, 2, 2, "_codecs.encode")
    if type(text) is not str or codec not in ("latin1", "latin-1"):
        raise TypeError("_codecs.encode is accepted only as encode(str, 'latin1')")
    return text.encode("latin-1")


def _from_items(kind: type) -> Callable:
    def make(*args):
        if args and not (len(args) == 1 and type(args[0]) in (list, tuple)):
            raise TypeError(f"{kind.__name__} takes an optional list")
        return kind(*args)
    return make


def _bytearray(*args) -> bytearray:
    if not args:
        return bytearray()
    if len(args) == 1 and type(args[0]) is bytes:
        return bytearray(args[0])
    return bytearray(_encode(*args))


def _complex(*args) -> complex:
    _args(args, 0, 2, "complex")
    if not all(type(a) in (int, float) for a in args):
        raise TypeError("complex takes two numbers")
    return complex(*args)


_GLOBALS: dict[tuple[str, str], Any] = {
    ("collections", "OrderedDict"): _Callable("collections.OrderedDict", _ordered_dict),
    ("collections", "Counter"): _Callable("collections.Counter", _counter),
    ("torch", "Size"): _Callable("torch.Size", _size),
    ("torch", "device"): _Callable("torch.device", _device),
    ("_codecs", "encode"): _Callable("_codecs.encode", _encode),
    ("builtins", "set"): _Callable("builtins.set", _from_items(set)),
    ("builtins", "frozenset"): _Callable("builtins.frozenset", _from_items(frozenset)),
    ("builtins", "bytearray"): _Callable("builtins.bytearray", _bytearray),
    ("builtins", "complex"): _Callable("builtins.complex", _complex),
    ("torch._utils", "_rebuild_tensor"): _Callable("torch._utils._rebuild_tensor", _rebuild_tensor),
    ("torch._utils", "_rebuild_tensor_v2"): _Callable("torch._utils._rebuild_tensor_v2", _rebuild_tensor_v2),
    ("torch._utils", "_rebuild_parameter"): _Callable("torch._utils._rebuild_parameter", _rebuild_parameter),
    ("torch._utils", "_rebuild_parameter_with_state"): _Callable("torch._utils._rebuild_parameter_with_state",
                                                                 _rebuild_parameter_with_state),
}
_GLOBALS.update({("torch", n): StorageType(n, t) for n, t in _STORAGES.items()})
_GLOBALS.update({("torch", n): D._by_name(v) for n, v in _DTYPES.items()})
# names as Python 2 (and so protocol-2 pickles) spell them
_MODULE_ALIASES = {"__builtin__": "builtins", "copy_reg": "copyreg"}

_SETTABLE = (dict, OrderedDict, Counter)  # SETITEM(S) targets, as in PyTorch's weights_only unpickler


def _describe(obj) -> str:
    """How an error message names the target of a refused opcode."""
    if isinstance(obj, (_Callable, StorageType)):
        return f"the global {obj.qualname}"
    if isinstance(obj, D.dtype):
        return f"the global {obj!r} (a dtype)"
    return f"an object of type {type(obj).__module__}.{type(obj).__qualname__}"


# ------------------------------------------------------------------------------ the machine
class Unpickler:
    """Runs the opcodes of one pickle held in memory; ``persistent_load(pid)`` supplies storages."""

    def __init__(self, data: bytes, persistent_load: Callable[[tuple], np.ndarray], name: str = "data.pkl") -> None:
        self.raw = bytes(data)
        self.data = memoryview(self.raw)
        self.persistent_load = persistent_load
        self.name = name
        self.pos = 0
        self.op_pos = 0
        self.op = "?"
        self.created: dict[int, Any] = {}  # id -> object made by this load (kept alive so ids stay unique)

    # -- reading
    def _take(self, n: int) -> memoryview:
        if n < 0 or n > len(self.data) - self.pos:
            raise _refuse(f"{self.op} at byte {self.op_pos} of {self.name} declares {n} bytes but only "
                          f"{len(self.data) - self.pos} remain (truncated or corrupted)")
        out = self.data[self.pos:self.pos + n]
        self.pos += n
        return out

    def _line(self) -> str:
        end = self.raw.find(b"\n", self.pos)
        if end < 0:
            raise _refuse(f"{self.op} at byte {self.op_pos} of {self.name} is not terminated (truncated)")
        line = self.raw[self.pos:end]
        self.pos = end + 1
        return line.decode("utf-8")

    def _unpack(self, fmt: str) -> int | float:
        st = _STRUCTS[fmt]
        return st.unpack(self._take(st.size))[0]

    def _byte(self) -> int:
        if self.pos >= len(self.data):
            self._take(1)  # (raises the truncation error)
        self.pos += 1
        return self.data[self.pos - 1]

    def _new(self, obj):
        self.created[id(obj)] = obj
        return obj

    def _target(self, stack: list, types: tuple, what: str):
        obj = stack[-1]
        if type(obj) not in types or id(obj) not in self.created:
            raise _refuse(f"refusing {self.op} at byte {self.op_pos} of {self.name} on {_describe(obj)}: "
                          f"{what}")
        return obj

    def _global(self, module: str, name: str):
        module = _MODULE_ALIASES.get(module, module)
        found = _GLOBALS.get((module, name))
        if found is None:
            raise _refuse(f"refusing to load the global '{module}.{name}' ({self.op} at byte {self.op_pos} of "
                          f"{self.name}); only tensors, containers, numbers, strings, dtypes, sizes and devices "
                          "are loaded (unpickling arbitrary globals can run code)")
        return found

    # -- running
    def load(self) -> Any:
        try:
            result = self._run()
        except (pickle.UnpicklingError, CorruptCheckpoint):
            raise
        except (IndexError, KeyError, TypeError, ValueError, AttributeError, OverflowError, RuntimeError,
                struct.error, UnicodeDecodeError, MemoryError, RecursionError, EOFError) as e:
            raise _refuse(f"corrupted {self.name}: {self.op} at byte {self.op_pos} failed "
                          f"({type(e).__name__}: {e})") from None
        _check_result(result)
        return result

    def _run(self) -> Any:  # noqa: C901 - one branch per opcode, as pickle's own machine
        stack: list = []
        marks: list[list] = []
        memo: dict[int, Any] = {}
        data = self.data
        while True:
            if self.pos >= len(data):
                raise _refuse(f"{self.name} ends without a STOP opcode (truncated)")
            self.op_pos = self.pos
            code = data[self.pos]
            self.pos += 1
            op = self.op = _OPNAMES.get(code, f"unknown opcode 0x{code:02x}")
            # ---- memo (first: a third of the opcodes of a state dict)
            if op in ("BINGET", "LONG_BINGET", "GET"):
                i = (self._byte() if op == "BINGET" else self._unpack("<I") if op == "LONG_BINGET"
                     else int(self._line()))
                if i not in memo:
                    raise _refuse(f"{op} at byte {self.op_pos} of {self.name}: memo entry {i} was never stored")
                stack.append(memo[i])
            elif op in ("BINPUT", "LONG_BINPUT", "PUT"):
                i = (self._byte() if op == "BINPUT" else self._unpack("<I") if op == "LONG_BINPUT"
                     else int(self._line()))
                memo[i] = stack[-1]
            elif op == "MEMOIZE":
                memo[len(memo)] = stack[-1]
            elif op == "PROTO":
                if self._byte() > 5:
                    raise _refuse(f"unsupported pickle protocol {data[self.pos - 1]}")
            elif op == "FRAME":
                n = self._unpack("<Q")
                if n > len(data) - self.pos:
                    raise _refuse(f"FRAME at byte {self.op_pos} of {self.name} declares {n} bytes but only "
                                  f"{len(data) - self.pos} remain (truncated or corrupted)")
            elif op == "STOP":
                if len(stack) != 1 or marks:
                    raise _refuse(f"STOP at byte {self.op_pos} of {self.name} with {len(stack)} objects on the "
                                  "stack (corrupted)")
                return stack[0]
            # ---- constants
            elif op == "NONE":
                stack.append(None)
            elif op == "NEWTRUE":
                stack.append(True)
            elif op == "NEWFALSE":
                stack.append(False)
            elif op == "BININT":
                stack.append(self._unpack("<i"))
            elif op == "BININT1":
                stack.append(self._byte())
            elif op == "BININT2":
                stack.append(self._unpack("<H"))
            elif op == "INT":
                text = self._line()
                stack.append(True if text == "01" else False if text == "00" else int(text))
            elif op == "LONG":
                stack.append(int(self._line().rstrip("L")))
            elif op == "LONG1":
                stack.append(int.from_bytes(self._take(self._byte()), "little", signed=True))
            elif op == "LONG4":
                n = self._unpack("<i")
                if n > 4096:  # 32,768-bit ints: far beyond anything a checkpoint holds, cheap to refuse
                    raise _refuse(f"LONG4 at byte {self.op_pos} of {self.name} declares a {n}-byte integer")
                stack.append(int.from_bytes(self._take(n), "little", signed=True))
            elif op == "BINFLOAT":
                stack.append(self._unpack(">d"))
            elif op == "FLOAT":
                stack.append(float(self._line()))
            elif op in ("BINUNICODE", "SHORT_BINUNICODE", "BINUNICODE8"):
                n = self._unpack({"BINUNICODE": "<I", "SHORT_BINUNICODE": "<B", "BINUNICODE8": "<Q"}[op])
                stack.append(str(self._take(n), "utf-8", "surrogatepass"))
            elif op == "UNICODE":
                stack.append(self._line().encode("utf-8").decode("raw-unicode-escape"))
            elif op in ("BINBYTES", "SHORT_BINBYTES", "BINBYTES8", "BYTEARRAY8"):
                n = self._unpack({"BINBYTES": "<I", "SHORT_BINBYTES": "<B", "BINBYTES8": "<Q", "BYTEARRAY8": "<Q"}[op])
                raw = self._take(n)
                stack.append(bytearray(raw) if op == "BYTEARRAY8" else bytes(raw))
            elif op in ("SHORT_BINSTRING", "BINSTRING"):  # Python 2 str: ASCII text, as torch.load decodes it
                n = self._unpack("<B" if op == "SHORT_BINSTRING" else "<i")
                stack.append(str(self._take(n), "ascii"))
            # ---- containers built here
            elif op == "MARK":
                marks.append(stack)
                stack = []
            elif op == "POP_MARK":
                stack = marks.pop()
            elif op == "POP":
                stack.pop()
            elif op == "DUP":
                stack.append(stack[-1])
            elif op == "EMPTY_TUPLE":
                stack.append(())
            elif op in ("TUPLE1", "TUPLE2", "TUPLE3"):
                n = {"TUPLE1": 1, "TUPLE2": 2, "TUPLE3": 3}[op]
                if len(stack) < n:
                    raise IndexError("stack underflow")
                stack[-n:] = [tuple(stack[-n:])]
            elif op == "TUPLE":
                items, stack = stack, marks.pop()
                stack.append(tuple(items))
            elif op == "EMPTY_LIST":
                stack.append(self._new([]))
            elif op == "LIST":
                items, stack = stack, marks.pop()
                stack.append(self._new(items))
            elif op == "EMPTY_DICT":
                stack.append(self._new({}))
            elif op == "DICT":
                items, stack = stack, marks.pop()
                d = self._new({})
                self._set_pairs(d, items)
                stack.append(d)
            elif op == "EMPTY_SET":
                stack.append(self._new(set()))
            elif op == "FROZENSET":
                items, stack = stack, marks.pop()
                stack.append(frozenset(items))
            # ---- state: only on objects this load created, only in the shapes PyTorch accepts
            elif op == "APPEND":
                item = stack.pop()
                self._target(stack, (list,), "APPEND adds only to lists made by this load").append(item)
            elif op == "APPENDS":
                items, stack = stack, marks.pop()
                self._target(stack, (list,), "APPENDS adds only to lists made by this load").extend(items)
            elif op == "ADDITEMS":
                items, stack = stack, marks.pop()
                self._target(stack, (set,), "ADDITEMS adds only to sets made by this load").update(items)
            elif op == "SETITEM":
                value = stack.pop()
                key = stack.pop()
                self._set_pairs(self._target(stack, _SETTABLE, "SETITEM sets only items of dicts made by this "
                                             "load"), [key, value])
            elif op == "SETITEMS":
                items, stack = stack, marks.pop()
                self._set_pairs(self._target(stack, _SETTABLE, "SETITEMS sets only items of dicts made by this "
                                             "load"), items)
            elif op == "BUILD":
                state = stack.pop()
                inst = self._target(stack, (OrderedDict,), "BUILD applies state only to an OrderedDict made by "
                                    "this load (as state_dict()._metadata)")
                if type(state) is not dict or not all(type(k) is str and not k.startswith("__") for k in state):
                    raise _refuse(f"refusing BUILD at byte {self.op_pos} of {self.name}: an OrderedDict's state must "
                                  "be a dict of attribute names")
                vars(inst).update(state)
            # ---- globals and calls
            elif op == "GLOBAL":
                module = self._line()
                stack.append(self._global(module, self._line()))
            elif op == "STACK_GLOBAL":
                name = stack.pop()
                module = stack.pop()
                if type(module) is not str or type(name) is not str:
                    raise _refuse(f"STACK_GLOBAL at byte {self.op_pos} of {self.name} needs two strings")
                stack.append(self._global(module, name))
            elif op in ("REDUCE", "NEWOBJ"):
                args = stack.pop()
                func = stack[-1]
                if type(func) is not _Callable:
                    raise _refuse(f"refusing {op} at byte {self.op_pos} of {self.name}: {_describe(func)} cannot "
                                  "be called (only constructors of containers, sizes, devices and tensors can)")
                if type(args) is not tuple:
                    raise _refuse(f"{op} at byte {self.op_pos} of {self.name}: the arguments of {func.qualname} "
                                  "are not a tuple")
                try:
                    stack[-1] = self._new(func.call(*args))
                except (pickle.UnpicklingError, CorruptCheckpoint):
                    raise
                except (TypeError, ValueError, OverflowError, RuntimeError, KeyError) as e:
                    raise _refuse(f"{op} at byte {self.op_pos} of {self.name}: bad arguments for {func.qualname} "
                                  f"({type(e).__name__}: {e})") from None
            elif op == "BINPERSID":
                stack.append(self._persistent(stack.pop()))
            elif op == "PERSID":
                stack.append(self._persistent(self._line()))
            # ---- memo
            else:  # INST, OBJ, NEWOBJ_EX, EXT1/2/4, out-of-band buffers, STRING, unknown bytes
                raise _refuse(f"refusing opcode {op} at byte {self.op_pos} of {self.name}: not used by weights "
                              "checkpoints (it can construct arbitrary objects or is unsupported)")

    def _set_pairs(self, d: dict, items: list) -> None:
        if len(items) % 2:
            raise _refuse(f"{self.op} at byte {self.op_pos} of {self.name}: odd number of keys and values")
        for i in range(0, len(items), 2):
            key = items[i]
            if isinstance(key, (Tensor, np.ndarray, _Callable, StorageType)):
                raise _refuse(f"{self.op} at byte {self.op_pos} of {self.name}: {_describe(key)} cannot be a key")
            d[key] = items[i + 1]

    def _persistent(self, pid) -> np.ndarray:
        if not (type(pid) is tuple and len(pid) == 5 and pid[0] == "storage" and type(pid[1]) is StorageType
                and type(pid[2]) is str and type(pid[3]) is str and is_int(pid[4])):
            raise _refuse(f"refusing {self.op} at byte {self.op_pos} of {self.name}: unsupported persistent id "
                          f"{pid!r:.80} (expected ('storage', <storage type>, key, location, size))")
        return self.persistent_load(pid)


def _check_result(obj) -> None:
    """The result holds no global records and is nested at most ``MAX_DEPTH`` levels deep."""
    todo = [(obj, 0)]
    depth_seen: dict[int, int] = {}
    while todo:
        o, d = todo.pop()
        if isinstance(o, (_Callable, StorageType)):
            raise _refuse(f"the global {o.qualname} appears as a value in the checkpoint; it may only be called")
        if isinstance(o, np.ndarray):
            raise _refuse("a storage appears as a value in the checkpoint; only tensors built on storages load")
        if type(o) in (list, tuple, dict, OrderedDict, Counter, set, frozenset):
            if depth_seen.get(id(o), -1) >= d:
                continue
            if d >= MAX_DEPTH:
                raise _refuse(f"the checkpoint is nested more than {MAX_DEPTH} levels deep (or contains itself)")
            depth_seen[id(o)] = d
            if isinstance(o, dict):
                todo.extend((x, d + 1) for kv in o.items() for x in kv)
                if type(o) is OrderedDict:
                    todo.extend((x, d + 1) for x in vars(o).values())
            else:
                todo.extend((x, d + 1) for x in o)


def storage_array(stype: StorageType, numel: int, byteorder: str) -> tuple[np.ndarray, np.dtype]:
    """An uninitialised array for a storage of ``numel`` elements and the dtype its bytes have on disk."""
    disk = np.dtype(np.uint16 if stype.np is None else stype.np).newbyteorder(">" if byteorder == "big" else "<")
    assert disk.newbyteorder("=") in NUMERIC or stype.np is None
    return np.empty(numel, dtype=disk), disk
