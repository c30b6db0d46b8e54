"""The test table: one ``OpSpec`` per public op, collected from the family files here.

A spec says how to call the op (``samples``), what torch calls it, and what to check:
forward vs torch in float32 and float64, first and second derivatives vs torch,
``gradcheck``/``gradgradcheck`` (float64 central differences), the ``grad_fn`` name,
hypothesis-generated broadcasting for binary ops.  ``tests/ops/test_op_db.py`` runs them all;
``scripts/gen_ops_doc.py`` turns the table into docs/ops.md.

The files mirror ``retrograd/_ops`` (``unary.py`` beside ``_ops/unary.py``, ``linalg/solvers.py``
beside ``_ops/linalg/solvers.py`` ...); each defines ``SPECS: list[OpSpec]``.
"""
from __future__ import annotations

import importlib
import pkgutil

from ._spec import OpSpec, S, T  # noqa: F401


def all_specs() -> list[OpSpec]:
    specs: list[OpSpec] = []
    for info in pkgutil.walk_packages(__path__, __name__ + "."):  # (linalg/ and nn/ too)
        if info.name.rsplit(".", 1)[-1].startswith("_"):
            continue
        mod = importlib.import_module(info.name)
        specs.extend(getattr(mod, "SPECS", []))
    return specs
