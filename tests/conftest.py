"""Shared pytest set-up for the whole suite.

The test tree is a package (``tests/__init__.py`` and one ``__init__.py`` per folder), so two
subjects may hold files of the same base name (``tests/nn/test_functional.py`` and
``tests/ops/nn/...``).  The shared helpers ``parity``, ``nn_helpers`` and the op table ``op_db``
live at the top of ``tests/`` and are imported by their short names from every folder; this puts
``tests/`` on ``sys.path`` for that, at the end so it never shadows a real module.
"""
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.append(_HERE)
