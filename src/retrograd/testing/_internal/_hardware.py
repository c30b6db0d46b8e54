"""``HardwareClassification``: the tag newer PyTorch test classes carry as ``hw_classification``.

PyTorch's test linter uses it to say which hardware a ``TestCase`` is written for; a runner may
select classes by it.  retrograd's runner does not filter on it, but test files import it, so it
exists with PyTorch's member names.

>>> from retrograd.testing._internal.common_utils import HardwareClassification
>>> HardwareClassification.GENERIC.name
'GENERIC'
"""

from __future__ import annotations

import enum

__all__ = ["HardwareClassification"]


class HardwareClassification(enum.Enum):
    """Which hardware a test class targets (``GENERIC`` = device-agnostic, no ``device`` argument)."""

    GENERIC = "generic"
    ACCELERATOR = "accelerator"
    CPU = "cpu"
    CUDA = "cuda"
    MPS = "mps"
    XPU = "xpu"
