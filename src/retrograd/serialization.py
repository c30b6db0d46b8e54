"""``save`` / ``load``: tensors and nested containers in a file format that never runs code.

The format (versions 1 and 2)
-----------------------------
A ZIP archive whose entries are all *stored* (uncompressed):

* ``retrograd.json`` -- a JSON document ``{"format": "retrograd.save", "version": 1,
  "tensors": [...], "root": <node>}`` describing the saved object.
* ``tensors/<k>.npy`` -- one NumPy ``.npy`` file per distinct tensor, written with
  ``allow_pickle=False``.

A node is ``null``, ``true``/``false``, a number (``NaN``/``Infinity`` allowed), a string,
or a tagged object ``{"$": tag, ...}`` for everything else: ``list``, ``tuple``, ``dict``,
``odict`` (OrderedDict, with its ``_metadata`` attribute if any), ``counter``, ``tensor``
(an index into ``tensors`` plus ``requires_grad``), ``bytes``, ``dtype``, ``size``,
``device`` and ``npscalar``.  Dict keys are nodes too, so ``int`` and ``tuple`` keys survive.
Version 2 (written only when needed) adds views: distinct tensors that share one NumPy buffer
(``t`` and ``t[1:]``) are saved once as that flat buffer, and each tensor node carries ``"o"``
(which tensor object) and ``"view": {"offset", "shape", "stride"}`` (in elements), so after
loading they share memory again, as PyTorch's storages do.
Saving anything else raises ``TypeError``: the format is "weights only" by construction.

Loading reads the JSON and the ``.npy`` headers with size checks (declared sizes must match
the bytes that are really there, entries must be uncompressed, dtypes must be plain numeric),
so a truncated, corrupted or hostile file raises a ``RuntimeError`` naming the problem, and
nothing in it is ever executed.  A plain pickle (or PyTorch's legacy pickle format) is
refused with ``pickle.UnpicklingError``.

PyTorch checkpoints written by ``torch.save`` (the zip format, PyTorch >= 1.6) can also be
read: their ``data.pkl`` is unpickled by a restricted unpickler that resolves only
``collections.OrderedDict``, ``torch._utils._rebuild_tensor_v2`` / ``_rebuild_parameter``,
the ``torch.*Storage`` names, ``torch.Size`` and ``torch`` dtypes (mapped to NumPy-backed
retrograd tensors); any other global raises ``pickle.UnpicklingError`` before it is called.
Tensors of a PyTorch checkpoint that share a storage share memory after loading, too.
"""
from __future__ import annotations

import io
import json
import os
import pickle
import zipfile
from collections import Counter, OrderedDict
from typing import Any, BinaryIO

import numpy as np

from . import _dtype as D
from ._size import Size, device
from ._tensor import Tensor

__all__ = ["save", "load"]

FORMAT = "retrograd.save"
VERSION = 2  # the newest version written; 1 = no views, 2 = tensor nodes may carry "o" and "view"
_HEADER = "retrograd.json"
_ZIP_MAGIC = b"PK\x03\x04"
_MAX_DEPTH = 512
_MAX_ENTRIES = 1 << 20
_DATE = (1980, 1, 1, 0, 0, 0)  # fixed timestamps: identical objects give identical files
_ALLOWED = {np.dtype(n) for n in ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32",
                                  "float64")}


# ---------------------------------------------------------------------------------------- save
def _root_array(a: np.ndarray) -> np.ndarray:
    """The ndarray at the bottom of ``a``'s chain of NumPy views (the tensor's "storage")."""
    while isinstance(a.base, np.ndarray):
        a = a.base
    return a


def _geometry(a: np.ndarray, root: np.ndarray) -> tuple[int, list[int], list[int]] | None:
    """(offset, shape, stride) in elements of view ``a`` into contiguous ``root``, or None if not expressible."""
    size = root.dtype.itemsize
    if a.dtype != root.dtype or not (root.flags.c_contiguous or root.flags.f_contiguous) or a.size == 0:
        return None
    offset = a.ctypes.data - root.ctypes.data
    if offset < 0 or offset % size or any(st < 0 or st % size for st in a.strides):
        return None
    return offset // size, list(a.shape), [st // size for st in a.strides]


class _Encoder:
    def __init__(self) -> None:
        self.arrays: list[np.ndarray] = []
        self.meta: list[dict] = []
        self.objs: dict[int, tuple[Tensor, list[dict]]] = {}  # id(tensor) -> (tensor, its nodes)
        self.has_views = False

    def tensor(self, t: Tensor) -> dict:
        node = {"$": "tensor", "i": None, "requires_grad": bool(t._requires_grad)}  # "i" is set by finish()
        if type(t).__name__ == "Parameter":
            node["parameter"] = True
        self.objs.setdefault(id(t), (t, []))[1].append(node)
        return node

    def _add(self, arr: np.ndarray) -> int:
        k = len(self.arrays)
        self.arrays.append(arr)
        self.meta.append({"file": f"tensors/{k}.npy", "dtype": arr.dtype.name, "shape": list(arr.shape)})
        return k

    def finish(self) -> None:
        """Give every tensor node its array.  Distinct tensors that view one NumPy buffer (``t`` and
        ``t[1:]``) are saved as views of that buffer, so they still share memory after loading,
        as in PyTorch; everything else is saved as its own C-contiguous copy."""
        groups: dict[int, list[tuple[int, Tensor, list[dict]]]] = {}
        for o, (t, nodes) in enumerate(self.objs.values()):
            groups.setdefault(id(_root_array(t._data)), []).append((o, t, nodes))
        for members in groups.values():
            root = _root_array(members[0][1]._data)
            views = [_geometry(t._data, root) for _, t, _ in members] if len(members) > 1 else [None]
            if any(v is None for v in views):
                for _, t, nodes in members:
                    k = self._add(np.array(t._data, order="C", copy=True))  # (ascontiguousarray makes 0-d 1-d)
                    for node in nodes:
                        node["i"] = k
                continue
            k = self._add(np.array(root.ravel(order="A"), copy=True))  # memory order, as the offsets are
            self.has_views = True
            for (o, _, nodes), (offset, shape, stride) in zip(members, views):
                for node in nodes:
                    node.update(i=k, o=o, view={"offset": offset, "shape": shape, "stride": stride})

    def encode(self, obj, depth: int = 0):
        if depth > _MAX_DEPTH:
            raise ValueError("retrograd.save: object is nested too deeply")
        enc = lambda x: self.encode(x, depth + 1)  # noqa: E731
        if obj is None or isinstance(obj, (bool, str)):
            return obj
        if isinstance(obj, int) and type(obj) is int:
            return obj
        if type(obj) is float:
            return obj
        if isinstance(obj, Tensor):
            return self.tensor(obj)
        if isinstance(obj, Size):
            return {"$": "size", "v": [int(d) for d in obj]}
        if isinstance(obj, D.dtype):
            return {"$": "dtype", "name": obj.name}
        if isinstance(obj, device):
            return {"$": "device", "v": str(obj)}
        if isinstance(obj, np.generic) and obj.dtype in _ALLOWED:
            return {"$": "npscalar", "dtype": obj.dtype.name, "v": obj.item()}
        if isinstance(obj, np.ndarray):
            raise TypeError("retrograd.save: NumPy arrays are not saved directly; wrap them with "
                            "retrograd.from_numpy(...)")
        if isinstance(obj, (bytes, bytearray)):
            return {"$": "bytes", "hex": bytes(obj).hex()}
        if isinstance(obj, (int, float)):  # int/float subclasses (IntEnum, ...): store the plain value
            return int(obj) if isinstance(obj, int) else float(obj)
        if isinstance(obj, list):
            return {"$": "list", "v": [enc(x) for x in obj]}
        if isinstance(obj, tuple):
            return {"$": "tuple", "v": [enc(x) for x in obj]}
        if isinstance(obj, dict):
            tag = "counter" if isinstance(obj, Counter) else "odict" if isinstance(obj, OrderedDict) else "dict"
            node = {"$": tag, "k": [enc(k) for k in obj.keys()], "v": [enc(v) for v in obj.values()]}
            meta = getattr(obj, "_metadata", None)
            if tag == "odict" and meta is not None:
                node["metadata"] = enc(meta)
            return node
        raise TypeError(f"retrograd.save: cannot save an object of type {type(obj).__module__}."
                        f"{type(obj).__qualname__}; only tensors, numbers, strings, bytes, None, dtypes, "
                        "and lists/tuples/dicts of them can be saved (the format never pickles objects)")


def save(obj: Any, f, pickle_module=None, pickle_protocol: int = 2, _use_new_zipfile_serialization: bool = True,
         _disable_byteorder_record: bool = False) -> None:
    """Save tensors, state dicts and nested lists/tuples/dicts of them to ``f`` (a path or binary file).

    The file is a zip of ``.npy`` arrays plus a JSON description (see the module docstring);
    loading it never executes code.  ``pickle_module``/``pickle_protocol`` are accepted for
    PyTorch compatibility and ignored (nothing is pickled).

    >>> import io, retrograd as torch
    >>> buf = io.BytesIO()
    >>> torch.save({"w": torch.ones(2), "step": 3}, buf)
    >>> _ = buf.seek(0); torch.load(buf)
    {'w': tensor([1., 1.]), 'step': 3}
    """
    enc = _Encoder()
    root = enc.encode(obj)
    enc.finish()
    # version 2 only when a file holds views, so files without them stay readable by version-1 readers
    header = {"format": FORMAT, "version": 2 if enc.has_views else 1, "byteorder": "little", "tensors": enc.meta, "root": root}
    text = json.dumps(header, allow_nan=True).encode("utf-8")
    own = isinstance(f, (str, os.PathLike))
    fh: BinaryIO = open(f, "wb") if own else f
    try:
        with zipfile.ZipFile(fh, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as zf:
            zf.writestr(zipfile.ZipInfo(_HEADER, _DATE), text)
            for arr, meta in zip(enc.arrays, enc.meta):
                buf = io.BytesIO()
                np.lib.format.write_array(buf, arr.astype(arr.dtype.newbyteorder("<"), copy=False),
                                          allow_pickle=False)
                zf.writestr(zipfile.ZipInfo(meta["file"], _DATE), buf.getvalue())
    finally:
        if own:
            fh.close()


# ---------------------------------------------------------------------------------------- load
def _corrupt(msg: str) -> RuntimeError:
    return RuntimeError(f"retrograd.load: {msg}")


class _EmptyFileError(RuntimeError, EOFError):
    """An empty file: PyTorch raises EOFError (its unpickler runs out of input); it is also a
    RuntimeError like every other unreadable-file error here, so either ``except`` catches it."""


def _read_source(f) -> bytes:
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as fh:
            return fh.read()
    if hasattr(f, "read"):
        data = f.read()
        if not isinstance(data, (bytes, bytearray)):
            raise TypeError("retrograd.load: the file object must be opened in binary mode")
        return bytes(data)
    raise TypeError(f"retrograd.load: expected a path or a binary file object, got {type(f).__name__}")


def _open_zip(data: bytes) -> zipfile.ZipFile:
    if len(data) == 0:
        raise _EmptyFileError("retrograd.load: the file is empty (truncated?)")
    if not data.startswith(_ZIP_MAGIC):
        if data[:1] == b"\x80" or data[:1] in (b"(", b"}", b"]", b"c"):
            raise pickle.UnpicklingError(
                "retrograd.load: this is a pickle stream (a plain pickle or PyTorch's legacy format), not a "
                "retrograd or PyTorch zip checkpoint; retrograd never unpickles arbitrary data because "
                "unpickling can run code. Re-save it with torch.save(...) (zip format) from trusted code.")
        raise _corrupt(f"not a retrograd or PyTorch checkpoint (bad magic bytes {data[:4]!r}, expected a zip "
                       "archive)")
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, ValueError, OSError) as e:
        raise _corrupt(f"truncated or corrupted zip archive ({e}); failed finding central directory") from None
    infos = zf.infolist()
    if len(infos) > _MAX_ENTRIES:
        raise _corrupt(f"the archive has too many entries ({len(infos)})")
    total = 0
    for info in infos:
        if info.compress_type != zipfile.ZIP_STORED:
            raise _corrupt(f"entry {info.filename!r} is compressed; checkpoints hold stored entries only "
                           "(refusing possible zip bomb)")
        if info.file_size != info.compress_size or info.header_offset + info.compress_size > len(data):
            raise _corrupt(f"entry {info.filename!r} declares {info.file_size} bytes but the archive holds "
                           f"{len(data)} bytes (truncated, corrupted, or a zip bomb)")
        total += info.file_size
    if total > len(data):
        raise _corrupt("the entries declare more data than the archive holds (zip bomb?)")
    return zf


def _read_entry(zf: zipfile.ZipFile, name: str) -> bytes:
    try:
        return zf.read(name)
    except KeyError:
        raise _corrupt(f"missing archive entry {name!r}") from None
    except (zipfile.BadZipFile, EOFError, ValueError, OSError) as e:
        raise _corrupt(f"corrupted archive entry {name!r} ({e})") from None


def _parse_npy(raw: bytes, name: str) -> np.ndarray:
    """A .npy payload -> array, checking the header against the bytes really present."""
    bio = io.BytesIO(raw)
    try:
        version = np.lib.format.read_magic(bio)
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(bio)
        elif version in ((2, 0), (3, 0)):
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(bio)
        else:
            raise ValueError(f"unsupported .npy version {version}")
    except (ValueError, EOFError, SyntaxError, TypeError) as e:
        raise _corrupt(f"bad array header in {name!r} ({e})") from None
    if dtype.newbyteorder("=") not in _ALLOWED or dtype.hasobject:
        raise _corrupt(f"array {name!r} has unsupported dtype {dtype} (only plain numeric and bool arrays load)")
    if any(not isinstance(s, int) or s < 0 for s in shape):
        raise _corrupt(f"array {name!r} has an invalid shape {shape}")
    count = 1
    for s in shape:
        count *= s
    body = raw[bio.tell():]
    if count * dtype.itemsize != len(body):
        raise _corrupt(f"array {name!r} declares shape {tuple(shape)} ({count * dtype.itemsize} bytes) but holds "
                       f"{len(body)} bytes (truncated or corrupted)")
    arr = np.frombuffer(body, dtype=dtype, count=count).reshape(shape, order="F" if fortran else "C")
    return np.array(arr, dtype=dtype.newbyteorder("="), order="C", copy=True)


def _make_tensor(arr: np.ndarray, requires_grad: bool, parameter: bool = False) -> Tensor:
    t = Tensor._wrap(arr, False, None, 0)
    if requires_grad:
        if arr.dtype.kind != "f":
            raise _corrupt("an integer or bool tensor cannot require grad")
        t.requires_grad_(True)
    if parameter:
        try:
            from .nn.parameter import Parameter
        except ImportError:  # nn not available: a plain tensor that requires grad
            return t
        return Parameter(t, requires_grad=requires_grad)
    return t


class _Decoder:
    def __init__(self, zf: zipfile.ZipFile, header: dict) -> None:
        self.zf = zf
        tensors = header.get("tensors")
        if not isinstance(tensors, list):
            raise _corrupt("the header's 'tensors' table is missing")
        self.table = tensors
        self.arrays: dict[int, np.ndarray] = {}
        self.made: dict[int, Tensor] = {}

    def array(self, k) -> np.ndarray:
        if not isinstance(k, int) or isinstance(k, bool) or not 0 <= k < len(self.table):
            raise _corrupt(f"tensor reference {k!r} is out of range")
        if k not in self.arrays:
            meta = self.table[k]
            name = meta.get("file") if isinstance(meta, dict) else None
            if not isinstance(name, str):
                raise _corrupt(f"tensor table entry {k} is malformed")
            arr = _parse_npy(_read_entry(self.zf, name), name)
            if list(arr.shape) != meta.get("shape") or arr.dtype.name != meta.get("dtype"):
                raise _corrupt(f"array {name!r} does not match its description in the header")
            self.arrays[k] = arr
        return self.arrays[k]

    def decode(self, node, depth: int = 0):
        if depth > _MAX_DEPTH:
            raise _corrupt("the object is nested too deeply")
        if node is None or isinstance(node, (bool, int, float, str)):
            return node
        if not isinstance(node, dict) or not isinstance(node.get("$"), str):
            raise _corrupt(f"malformed node of type {type(node).__name__}")
        tag = node["$"]
        dec = lambda x: self.decode(x, depth + 1)  # noqa: E731
        try:
            if tag == "tensor" and "view" in node:
                key = ("o", node["o"])
                if not isinstance(node["o"], int) or not isinstance(node["view"], dict):
                    raise TypeError("bad view")
                if key not in self.made:
                    storage = self.array(node["i"])
                    if storage.ndim != 1:
                        raise _corrupt("a view's storage is not one-dimensional")
                    v = node["view"]
                    arr = _strided(storage, v["offset"], _as_list(v["shape"]), _as_list(v["stride"]), _corrupt)
                    self.made[key] = _make_tensor(arr, bool(node.get("requires_grad", False)),
                                                  bool(node.get("parameter", False)))
                return self.made[key]
            if tag == "tensor":
                k = node["i"]
                if k not in self.made:
                    self.made[k] = _make_tensor(self.array(k), bool(node.get("requires_grad", False)),
                                                bool(node.get("parameter", False)))
                return self.made[k]
            if tag in ("list", "tuple"):
                items = [dec(x) for x in _as_list(node["v"])]
                return items if tag == "list" else tuple(items)
            if tag in ("dict", "odict", "counter"):
                keys, values = _as_list(node["k"]), _as_list(node["v"])
                if len(keys) != len(values):
                    raise _corrupt("a dict node has different numbers of keys and values")
                cls = {"dict": dict, "odict": OrderedDict, "counter": Counter}[tag]
                out = cls()
                for k, v in zip(keys, values):
                    out[dec(k)] = dec(v)
                if tag == "odict" and "metadata" in node:
                    out._metadata = dec(node["metadata"])
                return out
            if tag == "size":
                return Size(int(d) for d in _as_list(node["v"]))
            if tag == "dtype":
                return D._by_name(str(node["name"]))
            if tag == "device":
                return device(str(node["v"]))
            if tag == "bytes":
                return bytes.fromhex(node["hex"])
            if tag == "npscalar":
                dt = np.dtype(node["dtype"])
                if dt not in _ALLOWED:
                    raise _corrupt(f"unsupported scalar dtype {dt}")
                return dt.type(node["v"])
        except (KeyError, TypeError, ValueError, AttributeError) as e:
            raise _corrupt(f"malformed {tag!r} node ({type(e).__name__}: {e})") from None
        raise _corrupt(f"unknown node tag {tag!r}")


def _as_list(v) -> list:
    if not isinstance(v, list):
        raise TypeError(f"expected a list, got {type(v).__name__}")
    return v


def _load_retrograd(zf: zipfile.ZipFile) -> Any:
    raw = _read_entry(zf, _HEADER)
    try:
        header = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        raise _corrupt(f"the JSON header is corrupted ({type(e).__name__}: {e})") from None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise _corrupt("the JSON header is not a retrograd.save header")
    if header.get("version") not in (1, VERSION):
        raise _corrupt(f"unsupported format version {header.get('version')!r} (this retrograd reads versions "
                       f"1 to {VERSION})")
    return _Decoder(zf, header).decode(header.get("root"))


def load(f, map_location=None, pickle_module=None, *, weights_only: bool = True, mmap=None, **pickle_load_args):
    """Load what ``save`` wrote (or a state dict from ``torch.save``) without executing any code.

    ``map_location`` may be None, 'cpu', a device, a dict or a callable; everything loads on the
    CPU. ``weights_only`` is accepted for compatibility: retrograd only ever loads weights.

    >>> import io, retrograd as torch
    >>> buf = io.BytesIO(); torch.save([torch.arange(3), (1.5, None)], buf); _ = buf.seek(0)
    >>> torch.load(buf)
    [tensor([0, 1, 2]), (1.5, None)]
    """
    data = _read_source(f)
    zf = _open_zip(data)
    names = zf.namelist()
    if _HEADER in names:
        return _load_retrograd(zf)
    pkl = [n for n in names if n == "data.pkl" or n.endswith("/data.pkl")]
    if len(pkl) == 1:
        return _load_torch_zip(zf, pkl[0])
    raise _corrupt("the zip archive is neither a retrograd checkpoint (no retrograd.json) nor a PyTorch "
                   "checkpoint (no data.pkl)")


# ------------------------------------------------------------------ PyTorch zip checkpoints
_TORCH_STORAGES = {
    "FloatStorage": np.float32, "DoubleStorage": np.float64, "HalfStorage": np.float16,
    "BFloat16Storage": None, "LongStorage": np.int64, "IntStorage": np.int32, "ShortStorage": np.int16,
    "CharStorage": np.int8, "ByteStorage": np.uint8, "BoolStorage": np.bool_, "UntypedStorage": np.uint8,
}
_TORCH_DTYPES = {"float32": "float32", "float": "float32", "float64": "float64", "double": "float64",
                 "float16": "float16", "half": "float16", "bfloat16": "bfloat16", "int64": "int64", "long": "int64",
                 "int32": "int32", "int": "int32", "int16": "int16", "short": "int16", "int8": "int8",
                 "uint8": "uint8", "bool": "bool"}


class _StorageType:
    """Stands for ``torch.<X>Storage`` inside a restricted unpickle."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.np = _TORCH_STORAGES[name]


def _check_int(v, what: str) -> int:
    if not isinstance(v, int) or isinstance(v, bool):
        raise pickle.UnpicklingError(f"retrograd.load: {what} must be an int, got {type(v).__name__}")
    return v


def _strided(storage: np.ndarray, offset, size, stride, error) -> np.ndarray:
    """A writable view ``storage[offset]`` with ``size``/``stride`` (in elements), bounds-checked;
    tensors built on one storage share its memory, as in PyTorch.  ``error(msg)`` makes the exception."""
    def check(v, what):
        if not isinstance(v, int) or isinstance(v, bool):
            raise error(f"{what} must be an int, got {type(v).__name__}")
        return v
    offset = check(offset, "storage_offset")
    size = tuple(check(s, "size") for s in size)
    stride = tuple(check(s, "stride") for s in stride)
    if len(size) != len(stride) or offset < 0 or any(s < 0 for s in size + stride):
        raise error("invalid tensor geometry (size/stride/offset)")
    if not all(s > 0 for s in size):
        return np.zeros(size, dtype=storage.dtype)
    last = offset + sum((n - 1) * st for n, st in zip(size, stride))
    if last >= storage.size:
        raise error(f"tensor reaches element {last} of a storage of {storage.size} elements (corrupted checkpoint)")
    return np.lib.stride_tricks.as_strided(storage[offset:], shape=size,
                                           strides=[st * storage.itemsize for st in stride])


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad=False, backward_hooks=None,
                       metadata=None) -> Tensor:
    """``torch._utils._rebuild_tensor_v2``: a strided view of a storage (shared, as in PyTorch), bounds-checked."""
    if not isinstance(storage, np.ndarray):
        raise pickle.UnpicklingError("retrograd.load: a tensor's storage is not a storage")
    arr = _strided(storage, storage_offset, size, stride, lambda m: pickle.UnpicklingError(f"retrograd.load: {m}"))
    if backward_hooks:
        raise pickle.UnpicklingError("retrograd.load: tensors with backward hooks are not loaded")
    return _make_tensor(arr, bool(requires_grad) and arr.dtype.kind == "f")


def _rebuild_parameter(data, requires_grad, backward_hooks) -> Tensor:
    if not isinstance(data, Tensor):
        raise pickle.UnpicklingError("retrograd.load: a parameter's data is not a tensor")
    return _make_tensor(data._data, bool(requires_grad) and data._data.dtype.kind == "f", parameter=True)


class _TorchUnpickler(pickle.Unpickler):
    """Resolves only the globals a weights checkpoint needs; anything else is refused before it is called."""

    def __init__(self, file, zf: zipfile.ZipFile, prefix: str, byteorder: str) -> None:
        super().__init__(file)
        self._zf, self._prefix, self._byteorder = zf, prefix, byteorder
        self._storages: dict[str, np.ndarray] = {}

    def find_class(self, module: str, name: str):
        if module == "collections" and name == "OrderedDict":
            return OrderedDict
        if module == "torch._utils" and name == "_rebuild_tensor_v2":
            return _rebuild_tensor_v2
        if module == "torch._utils" and name == "_rebuild_parameter":
            return _rebuild_parameter
        if module == "torch" and name in _TORCH_STORAGES:
            return _StorageType(name)
        if module == "torch" and name == "Size":
            return Size
        if module == "torch" and name in _TORCH_DTYPES:
            return D._by_name(_TORCH_DTYPES[name])
        raise pickle.UnpicklingError(f"retrograd.load: refusing to load the global '{module}.{name}' from a PyTorch "
                                     "checkpoint; only tensors, containers and numbers are loaded (unpickling "
                                     "arbitrary globals can run code)")

    def persistent_load(self, pid):
        if not (isinstance(pid, tuple) and len(pid) == 5 and pid[0] == "storage"
                and isinstance(pid[1], _StorageType) and isinstance(pid[2], str)):
            raise pickle.UnpicklingError(f"retrograd.load: unsupported persistent id {pid!r:.80}")
        stype, key, numel = pid[1], pid[2], _check_int(pid[4], "storage size")
        if key not in self._storages:
            raw = _read_entry(self._zf, f"{self._prefix}data/{key}")
            # bfloat16 (which NumPy lacks) is read as its raw 16 bits, then widened to float32 below
            dt = np.dtype(np.uint16 if stype.np is None else stype.np)
            dt = dt.newbyteorder(">" if self._byteorder == "big" else "<")
            if numel < 0 or numel * dt.itemsize != len(raw):
                raise _corrupt(f"storage {key!r} declares {numel} elements but holds {len(raw)} bytes "
                               "(truncated or corrupted)")
            arr = np.frombuffer(raw, dtype=dt).astype(dt.newbyteorder("="))
            if stype.np is None:  # bfloat16 is the top half of a float32: retrograd keeps it as float32
                arr = (arr.astype(np.uint32) << 16).view(np.float32)
            self._storages[key] = arr
        return self._storages[key]


def _load_torch_zip(zf: zipfile.ZipFile, pkl_name: str) -> Any:
    prefix = pkl_name[:-len("data.pkl")]
    byteorder = "little"
    if f"{prefix}byteorder" in zf.namelist():
        byteorder = _read_entry(zf, f"{prefix}byteorder").decode("ascii", "replace").strip()
        if byteorder not in ("little", "big"):
            raise _corrupt(f"unknown byte order {byteorder!r}")
    raw = _read_entry(zf, pkl_name)
    try:
        return _TorchUnpickler(io.BytesIO(raw), zf, prefix, byteorder).load()
    except pickle.UnpicklingError:
        raise
    except RuntimeError:
        raise
    except (EOFError, ValueError, TypeError, AttributeError, IndexError, KeyError, RecursionError,
            MemoryError) as e:
        raise pickle.UnpicklingError(f"retrograd.load: corrupted data.pkl in the PyTorch checkpoint "
                                     f"({type(e).__name__}: {e})") from None
