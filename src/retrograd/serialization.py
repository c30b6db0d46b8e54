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

What ``load`` guarantees
------------------------
Loading never runs code from the file and never changes anything but the object it returns.

* It opens only a regular file (a FIFO, a device such as ``/dev/zero``, also through a symlink,
  or a directory is refused at once) or a seekable binary file object.
* It checks the zip directory before reading data: entries must be stored (uncompressed,
  unencrypted), named once, and their declared sizes must fit inside the file.  Each array is
  then read straight into the memory of the tensor it becomes, so loading a checkpoint costs
  about the size of its tensors (``bench/bench_serialization.py --peak-memory``).
* ``.npy`` headers are parsed as literals and checked (plain numeric or bool dtypes only, shape
  matching the bytes present); views are made only when every element lies inside their storage.
* PyTorch checkpoints: ``data.pkl`` runs on retrograd's own restricted pickle machine
  (``retrograd._unpickler``).  Globals resolve only to ``collections.OrderedDict``/``Counter``,
  ``torch.Size``, ``torch.device``, the ``torch`` dtypes and storage types, ``_codecs.encode``,
  ``set``/``frozenset``/``bytearray``/``complex`` and ``torch._utils._rebuild_tensor(_v2)`` /
  ``_rebuild_parameter(_with_state)``; none of them is ever placed where an opcode could modify
  it.  State is applied only to objects this load created and only in the shapes PyTorch's
  ``weights_only`` unpickler accepts (BUILD only on an ``OrderedDict``, with a dict of attribute
  names; SETITEM(S) on dicts, APPEND(S) on lists).  INST, OBJ, NEWOBJ_EX and EXT1/2/4 are refused;
  declared lengths (BINBYTES8, BINUNICODE8, LONG4, FRAME ...) are checked against the bytes that
  remain before anything is allocated.
* Containers may nest at most 256 levels deep (``MAX_DEPTH``), in ``save`` (``ValueError``) and in
  both formats on ``load``.

Errors: a problem with the file or its container raises ``RuntimeError`` (an empty file also is an
``EOFError``, as in PyTorch); a refused or corrupted pickle raises ``pickle.UnpicklingError``,
naming the opcode, its byte position and the global.  Both messages start with ``retrograd.load:``.
A plain pickle (or PyTorch's legacy, pre-zip format) is refused with ``pickle.UnpicklingError``;
a path or file object of the wrong kind raises ``TypeError``; the OS's own errors (a missing file)
pass through as ``OSError``.
"""
from __future__ import annotations

import ast
import json
import os
import pickle
import zipfile
from collections import Counter, OrderedDict
from typing import Any, BinaryIO

import numpy as np

from . import _dtype as D
from ._checkpoint_tensors import MAX_DIMS, NUMERIC, is_int, make_tensor, strided
from ._checkpoint_zip import ZIP_MAGIC, Archive, EmptyFileError, corrupt, open_source, sniff
from ._size import Size, device
from ._tensor import Tensor
from ._unpickler import MAX_DEPTH, Unpickler, storage_array

__all__ = ["save", "load"]

FORMAT = "retrograd.save"
VERSION = 2  # the newest version written; 1 = no views, 2 = tensor nodes may carry "o" and "view"
_HEADER = "retrograd.json"
_DATE = (1980, 1, 1, 0, 0, 0)  # fixed timestamps: identical objects give identical files
_ALLOWED = NUMERIC


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
                    a = t._data  # (written out at once, so a C-contiguous array needs no copy)
                    k = self._add(a if a.flags.c_contiguous else np.array(a, order="C"))
                    for node in nodes:
                        node["i"] = k
                continue
            k = self._add(root.ravel(order="A"))  # memory order, as the offsets are (a view: root is contiguous)
            self.has_views = True
            for (o, _, nodes), (offset, shape, stride) in zip(members, views):
                for node in nodes:
                    node.update(i=k, o=o, view={"offset": offset, "shape": shape, "stride": stride})

    def encode(self, obj, depth: int = 0):
        # one Python frame per level of nesting (no helper lambdas or comprehensions in between), so
        # MAX_DEPTH levels fit well inside Python's default recursion limit
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
        if isinstance(obj, (list, tuple, dict)):
            if depth >= MAX_DEPTH:
                raise ValueError(f"retrograd.save: the object is nested more than {MAX_DEPTH} levels deep (or "
                                 "contains itself); save and load accept at most that many nested containers")
            d = depth + 1
            if isinstance(obj, (list, tuple)):
                items = []
                for x in obj:
                    items.append(self.encode(x, d))
                return {"$": "list" if isinstance(obj, list) else "tuple", "v": items}
            tag = "counter" if isinstance(obj, Counter) else "odict" if isinstance(obj, OrderedDict) else "dict"
            keys, values = [], []
            for k, v in obj.items():
                keys.append(self.encode(k, d))
                values.append(self.encode(v, d))
            node = {"$": tag, "k": keys, "v": values}
            meta = getattr(obj, "_metadata", None)
            if tag == "odict" and meta is not None:
                node["metadata"] = self.encode(meta, d)
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
    try:
        root = enc.encode(obj)
        enc.finish()
        # version 2 only when a file holds views, so files without them stay readable by version-1 readers
        header = {"format": FORMAT, "version": 2 if enc.has_views else 1, "byteorder": "little", "tensors": enc.meta,
                  "root": root}
        text = json.dumps(header, allow_nan=True).encode("utf-8")
    except RecursionError:  # only when the caller is itself deep in Python's stack
        raise ValueError(f"retrograd.save: the object is too deeply nested to save from this depth of the Python "
                         f"stack (the format allows {MAX_DEPTH} levels)") from None
    own = isinstance(f, (str, os.PathLike))
    fh: BinaryIO = open(f, "wb") if own else f
    try:
        with zipfile.ZipFile(fh, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as zf:
            zf.writestr(zipfile.ZipInfo(_HEADER, _DATE), text)
            for arr, meta in zip(enc.arrays, enc.meta):
                # streamed into the archive: no second copy of the array in memory
                arr = arr.astype(arr.dtype.newbyteorder("<"), copy=False)
                big = arr.nbytes > (1 << 31) - 4096  # (zipfile must know in advance that an entry needs zip64)
                with zf.open(zipfile.ZipInfo(meta["file"], _DATE), "w", force_zip64=big) as out:
                    np.lib.format.write_array(out, arr, allow_pickle=False)
    finally:
        if own:
            fh.close()


# ---------------------------------------------------------------------------------------- load
_corrupt = corrupt
_MAX_NPY_HEADER = 1 << 16
_MAX_JSON = 1 << 30  # the description of even a huge model is a few MB


def _read_npy(archive: Archive, name: str) -> np.ndarray:
    """A .npy entry -> array, header checked against the entry's size before the array is allocated,
    the data read straight into the array."""
    stream = archive.open_stream(name)
    head = stream.read_exact(10 if archive.size_of(name) >= 10 else archive.size_of(name) + 1)
    if head[:6] != b"\x93NUMPY" or head[6] not in (1, 2, 3):
        raise _corrupt(f"bad array header in {name!r} (not a .npy file, or an unknown .npy version)")
    if head[6] == 1:
        hlen, text = int.from_bytes(head[8:10], "little"), b""
    else:
        hlen, text = int.from_bytes(head[8:10] + stream.read_exact(2), "little"), b""
    if hlen > _MAX_NPY_HEADER:
        raise _corrupt(f"bad array header in {name!r} (declares a {hlen}-byte header)")
    text = stream.read_exact(hlen)
    try:
        header = ast.literal_eval(text.decode("utf-8" if head[6] == 3 else "latin-1"))
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError, UnicodeDecodeError) as e:
        raise _corrupt(f"bad array header in {name!r} ({type(e).__name__}: {e})") from None
    if (not isinstance(header, dict) or set(header) != {"descr", "fortran_order", "shape"}
            or not isinstance(header["descr"], str) or type(header["fortran_order"]) is not bool
            or not isinstance(header["shape"], tuple) or len(header["shape"]) > MAX_DIMS):
        raise _corrupt(f"bad array header in {name!r} ({str(header)[:120]})")
    try:
        dtype = np.dtype(header["descr"])
    except (TypeError, ValueError) as e:
        raise _corrupt(f"bad array header in {name!r} (dtype {header['descr']!r:.40}: {e})") from None
    shape = header["shape"]
    if dtype.newbyteorder("=") not in NUMERIC or dtype.hasobject:
        raise _corrupt(f"array {name!r} has unsupported dtype {dtype} (only plain numeric and bool arrays load)")
    if not all(is_int(s) and s >= 0 for s in shape):
        raise _corrupt(f"array {name!r} has an invalid shape {shape}")
    count = 1
    for s in shape:
        count *= s
    if count * dtype.itemsize != stream.left:
        raise _corrupt(f"array {name!r} declares shape {tuple(shape)} ({count * dtype.itemsize} bytes) but holds "
                       f"{stream.left} bytes (truncated or corrupted)")
    arr = np.empty(shape, dtype=dtype, order="F" if header["fortran_order"] else "C")
    stream.fill(arr)
    stream.finish()
    if not dtype.isnative:
        arr = arr.byteswap(inplace=True).view(dtype.newbyteorder("="))
    return arr


class _Decoder:
    def __init__(self, archive: Archive, header: dict) -> None:
        self.archive = archive
        tensors = header.get("tensors")
        if not isinstance(tensors, list):
            raise _corrupt("the header's 'tensors' table is missing")
        self.table = tensors
        self.arrays: dict[int, np.ndarray] = {}
        self.made: dict[Any, Tensor] = {}

    def array(self, k) -> np.ndarray:
        if not is_int(k) or not 0 <= k < len(self.table):
            raise _corrupt(f"tensor reference {k!r} is out of range")
        if k not in self.arrays:
            meta = self.table[k]
            name = meta.get("file") if isinstance(meta, dict) else None
            if not isinstance(name, str):
                raise _corrupt(f"tensor table entry {k} is malformed")
            arr = _read_npy(self.archive, name)
            if list(arr.shape) != meta.get("shape") or arr.dtype.name != meta.get("dtype"):
                raise _corrupt(f"array {name!r} does not match its description in the header")
            self.arrays[k] = arr
        return self.arrays[k]

    def tensor(self, node: dict) -> Tensor:
        requires_grad, parameter = node.get("requires_grad", False), node.get("parameter", False)
        if type(requires_grad) is not bool or type(parameter) is not bool:
            raise TypeError("requires_grad and parameter must be bools")
        if "view" in node:
            key = ("o", node["o"])
            if not is_int(node["o"]) or not isinstance(node["view"], dict):
                raise TypeError("bad view")
            if key not in self.made:
                storage = self.array(node["i"])
                if storage.ndim != 1:
                    raise _corrupt("a view's storage is not one-dimensional")
                v = node["view"]
                arr = strided(storage, v["offset"], _as_list(v["shape"]), _as_list(v["stride"]), _corrupt)
                self.made[key] = self._make(arr, requires_grad, parameter)
            return self.made[key]
        k = node["i"]
        if k not in self.made:
            self.made[k] = self._make(self.array(k), requires_grad, parameter)
        return self.made[k]

    @staticmethod
    def _make(arr: np.ndarray, requires_grad: bool, parameter: bool) -> Tensor:
        if requires_grad and arr.dtype.kind != "f":
            raise _corrupt("an integer or bool tensor cannot require grad")
        return make_tensor(arr, requires_grad, parameter)

    def decode(self, node, depth: int = 0):
        # one Python frame per level of nesting, as _Encoder.encode
        if node is None or isinstance(node, (bool, int, float, str)):
            return node
        if not isinstance(node, dict) or not isinstance(node.get("$"), str):
            raise _corrupt(f"malformed node of type {type(node).__name__}")
        tag = node["$"]
        try:
            if tag == "tensor":
                return self.tensor(node)
            if tag in ("list", "tuple", "dict", "odict", "counter"):
                if depth >= MAX_DEPTH:
                    raise _corrupt(f"the object is nested more than {MAX_DEPTH} levels deep")
                d = depth + 1
                if tag in ("list", "tuple"):
                    items = []
                    for x in _as_list(node["v"]):
                        items.append(self.decode(x, d))
                    return items if tag == "list" else tuple(items)
                keys, values = _as_list(node["k"]), _as_list(node["v"])
                if len(keys) != len(values):
                    raise _corrupt("a dict node has different numbers of keys and values")
                out = {"dict": dict, "odict": OrderedDict, "counter": Counter}[tag]()
                for k, v in zip(keys, values):
                    key = self.decode(k, d)
                    out[key] = self.decode(v, d)
                if tag == "odict" and "metadata" in node:
                    out._metadata = self.decode(node["metadata"], d)
                return out
            if tag == "size":
                dims = _as_list(node["v"])
                if not all(is_int(x) for x in dims):
                    raise TypeError("a size holds ints only")
                return Size(dims)
            if tag == "dtype":
                return D._by_name(str(node["name"]))
            if tag == "device":
                try:
                    return device(str(node["v"]))
                except RuntimeError as e:  # (device's own error for a bad string)
                    raise ValueError(str(e)) from None
            if tag == "bytes":
                return bytes.fromhex(node["hex"])
            if tag == "npscalar":
                dt = np.dtype(str(node["dtype"]))
                if dt not in _ALLOWED or not isinstance(node["v"], (bool, int, float)):
                    raise _corrupt(f"unsupported scalar dtype {dt}")
                return dt.type(node["v"])
        except (KeyError, TypeError, ValueError, AttributeError, OverflowError) as e:
            raise _corrupt(f"malformed {tag!r} node ({type(e).__name__}: {e})") from None
        raise _corrupt(f"unknown node tag {tag!r}")


def _as_list(v) -> list:
    if not isinstance(v, list):
        raise TypeError(f"expected a list, got {type(v).__name__}")
    return v


def _load_retrograd(archive: Archive) -> Any:
    raw = archive.read_bytes(_HEADER, limit=_MAX_JSON)
    try:
        header = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        raise _corrupt(f"the JSON header is corrupted ({type(e).__name__}: {e})") from None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise _corrupt("the JSON header is not a retrograd.save header")
    if header.get("version") not in (1, VERSION):
        raise _corrupt(f"unsupported format version {header.get('version')!r} (this retrograd reads versions "
                       f"1 to {VERSION})")
    try:
        return _Decoder(archive, header).decode(header.get("root"))
    except RecursionError:  # only when the caller is itself deep in Python's stack
        raise _corrupt(f"the object is too deeply nested to load from this depth of the Python stack (the "
                       f"format allows {MAX_DEPTH} levels)") from None


def load(f, map_location=None, pickle_module=None, *, weights_only: bool = True, mmap=None, **pickle_load_args):
    """Load what ``save`` wrote (or a checkpoint written by ``torch.save``) without executing any code.

    ``f`` is a path to a regular file or a seekable binary file object. ``map_location`` may be
    None, 'cpu', a device, a dict or a callable; everything loads on the CPU. ``weights_only`` is
    accepted for compatibility: retrograd only ever loads weights.  What is refused, and how
    (``RuntimeError`` for the container, ``pickle.UnpicklingError`` for a pickle), is described in
    the module docstring.

    >>> import io, retrograd as torch
    >>> buf = io.BytesIO(); torch.save([torch.arange(3), (1.5, None)], buf); _ = buf.seek(0)
    >>> torch.load(buf)
    [tensor([0, 1, 2]), (1.5, None)]
    """
    fh, own = open_source(f)
    try:
        head = sniff(fh)
        if not head:
            raise EmptyFileError("retrograd.load: the file is empty (truncated?)")
        if head != ZIP_MAGIC:
            if head[:1] == b"\x80" or head[:1] in (b"(", b"}", b"]", b"c"):
                raise pickle.UnpicklingError(
                    "retrograd.load: this is a pickle stream (a plain pickle or PyTorch's legacy format), not a "
                    "retrograd or PyTorch zip checkpoint; retrograd never unpickles arbitrary data because "
                    "unpickling can run code. Re-save it with torch.save(...) (zip format) from trusted code.")
            raise _corrupt(f"not a retrograd or PyTorch checkpoint (bad magic bytes {head!r}, expected a zip "
                           "archive)")
        archive = Archive(fh)
        names = archive.names()
        if _HEADER in names:
            return _load_retrograd(archive)
        pkl = [n for n in names if n == "data.pkl" or n.endswith("/data.pkl")]
        if len(pkl) == 1:
            return _load_torch_zip(archive, pkl[0])
        raise _corrupt("the zip archive is neither a retrograd checkpoint (no retrograd.json) nor a PyTorch "
                       "checkpoint (no data.pkl)")
    finally:
        if own:
            fh.close()


# ------------------------------------------------------------------ PyTorch zip checkpoints
def _load_torch_zip(archive: Archive, pkl_name: str) -> Any:
    prefix = pkl_name[:-len("data.pkl")]
    byteorder = "little"
    if f"{prefix}byteorder" in archive.names():
        byteorder = archive.read_bytes(f"{prefix}byteorder", limit=16).decode("ascii", "replace").strip()
        if byteorder not in ("little", "big"):
            raise _corrupt(f"unknown byte order {byteorder!r}")
    storages: dict[str, np.ndarray] = {}

    def persistent_load(pid: tuple) -> np.ndarray:
        stype, key, numel = pid[1], pid[2], pid[4]
        if key in storages:
            arr = storages[key]
            if arr.dtype != np.dtype(np.float32 if stype.np is None else stype.np):
                raise _corrupt(f"storage {key!r} is named with two different types")
            return arr
        name = f"{prefix}data/{key}"
        size = archive.size_of(name)
        itemsize = 2 if stype.np is None else np.dtype(stype.np).itemsize
        if numel < 0 or numel * itemsize != size:
            raise _corrupt(f"storage {key!r} declares {numel} elements ({numel * itemsize} bytes) but holds "
                           f"{size} bytes (truncated or corrupted)")
        arr, disk = storage_array(stype, numel, byteorder)
        stream = archive.open_stream(name)
        stream.fill(arr)
        stream.finish()
        if not disk.isnative:
            arr = arr.byteswap(inplace=True).view(disk.newbyteorder("="))
        if stype.np is None:  # bfloat16 is the top half of a float32: retrograd keeps it as float32
            wide = np.empty(numel, dtype=np.uint32)  # (widened in place: no third temporary array)
            np.left_shift(arr, 16, out=wide, dtype=np.uint32)
            arr = wide.view(np.float32)
        storages[key] = arr
        return arr

    raw = archive.read_bytes(pkl_name)
    return Unpickler(raw, persistent_load, pkl_name).load()
