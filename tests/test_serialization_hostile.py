"""retrograd.load on hostile files: each is refused with the documented error type, and the process
state (see serialization_fingerprint.py) is exactly what it was before.

The catalogue covers every container load reads (PyTorch's zip format, retrograd's zip of
.npy files, the legacy pickle and tar formats it refuses, non-regular files) and every pickle
opcode that can name a global or apply state.
"""
from __future__ import annotations

import io
import json
import os
import pickle
import struct
import sys
import tarfile
import warnings
import zipfile
from collections import OrderedDict

import numpy as np
import pytest
from serialization_fingerprint import diff, fingerprint

import retrograd as rg

LOAD_ERRORS = (RuntimeError, pickle.UnpicklingError)  # the documented types (plus TypeError for bad arguments)


# ------------------------------------------------------------------------------ pickle building blocks
def glob(module: str, name: str) -> bytes:
    return b"c" + module.encode() + b"\n" + name.encode() + b"\n"


def text(s: str) -> bytes:
    b = s.encode()
    return b"X" + struct.pack("<I", len(b)) + b


def small(v: int) -> bytes:
    return b"K" + bytes([v])


def tup(*items: bytes) -> bytes:
    return b"(" + b"".join(items) + b"t"


def storage(key: str = "0", n: int = 4, kind: str = "FloatStorage") -> bytes:
    return tup(text("storage"), glob("torch", kind), text(key), text("cpu"), small(n)) + b"Q"


def rebuild(size=(2, 2), stride=(2, 1), offset=0, key="0", n=4, hooks: bytes | None = None,
            extra: bytes = b"") -> bytes:
    hooks = glob("collections", "OrderedDict") + b")R" if hooks is None else hooks
    return (glob("torch._utils", "_rebuild_tensor_v2") + b"(" + storage(key, n) + small(offset)
            + tup(*(small(s) for s in size)) + tup(*(small(s) for s in stride)) + b"\x89" + hooks + extra + b"tR")


P2 = b"\x80\x02"
P4 = b"\x80\x04"
FLOATS = np.arange(4, dtype="<f4").tobytes()


def torch_zip(pkl: bytes, entries: dict[str, bytes] | None = None, byteorder: bytes = b"little") -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("archive/data.pkl", pkl)
        zf.writestr("archive/byteorder", byteorder)
        for name, data in (entries if entries is not None else {"archive/data/0": FLOATS}).items():
            zf.writestr(name, data)
    return buf.getvalue()


# (case id, data.pkl, words the message must contain)
PICKLES = [
    # globals that run code or reach outside the allowed table
    ("GLOBAL-os.system", P2 + glob("os", "system") + text("echo pwned") + b"\x85R.", "'os.system'"),
    ("GLOBAL-builtins.eval", P2 + glob("builtins", "eval") + text("1") + b"\x85R.", "'builtins.eval'"),
    ("GLOBAL-__builtin__.getattr", P2 + glob("__builtin__", "getattr") + b".", "'builtins.getattr'"),
    ("GLOBAL-torch._utils-other", P2 + glob("torch._utils", "_rebuild_meta_tensor_no_storage") + b".",
     "'torch._utils._rebuild_meta_tensor_no_storage'"),
    ("GLOBAL-retrograd-dtype-module", P2 + glob("retrograd._dtype", "float32") + b".", "'retrograd._dtype.float32'"),
    ("GLOBAL-numpy", P2 + glob("numpy", "dtype") + text("O") + b"\x85R.", "'numpy.dtype'"),
    ("STACK_GLOBAL-os.system", P4 + b"\x8c\x02os\x8c\x06system\x93" + text("x") + b"\x85R.", "'os.system'"),
    ("STACK_GLOBAL-non-strings", P4 + small(1) + small(2) + b"\x93.", "STACK_GLOBAL"),
    ("INST", P2 + b"(" + text("x") + b"ios\nsystem\n.", "INST"),
    ("OBJ", P2 + b"(" + glob("os", "system") + text("x") + b"o.", "'os.system'"),
    ("OBJ-allowed-global", P2 + b"(" + glob("collections", "OrderedDict") + b"o.", "OBJ"),
    ("NEWOBJ_EX", P4 + glob("collections", "OrderedDict") + b")}\x92.", "NEWOBJ_EX"),
    ("EXT1", P2 + b"\x82\x01.", "EXT1"),
    ("EXT2", P2 + b"\x83\x01\x00.", "EXT2"),
    ("EXT4", P2 + b"\x84\x01\x00\x00\x00.", "EXT4"),
    # calling what is not a constructor
    ("REDUCE-dtype", P2 + glob("torch", "float32") + b")R.", "REDUCE"),
    ("REDUCE-storage-type", P2 + glob("torch", "FloatStorage") + b")R.", "REDUCE"),
    ("REDUCE-args-not-tuple", P2 + glob("torch", "Size") + b"]R.", "not a tuple"),
    ("REDUCE-bad-args", P2 + glob("torch", "Size") + tup(text("a")) + b"R.", "bad arguments for torch.Size"),
    ("REDUCE-codecs-other-codec", P2 + glob("_codecs", "encode") + tup(text("x"), text("rot13")) + b"R.",
     "_codecs.encode"),
    ("NEWOBJ-dtype", P2 + glob("torch", "float16") + b")\x81.", "NEWOBJ"),
    # BUILD: state only on OrderedDicts made by this load
    ("BUILD-dtype-dict", P2 + glob("torch", "float32") + b"}" + text("np") + text("float16") + b"sb.", "torch.float32"),
    ("BUILD-dtype-inside-state-dict", P2 + b"}" + text("w") + rebuild() + b"s" + glob("torch", "float32") + b"}"
     + text("np") + text("float16") + b"sb0.", "torch.float32"),  # the issue's file: looks like {'w': tensor}
    ("BUILD-OrderedDict-slotstate", P2 + glob("collections", "OrderedDict") + b")RN}" + text("x") + small(1)
     + b"s\x86b.", "attribute names"),
    ("GLOBAL-torch.Tensor", P2 + glob("torch", "Tensor") + b")R.", "'torch.Tensor'"),
    ("GLOBAL-Parameter-class", P2 + glob("torch.nn.parameter", "Parameter") + b")\x81.",
     "'torch.nn.parameter.Parameter'"),
    ("BUILD-dtype-slotstate", P2 + glob("torch", "float32") + b"N}" + text("np") + text("float16") + b"s\x86b.",
     "torch.float32"),
    ("BUILD-Size-class", P2 + glob("torch", "Size") + b"}" + text("numel") + small(1) + b"sb.", "torch.Size"),
    ("BUILD-Size-instance", P2 + glob("torch", "Size") + tup(tup(small(2))) + b"R}" + text("x") + small(1) + b"sb.",
     "BUILD"),
    ("BUILD-rebuild-function", P2 + glob("torch._utils", "_rebuild_tensor_v2") + b"}" + text("__defaults__")
     + tup(small(1)) + b"sb.", "_rebuild_tensor_v2"),
    ("BUILD-OrderedDict-class", P2 + glob("collections", "OrderedDict") + b"}" + text("fromkeys") + small(1)
     + b"sb.", "collections.OrderedDict"),
    ("BUILD-storage-type", P2 + glob("torch", "HalfStorage") + b"}" + text("np") + small(1) + b"sb.",
     "torch.HalfStorage"),
    ("BUILD-tensor", P2 + rebuild() + b"}" + text("_data") + text("x") + b"sb.", "BUILD"),
    ("BUILD-dict", P2 + b"}}b.", "BUILD"),
    ("BUILD-OrderedDict-dunder", P2 + glob("collections", "OrderedDict") + b")R}" + text("__class__") + small(1)
     + b"sb.", "attribute names"),
    ("BUILD-OrderedDict-not-dict", P2 + glob("collections", "OrderedDict") + b")R" + small(1) + b"b.",
     "attribute names"),
    ("BUILD-memo-of-global", P2 + glob("torch", "float64") + b"q\x000h\x00}" + text("itemsize") + small(1) + b"sb.",
     "torch.float64"),
    # SETITEM(S) / APPEND(S) / ADDITEMS on what this load did not make
    ("SETITEM-dtype", P2 + glob("torch", "float32") + text("np") + text("x") + b"s.", "SETITEM"),
    ("SETITEM-Size-class", P2 + glob("torch", "Size") + text("numel") + small(1) + b"s.", "torch.Size"),
    ("SETITEMS-OrderedDict-class", P2 + glob("collections", "OrderedDict") + b"(" + text("a") + small(1) + b"u.",
     "SETITEMS"),
    ("SETITEMS-tensor", P2 + rebuild() + b"(" + small(0) + small(5) + b"u.", "SETITEMS"),
    ("SETITEM-tuple", P2 + b")" + small(0) + small(1) + b"s.", "SETITEM"),
    ("APPEND-global", P2 + glob("torch", "float32") + small(1) + b"a.", "APPEND"),
    ("APPEND-tuple", P2 + b")" + small(1) + b"a.", "APPEND"),
    ("APPENDS-Size", P2 + glob("torch", "Size") + tup(tup()) + b"R(" + small(1) + b"e.", "APPENDS"),
    ("APPENDS-tensor", P2 + rebuild() + b"(" + small(1) + b"e.", "APPENDS"),
    ("ADDITEMS-frozenset", P4 + b"(\x91(" + small(1) + b"\x90.", "ADDITEMS"),
    ("SETITEM-key-is-tensor", P2 + b"}" + rebuild() + small(1) + b"s.", "cannot be a key"),
    # persistent ids
    ("PERSID-text", P2 + b"Pstorage\n.", "persistent id"),
    ("BINPERSID-int", P2 + small(1) + b"Q.", "persistent id"),
    ("BINPERSID-wrong-tag", P2 + tup(text("module"), glob("torch", "FloatStorage"), text("0"), text("cpu"), small(4))
     + b"Q.", "persistent id"),
    ("BINPERSID-dtype-as-type", P2 + tup(text("storage"), glob("torch", "float32"), text("0"), text("cpu"), small(4))
     + b"Q.", "persistent id"),
    ("BINPERSID-missing-entry", P2 + rebuild(key="7") + b".", "missing archive entry 'archive/data/7'"),
    ("BINPERSID-size-mismatch", P2 + rebuild(n=5) + b".", "declares 5 elements"),
    ("BINPERSID-two-types", P2 + b"(" + storage() + tup(text("storage"), glob("torch", "IntStorage"), text("0"),
                                                        text("cpu"), small(4)) + b"Q" + b"l.", "two different types"),
    ("storage-as-value", P2 + storage() + b".", "storage appears as a value"),
    ("global-as-value", P2 + glob("torch", "Size") + b".", "torch.Size appears as a value"),
    # tensors whose geometry leaves the storage, or whose extras are refused
    ("tensor-out-of-bounds", P2 + rebuild(size=(3, 2)) + b".", "reaches element 5"),
    ("tensor-offset-out-of-bounds", P2 + rebuild(size=(1,), stride=(1,), offset=4) + b".", "reaches element 4"),
    ("tensor-negative-size", P2 + glob("torch._utils", "_rebuild_tensor_v2") + b"(" + storage() + small(0)
     + tup(b"J\xff\xff\xff\xff") + tup(small(1)) + b"\x89" + b"N" + b"tR.", "negative"),
    ("tensor-size-stride-lengths", P2 + rebuild(size=(2, 2), stride=(1,)) + b".", "geometry"),
    ("tensor-size-not-int", P2 + glob("torch._utils", "_rebuild_tensor_v2") + b"(" + storage() + small(0)
     + tup(text("2")) + tup(small(1)) + b"\x89N" + b"tR.", "must be ints"),
    ("tensor-huge-size-stride-0", P2 + glob("torch._utils", "_rebuild_tensor_v2") + b"(" + storage() + small(0)
     + tup(b"\x8a\x08" + (2**62).to_bytes(8, "little")) + tup(small(0)) + b"\x89N" + b"tR.", "too large"),
    ("tensor-backward-hooks", P2 + rebuild(hooks=b"}" + small(1) + small(1) + b"s") + b".", "backward hooks"),
    ("tensor-metadata", P2 + rebuild(extra=b"}" + text("conj") + b"\x88s") + b".", "metadata"),
    ("tensor-storage-not-storage", P2 + glob("torch._utils", "_rebuild_tensor_v2") + tup(small(1), small(0), tup(),
                                                                                         tup(), b"\x89", b"N") + b"R.",
     "not a storage"),
    ("parameter-of-non-tensor", P2 + glob("torch._utils", "_rebuild_parameter") + tup(small(1), b"\x88", b"N")
     + b"R.", "not a tensor"),
    ("parameter-with-state", P2 + glob("torch._utils", "_rebuild_parameter_with_state")
     + tup(rebuild(), b"\x88", b"N", b"}" + text("x") + small(1) + b"s") + b"R.", "Python attributes"),
    # declared lengths refused before allocating
    ("BINBYTES8-huge", P4 + b"\x8e" + struct.pack("<Q", 2**62) + b".", "declares 4611686018427387904 bytes"),
    ("BINUNICODE8-huge", P4 + b"\x8d" + struct.pack("<Q", 2**63) + b".", "declares 9223372036854775808 bytes"),
    ("BYTEARRAY8-huge", b"\x80\x05\x96" + struct.pack("<Q", 2**40) + b".", "declares 1099511627776 bytes"),
    ("BINUNICODE-huge", P2 + b"X" + struct.pack("<I", 2**32 - 1) + b".", "declares 4294967295 bytes"),
    ("BINBYTES-huge", P4 + b"B" + struct.pack("<I", 2**31) + b".", "declares 2147483648 bytes"),
    ("BINSTRING-negative", P2 + b"T" + struct.pack("<i", -5) + b".", "declares -5 bytes"),
    ("LONG4-huge", P2 + b"\x8b" + struct.pack("<i", 2**31 - 1) + b".", "LONG4"),
    ("LONG4-negative", P2 + b"\x8b" + struct.pack("<i", -1) + b".", "declares -1 bytes"),
    ("FRAME-huge", P4 + b"\x95" + struct.pack("<Q", 2**60) + b"N.", "FRAME"),
    ("INT-huge-text", P2 + b"I" + b"9" * 100000 + b"\n.", "INT"),
    # the machine itself
    ("BINGET-missing", P2 + b"h\x05.", "memo entry 5"),
    ("LONG_BINGET-missing", P2 + b"j\xff\xff\xff\xff.", "memo entry 4294967295"),
    ("POP-empty", P2 + b"0.", "POP"),
    ("TUPLE-without-MARK", P2 + b"t.", "TUPLE"),
    ("unknown-opcode", P2 + b"\xff.", "unknown opcode 0xff"),
    ("PROTO-6", b"\x80\x06N.", "protocol 6"),
    ("no-STOP", P2 + b"N", "without a STOP"),
    ("STOP-two-objects", P2 + b"NN.", "2 objects"),
    ("STRING-protocol-0", b"S'abc'\n.", "STRING"),
    ("nested-300-lists", P2 + b"]" * 300 + b"a" * 299 + b".", "nested more than 256 levels"),
    ("self-containing-list", P2 + b"]q\x00h\x00a.", "contains itself"),
]


@pytest.fixture(scope="module")
def baseline():
    return fingerprint()


def _refused(data, words: str, baseline: dict, error=LOAD_ERRORS) -> BaseException:
    with pytest.raises(error) as e:
        rg.load(data if isinstance(data, (str, os.PathLike)) else io.BytesIO(data))
    assert str(e.value).startswith("retrograd.load:"), str(e.value)
    assert words in str(e.value), str(e.value)
    changed = diff(baseline, fingerprint())
    assert not changed, f"loading changed process state: {changed}"
    return e.value


@pytest.mark.parametrize("case,pkl,words", PICKLES, ids=[c[0] for c in PICKLES])
def test_hostile_pickle_is_refused_and_changes_nothing(case, pkl, words, baseline):
    error = _refused(torch_zip(pkl), words, baseline)
    if case in ("BINPERSID-missing-entry", "BINPERSID-size-mismatch", "BINPERSID-two-types"):
        assert isinstance(error, RuntimeError)  # the archive, not the pickle, is at fault
    else:
        assert type(error) is pickle.UnpicklingError


def test_the_fingerprint_sees_the_attacks_it_guards_against(baseline):
    """The check above can fail: changes like the ones the BUILD attacks made show up in the fingerprint."""
    import retrograd._unpickler as U

    saved = rg.Size.numel
    rg.Size.numel = lambda self: 1
    try:
        assert "class.Size" in diff(baseline, fingerprint())
    finally:
        rg.Size.numel = saved
    U._rebuild_tensor.__defaults__ = (1,)
    try:
        assert "function._rebuild_tensor" in diff(baseline, fingerprint())
    finally:
        U._rebuild_tensor.__defaults__ = None
    assert not diff(baseline, fingerprint())


def test_the_build_attack_of_the_issue_would_change_float32_through_plain_pickle():
    """The BUILD-dtype payloads are real attacks: Python's own unpickler applies them to whatever object
    find_class returned (here a stand-in with the same slots as a dtype), so they must be refused above."""
    class Standin:
        __slots__ = ("np",)

    target = Standin()
    target.np = "float32"

    class Admitting(pickle.Unpickler):
        def find_class(self, module, name):
            return target

    pkl = dict(PICKLES_BY_ID)["BUILD-dtype-slotstate"]
    Admitting(io.BytesIO(pkl)).load()
    assert target.np == "float16"


PICKLES_BY_ID = [(c[0], c[1]) for c in PICKLES]


# ------------------------------------------------------------------------------ the zip container
def _zip_with(build) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        build(zf)
    return buf.getvalue()


def _valid_pkl() -> bytes:
    return P2 + b"}" + text("w") + rebuild() + b"s."


def _patch(data: bytes, old: bytes, new: bytes, count: int = -1) -> bytes:
    assert old in data
    return data.replace(old, new, count)


def _central(data: bytes) -> int:
    return data.index(b"PK\x01\x02")


CONTAINERS = [
    ("zip-compressed-entry", lambda: _zip_with(lambda zf: zf.writestr("archive/data.pkl", _valid_pkl(),
                                                                      compress_type=zipfile.ZIP_DEFLATED)),
     "compressed"),
    ("zip-bomb", lambda: _zip_with(lambda zf: zf.writestr("retrograd.json", b" " * (50 << 20),
                                                          compress_type=zipfile.ZIP_DEFLATED)), "zip bomb"),
    ("zip-encrypted-flag", lambda: _central_patch(torch_zip(_valid_pkl()), 8, b"\x01\x00"), "encrypted"),
    ("zip-version-99", lambda: _central_patch(torch_zip(_valid_pkl()), 6, b"\x63\x00"), "zip file version"),
    ("zip-duplicate-entry", lambda: _zip_with(_twice), "twice"),
    ("zip-declared-size-beyond-file", lambda: _declared_size(torch_zip(_valid_pkl()), 10**9), "declares"),
    ("zip-crc-mismatch", lambda: _patch(torch_zip(_valid_pkl()), FLOATS, FLOATS[:-1] + b"\x7f"), "CRC"),
    ("zip-no-central-directory", lambda: torch_zip(_valid_pkl())[:-22], "corrupted zip"),
    ("zip-two-data-pkl", lambda: _zip_with(lambda zf: [zf.writestr("a/data.pkl", b"N."),
                                                       zf.writestr("b/data.pkl", b"N.")]), "neither"),
    ("zip-unknown-content", lambda: _zip_with(lambda zf: zf.writestr("readme.txt", "hi")), "neither"),
    ("torch-zip-bad-byteorder", lambda: torch_zip(_valid_pkl(), byteorder=b"middle"), "unknown byte order"),
    ("torch-zip-storage-too-short", lambda: torch_zip(_valid_pkl(), {"archive/data/0": FLOATS[:-4]}),
     "declares 4 elements"),
    ("torch-zip-huge-data-pkl-length", lambda: torch_zip(P4 + b"\x8e" + struct.pack("<Q", 2**63 - 1) + b"."),
     "declares 9223372036854775807 bytes"),
    ("legacy-pickle", lambda: pickle.dumps({"w": 1}, protocol=2), "pickle stream"),
    ("legacy-pickle-protocol-0", lambda: pickle.dumps(OrderedDict(w=1), protocol=0), "pickle stream"),
    ("legacy-tar", lambda: _tar(), "bad magic"),
    ("bare-npy", lambda: _npy(np.ones(3, np.float32)), "bad magic"),
    ("not-a-checkpoint", lambda: b"hello", "bad magic"),
    ("empty", lambda: b"", "empty"),
]


def _twice(zf: zipfile.ZipFile) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # zipfile warns about the duplicate it is asked to write
        zf.writestr("archive/data.pkl", b"N.")
        zf.writestr("archive/data.pkl", b"N.")


def _central_patch(data: bytes, at: int, new: bytes) -> bytes:
    """Overwrite bytes of the first central-directory record (6: version needed, 8: flags, 20: sizes)."""
    out = bytearray(data)
    c = _central(data)
    out[c + at:c + at + len(new)] = new
    return bytes(out)


def _declared_size(data: bytes, size: int) -> bytes:
    out = bytearray(data)
    c = _central(data)
    out[c + 20:c + 28] = struct.pack("<II", size, size)  # compressed and uncompressed size of the first entry
    return bytes(out)


def _tar() -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tf:
        payload = pickle.dumps({"w": 1})
        info = tarfile.TarInfo("pickle")
        info.size = len(payload)
        tf.addfile(info, io.BytesIO(payload))
    return buf.getvalue()


def _npy(arr: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, arr)
    return buf.getvalue()


@pytest.mark.parametrize("case,make,words", CONTAINERS, ids=[c[0] for c in CONTAINERS])
def test_hostile_container_is_refused_and_changes_nothing(case, make, words, baseline):
    _refused(make(), words, baseline)


# ------------------------------------------------------------------------------ retrograd's own format
def _rg_file(obj=None) -> bytes:
    buf = io.BytesIO()
    rg.save({"w": rg.arange(4.0)} if obj is None else obj, buf)
    return buf.getvalue()


def _replace_entry(data: bytes, name: str, payload: bytes) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w") as dst:
        for n in src.namelist():
            dst.writestr(n, payload if n == name else src.read(n))
    return out.getvalue()


def _npy_header(text_: str, body: bytes = FLOATS, version: int = 1) -> bytes:
    raw = text_.encode("latin-1")
    size = struct.pack("<H", len(raw)) if version == 1 else struct.pack("<I", len(raw))
    return b"\x93NUMPY" + bytes([version, 0]) + size + raw + body


def _header_edit(edit) -> bytes:
    data = _rg_file()
    header = json.loads(zipfile.ZipFile(io.BytesIO(data)).read("retrograd.json"))
    edit(header)
    return _replace_entry(data, "retrograd.json", json.dumps(header).encode())


def _view_file(view: dict) -> bytes:
    base = rg.arange(6.0)
    data = _rg_file({"a": base, "b": base[1:]})
    header = json.loads(zipfile.ZipFile(io.BytesIO(data)).read("retrograd.json"))
    header["root"]["v"][1]["view"].update(view)
    return _replace_entry(data, "retrograd.json", json.dumps(header).encode())


def _nested_json(depth: int) -> bytes:
    root: dict = {"$": "list", "v": []}
    node = root
    for _ in range(depth - 1):
        child = {"$": "list", "v": []}
        node["v"].append(child)
        node = child
    return _replace_entry(_rg_file(), "retrograd.json", json.dumps(
        {"format": "retrograd.save", "version": 1, "tensors": [], "root": root}).encode())


OWN_FORMAT = [
    ("npy-header-tokenize-error", lambda: _replace_entry(_rg_file(), "tensors/0.npy", _npy_header(
        "{'descr': '<f4', 'fortran_order': False, 'shape': (4,\n")), "bad array header"),
    ("npy-header-not-literal", lambda: _replace_entry(_rg_file(), "tensors/0.npy", _npy_header(
        "__import__('os').system('x')\n")), "bad array header"),
    ("npy-header-extra-keys", lambda: _replace_entry(_rg_file(), "tensors/0.npy", _npy_header(
        "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), 'x': 1}\n")), "bad array header"),
    ("npy-object-dtype", lambda: _replace_entry(_rg_file(), "tensors/0.npy", _npy_header(
        "{'descr': '|O', 'fortran_order': False, 'shape': (2,)}\n", b"\0" * 16)), "unsupported dtype"),
    ("npy-datetime64", lambda: _replace_entry(_rg_file(), "tensors/0.npy", _npy_header(
        "{'descr': '<M8[s]', 'fortran_order': False, 'shape': (2,)}\n", b"\0" * 16)), "unsupported dtype"),
    ("npy-string", lambda: _replace_entry(_rg_file(), "tensors/0.npy", _npy_header(
        "{'descr': '<U4', 'fortran_order': False, 'shape': (1,)}\n")), "unsupported dtype"),
    ("npy-structured", lambda: _replace_entry(_rg_file(), "tensors/0.npy", _npy_header(
        "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (4,)}\n")), "bad array header"),
    ("npy-bad-dtype-string", lambda: _replace_entry(_rg_file(), "tensors/0.npy", _npy_header(
        "{'descr': 'nonsense', 'fortran_order': False, 'shape': (4,)}\n")), "bad array header"),
    ("npy-negative-shape", lambda: _replace_entry(_rg_file(), "tensors/0.npy", _npy_header(
        "{'descr': '<f4', 'fortran_order': False, 'shape': (-4,)}\n")), "invalid shape"),
    ("npy-huge-shape", lambda: _replace_entry(_rg_file(), "tensors/0.npy", _npy_header(
        "{'descr': '<f4', 'fortran_order': False, 'shape': (10**12,)}\n")), "bad array header"),
    ("npy-huge-declared-shape", lambda: _replace_entry(_rg_file(), "tensors/0.npy", _npy_header(
        "{'descr': '<f4', 'fortran_order': False, 'shape': (1000000000000,)}\n")), "declares shape"),
    ("npy-huge-header-length", lambda: _replace_entry(_rg_file(), "tensors/0.npy", b"\x93NUMPY\x02\x00"
                                                      + struct.pack("<I", 2**31) + b"{}"), "header"),
    ("npy-version-9", lambda: _replace_entry(_rg_file(), "tensors/0.npy", _npy_header("{}\n", version=9)),
     "bad array header"),
    ("npy-truncated", lambda: _replace_entry(_rg_file(), "tensors/0.npy", b"\x93NUM"), "truncated"),
    ("json-not-json", lambda: _replace_entry(_rg_file(), "retrograd.json", b"{not json"), "JSON header"),
    ("json-deep", lambda: _replace_entry(_rg_file(), "retrograd.json", b"[" * 100000), "JSON header"),
    ("json-nested-300", lambda: _nested_json(300), "nested more than 256 levels"),
    ("json-eval-tag", lambda: _header_edit(lambda h: h.update(root={"$": "eval", "v": "1"})), "unknown node tag"),
    ("json-version", lambda: _header_edit(lambda h: h.update(version=99)), "unsupported format version"),
    ("json-tensor-index", lambda: _header_edit(lambda h: h.update(root={"$": "tensor", "i": 9})), "out of range"),
    ("json-int-requires-grad", lambda: _header_edit(lambda h: h["tensors"][0].update(dtype="int64")),
     "does not match"),
    ("json-npscalar-object", lambda: _header_edit(lambda h: h.update(root={"$": "npscalar", "dtype": "object",
                                                                          "v": 1})), "unsupported scalar dtype"),
    ("json-size-not-ints", lambda: _header_edit(lambda h: h.update(root={"$": "size", "v": ["a"]})), "size"),
    ("json-dtype-unknown", lambda: _header_edit(lambda h: h.update(root={"$": "dtype", "name": "__class__"})),
     "dtype"),
    ("view-out-of-bounds", lambda: _view_file({"shape": [10]}), "reaches element"),
    ("view-negative-stride", lambda: _view_file({"stride": [-1]}), "negative"),
    ("view-offset-beyond", lambda: _view_file({"offset": 100}), "reaches element"),
    ("view-shape-not-ints", lambda: _view_file({"shape": ["5"]}), "must be ints"),
]


@pytest.mark.parametrize("case,make,words", OWN_FORMAT, ids=[c[0] for c in OWN_FORMAT])
def test_hostile_retrograd_format_is_refused_and_changes_nothing(case, make, words, baseline):
    error = _refused(make(), words, baseline)
    assert isinstance(error, RuntimeError)


# ------------------------------------------------------------------------------ what load opens
@pytest.mark.skipif(sys.platform == "win32", reason="FIFOs, /dev/zero and symlinks are POSIX")
def test_non_regular_files_are_refused_at_once(tmp_path, baseline):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)  # opening it for reading without O_NONBLOCK would block forever
    _refused(fifo, "a FIFO", baseline)
    link = tmp_path / "zero.pt"
    link.symlink_to("/dev/zero")  # reading it would never end
    _refused(link, "a character device", baseline)
    _refused("/dev/zero", "a character device", baseline)
    _refused(tmp_path, "a directory", baseline)
    r, w = os.pipe()
    with os.fdopen(r, "rb") as fh, os.fdopen(w, "wb"):
        with pytest.raises(RuntimeError, match="not seekable"):
            rg.load(fh)
    with pytest.raises(TypeError, match="binary mode"):
        rg.load(io.StringIO("x"))
    with pytest.raises(TypeError, match="expected a path or a binary file object"):
        rg.load(3.5)
    assert not diff(baseline, fingerprint())


def test_nesting_limit_is_the_same_for_save_and_both_loads():
    import torch

    def nested(depth):
        out: list = []
        for _ in range(depth - 1):
            out = [out]
        return out

    ok, deep = nested(256), nested(257)
    for writer in (rg.save, torch.save):
        buf = io.BytesIO()
        writer(ok, buf)
        buf.seek(0)
        got = rg.load(buf)
        for _ in range(255):
            got = got[0]
        assert got == []
    with pytest.raises(ValueError, match="nested more than 256 levels"):
        rg.save(deep, io.BytesIO())
    buf = io.BytesIO()
    torch.save(deep, buf)
    buf.seek(0)
    with pytest.raises(pickle.UnpicklingError, match="nested more than 256 levels"):
        rg.load(buf)
    with pytest.raises(ValueError, match="nested more than 256 levels"):
        rg.save(nested(400), io.BytesIO())  # (the issue's case: 400 levels used to raise RecursionError)


def test_catalogue_size():
    """The report's count: every case above is a distinct hostile file."""
    assert len(PICKLES) + len(CONTAINERS) + len(OWN_FORMAT) >= 120
