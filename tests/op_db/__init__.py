"""The test table: one ``OpSpec`` per public op, collected from the family files here.

A spec says how to call the op (``samples``), what torch calls it, and what to check:
forward vs torch in float32 and float64, first and second derivatives vs torch,
``gradcheck``/``gradgradcheck`` (float64 central differences), the ``grad_fn`` name,
hypothesis-generated broadcasting for binary ops.  ``tests/test_ops.py`` runs them all;
``scripts/gen_ops_doc.py`` turns the table into docs/ops.md.

Family files (``pointwise.py``, ``reduce.py`` ...) each define ``SPECS: list[OpSpec]``.
"""
from __future__ import annotations

import importlib
import pkgutil

from ._spec import OpSpec, S, T  # noqa: F401


def all_specs() -> list[OpSpec]:
    specs: list[OpSpec] = []
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("_"):
            continue
        mod = importlib.import_module(f"{__name__}.{info.name}")
        specs.extend(getattr(mod, "SPECS", []))
    return specs
