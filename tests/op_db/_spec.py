"""OpSpec, sample arguments, and how a sample becomes retrograd / torch arguments."""
from __future__ import annotations

import dataclasses
from typing import Any, Callable

import numpy as np


@dataclasses.dataclass(frozen=True)
class T:
    """A tensor argument, materialised per dtype from a seeded generator.

    kind: "float" (uniform in [low, high], the test dtype; requires grad when the op is
    differentiable and ``grad`` is True), "int" (int64 in [low, high)), "bool", or
    "fixed" (``value`` as given, e.g. index lists).
    """

    shape: tuple = ()
    low: float = -2.0
    high: float = 2.0
    kind: str = "float"
    grad: bool = True
    value: Any = None
    dtype: str | None = None  # force a dtype name ("int32", "float32"...) instead of the test dtype

    def make(self, rng: np.random.Generator, dtype: str) -> np.ndarray:
        if self.kind == "float":
            a = rng.uniform(self.low, self.high, size=self.shape)
            return np.asarray(a, dtype=self.dtype or dtype)
        if self.kind == "int":
            return np.asarray(rng.integers(int(self.low), int(self.high), size=self.shape), dtype=self.dtype or "int64")
        if self.kind == "bool":
            return rng.random(self.shape) < 0.5
        if self.kind == "fixed":
            return np.array(self.value, dtype=self.dtype) if self.dtype else np.array(self.value)
        raise ValueError(self.kind)


@dataclasses.dataclass(frozen=True)
class Sample:
    args: tuple
    kwargs: dict


def S(*args, **kwargs) -> Sample:
    """A sample call: positional args (T for tensors, anything else passed as is) and kwargs."""
    return Sample(args, kwargs)


@dataclasses.dataclass
class OpSpec:
    """How to test one public op.

    name:      retrograd.<name> (dotted for namespaces, e.g. "linalg.inv", "nn.functional.relu").
    torch_name: torch's dotted name when it differs.
    samples:   list of Sample.
    call:      optional ``call(lib, *args, **kwargs)`` when the op is not ``lib.<name>(*args)``
               (e.g. operators, indexing, methods only).
    grad / gradgrad: whether torch differentiates it once / twice (False: checked to not
               require grad, or skipped for integer outputs).
    method:    also check ``args[0].<name>(*rest)`` when True.
    inplace:   name of the in-place variant to check too (e.g. "exp_").
    broadcast: binary op: also run hypothesis broadcasting shapes on args 0 and 1.
    atol/rtol: tolerances for float32 forward (float64 uses 1e-10/1e-7 unless loose64).
    check_grad_fn: compare type(out.grad_fn).__name__ with torch's.
    nondeterministic: outputs not comparable to torch (random ops): only shapes/dtypes checked.
    """

    name: str
    samples: list
    torch_name: str | None = None
    call: Callable | None = None
    grad: bool = True
    gradgrad: bool = True
    method: bool = False
    inplace: str | None = None
    broadcast: bool = False
    atol: float = 1e-5
    rtol: float = 1e-4
    loose64: bool = False
    check_grad_fn: bool = True
    nondeterministic: bool = False
    note: str = ""

    def resolve(self, lib):
        target = self.torch_name if (self.torch_name and lib.__name__ == "torch") else self.name
        obj = lib
        for part in target.split("."):
            obj = getattr(obj, part)
        return obj

    def invoke(self, lib, args, kwargs):
        if self.call is not None:
            return self.call(lib, *args, **kwargs)
        return self.resolve(lib)(*args, **kwargs)
