"""Inputs of the multi-process checks, as functions of (rank, world size): the worker feeds them to
retrograd.distributed under mpiexec, and the tests rebuild them to compute the single-process reference."""
from __future__ import annotations

import numpy as np

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"]
OPS = ["SUM", "AVG", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR"]
SHAPE = (2, 3)


def op_allowed(op: str, dtype: str) -> bool:
    """torch (gloo) refuses bitwise ops on floating tensors and AVG on integer and bool ones."""
    floating = dtype.startswith("float")
    if op in ("BAND", "BOR", "BXOR"):
        return not floating
    if op == "AVG":
        return floating
    return True


def value(rank: int, dtype: str, op: str = "SUM", shape=SHAPE) -> np.ndarray:
    """Rank ``rank``'s tensor: small integers, so every sum and product is exact in every dtype
    (float16 included) whatever order MPI adds them in; PRODUCT's stay within int8 for 4 ranks."""
    k = np.arange(int(np.prod(shape))).reshape(shape)
    if dtype == "bool":
        return ((k + rank) % 3 == 0)
    if op == "PRODUCT":
        return ((k + rank) % 3 + 1).astype(dtype)
    return (k * (rank + 1) % 7 + rank + 1).astype(dtype)


_NP = {"SUM": np.add, "AVG": np.add, "PRODUCT": np.multiply, "MIN": np.minimum, "MAX": np.maximum,
       "BAND": np.bitwise_and, "BOR": np.bitwise_or, "BXOR": np.bitwise_xor}


def reduced(values: list[np.ndarray], op: str) -> np.ndarray:
    """The single-process reference of a reduction over the ranks' values (torch's meaning of each op)."""
    if values[0].dtype == np.bool_:
        # torch: SUM/MAX/BOR of bools is "any", PRODUCT/MIN/BAND is "all", BXOR is parity
        f = {"SUM": np.logical_or, "MAX": np.logical_or, "BOR": np.logical_or, "PRODUCT": np.logical_and,
             "MIN": np.logical_and, "BAND": np.logical_and, "BXOR": np.logical_xor}[op]
    else:
        f = _NP[op]
    acc = values[0].copy()
    for v in values[1:]:
        acc = f(acc, v).astype(values[0].dtype)
    if op == "AVG":
        acc = (acc / len(values)).astype(values[0].dtype)
    return acc


def split_sizes(n: int, rank: int) -> list[int]:
    """all_to_all's uneven pieces: rank ``rank`` sends ``rank + j + 1`` rows to rank ``j``."""
    return [rank + j + 1 for j in range(n)]


def mlp_data(n_total: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((n_total, 5)).astype(np.float32),
            rng.standard_normal((n_total, 3)).astype(np.float32))
