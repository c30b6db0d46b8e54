"""A fingerprint of the process state that loading a checkpoint must never change.

It covers what a hostile checkpoint has been seen to reach (retrograd's dtypes and their
attributes, ``Size``'s methods, the rebuild functions and the unpickler's table of globals, the
default dtype) and, more broadly, the namespaces of retrograd, retrograd._tensor, numpy,
builtins and collections: the id and a short repr of every attribute.
"""
from __future__ import annotations

import builtins
import collections
import hashlib

import numpy as np

import retrograd as rg
import retrograd._dtype as D
import retrograd._tensor as T
import retrograd._unpickler as U
import retrograd.serialization as S


def _short_repr(v) -> str:
    try:
        return repr(v)[:120]
    except Exception as e:  # noqa: BLE001 - an attribute whose repr fails still has an identity
        return f"<repr failed: {type(e).__name__}>"


def _slot(obj, name: str) -> str:
    try:
        return _short_repr(getattr(obj, name))
    except Exception as e:  # noqa: BLE001 - name-only dtypes raise on .np: the error text is their state
        return f"<{type(e).__name__}: {e}>"


def _namespace(mod) -> str:
    h = hashlib.sha256()
    for k in sorted(vars(mod)):
        if k == "__warningregistry__":  # (written by Python's warnings machinery, not by us)
            continue
        v = vars(mod)[k]
        h.update(f"{k}={id(v)}:{_short_repr(v)}\n".encode("utf-8", "replace"))
    return h.hexdigest()


def _function(f) -> tuple:
    return (id(f), f.__defaults__, f.__kwdefaults__, id(f.__code__), dict(getattr(f, "__dict__", {})))


def _class(cls) -> tuple:
    return tuple(sorted((k, id(v)) for k, v in vars(cls).items()))


def fingerprint() -> dict:
    fp: dict = {}
    for name in D.__all__:
        d = getattr(D, name)
        if isinstance(d, D.dtype):
            fp[f"dtype.{name}"] = (id(d), tuple(_slot(d, s) for s in D.dtype.__slots__))
    fp["default_dtype"] = repr(rg.get_default_dtype())
    fp["one_third"] = rg.tensor([1 / 3]).item()
    for cls in (rg.Size, rg.device, rg.Tensor, D.dtype, U._Callable, U.StorageType, collections.OrderedDict,
                collections.Counter):
        fp[f"class.{cls.__qualname__}"] = _class(cls)
    for f in (U._rebuild_tensor, U._rebuild_tensor_v2, U._rebuild_parameter, U._rebuild_parameter_with_state,
              U._ordered_dict, U._counter, U._size, U._device, U._encode, U._bytearray, U._complex,
              S.load, S.save):
        fp[f"function.{f.__name__}"] = _function(f)
    fp["globals_table"] = tuple(sorted((k, id(v), _short_repr(getattr(v, "qualname", v)),
                                        id(getattr(v, "call", None))) for k, v in U._GLOBALS.items()))
    for mod in (rg, T, S, U, D, np, builtins, collections):
        fp[f"module.{mod.__name__}"] = _namespace(mod)
    return fp


def diff(before: dict, after: dict) -> list[str]:
    return [k for k in before if before[k] != after.get(k)] + [k for k in after if k not in before]
