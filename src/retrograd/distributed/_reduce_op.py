"""``ReduceOp``: how a reducing collective combines the ranks' tensors, spelled as torch spells it."""
from __future__ import annotations

import enum

__all__ = ["ReduceOp"]


class _RedOpType(enum.Enum):
    # torch's numbering (its C++ enum), so ``ReduceOp.SUM.value`` agrees
    SUM = 0
    AVG = 1
    PRODUCT = 2
    MIN = 3
    MAX = 4
    BAND = 5
    BOR = 6
    BXOR = 7
    PREMUL_SUM = 8


_RedOpType.__name__ = _RedOpType.__qualname__ = "RedOpType"


class ReduceOp:
    """The reduction operations of ``all_reduce``, ``reduce`` and ``reduce_scatter``.

    ``ReduceOp.SUM`` and friends are members of ``ReduceOp.RedOpType``; ``ReduceOp(op)`` wraps one.

    >>> from retrograd.distributed import ReduceOp
    >>> ReduceOp.SUM, ReduceOp.MAX.value
    (<RedOpType.SUM: 0>, 4)
    """

    RedOpType = _RedOpType
    SUM = _RedOpType.SUM
    AVG = _RedOpType.AVG
    PRODUCT = _RedOpType.PRODUCT
    MIN = _RedOpType.MIN
    MAX = _RedOpType.MAX
    BAND = _RedOpType.BAND
    BOR = _RedOpType.BOR
    BXOR = _RedOpType.BXOR
    PREMUL_SUM = _RedOpType.PREMUL_SUM

    def __init__(self, op: _RedOpType = _RedOpType.SUM) -> None:
        self.op = as_red_op_type(op)

    def __eq__(self, other) -> bool:
        if isinstance(other, ReduceOp):
            return self.op is other.op
        return self.op is other

    def __hash__(self) -> int:
        return hash(self.op)


def as_red_op_type(op) -> _RedOpType:
    """The RedOpType of ``op`` (a member or a ReduceOp); a TypeError for anything else, as torch's binding."""
    if isinstance(op, _RedOpType):
        return op
    if isinstance(op, ReduceOp):
        return op.op
    raise TypeError(f"op must be a torch.distributed.ReduceOp (such as ReduceOp.SUM), got {type(op).__name__} "
                    f"{op!r}")
