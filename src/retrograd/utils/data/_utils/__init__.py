"""``torch.utils.data._utils``: the DataLoader's helper modules (``collate``, ``worker``) and constants.

PyTorch code reaches into this package for ``_utils.collate.default_collate``, the worker state
``_utils.worker._worker_info`` and ``MP_STATUS_CHECK_INTERVAL``.

>>> from retrograd.utils.data import _utils
>>> _utils.collate.default_collate([1, 2]).tolist()
[1, 2]
"""
from __future__ import annotations

import sys

from ...._utils import ExceptionWrapper
from . import collate, fetch, worker

__all__ = ["collate", "fetch", "worker", "ExceptionWrapper", "MP_STATUS_CHECK_INTERVAL", "IS_WINDOWS",
           "HAS_NUMPY", "python_exit_status"]

# Seconds between the liveness checks a multi-process loader would make (PyTorch's value).
MP_STATUS_CHECK_INTERVAL = 5.0
IS_WINDOWS = sys.platform == "win32"
HAS_NUMPY = True
# Set once the interpreter starts exiting (PyTorch's loader uses it to skip clean-up then).
python_exit_status: bool | None = False
