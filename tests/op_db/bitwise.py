"""Specs for the ops of ``retrograd._ops.bitwise``: bitwise_and/or/xor/not, shifts."""
from ._spec import OpSpec, S, T


INT = T((2, 3), kind="int", low=-9, high=9)
BOOL = T((2, 3), kind="bool")


def _op(f):
    """call(lib, *args) for Python operators."""
    return lambda lib, *a, **k: f(*a, **k)


SPECS = [
    OpSpec("gcd", [S(T((6,), kind="int", low=-20, high=20), T((6,), kind="int", low=-20, high=20))],
           method=True, inplace="gcd_", grad=False),
    OpSpec("lcm", [S(T((6,), kind="int", low=-20, high=20), T((6,), kind="int", low=-20, high=20))],
           method=True, inplace="lcm_", grad=False),
    # ------------------------------------------------------------ bitwise and operators
    OpSpec("bitwise_and", [S(INT, INT), S(INT, 6), S(BOOL, BOOL), S(BOOL, True)], method=True,
           inplace="bitwise_and_", grad=False),
    OpSpec("bitwise_and_scalar_self", [S(5, INT), S(True, BOOL)], torch_name="bitwise_and", grad=False,
           note="alias of bitwise_and", call=lambda lib, a, b: lib.bitwise_and(a, b)),
    OpSpec("bitwise_or", [S(INT, INT), S(INT, 6), S(BOOL, BOOL)], method=True, inplace="bitwise_or_", grad=False),
    OpSpec("bitwise_xor", [S(INT, INT), S(INT, 6), S(BOOL, BOOL)], method=True, inplace="bitwise_xor_", grad=False),
    OpSpec("bitwise_not", [S(INT), S(BOOL)], method=True, inplace="bitwise_not_", grad=False),
    OpSpec("bitwise_left_shift", [S(INT, T((2, 3), kind="int", low=0, high=8)), S(INT, 3),
                                  S(INT, T((2, 3), kind="int", low=-3, high=70)),
                                  S(T((2, 3), kind="int", low=0, high=255, dtype="uint8"), 3)],
           method=True, inplace="bitwise_left_shift_", grad=False),
    OpSpec("bitwise_right_shift", [S(INT, T((2, 3), kind="int", low=0, high=8)), S(INT, 1),
                                   S(INT, T((2, 3), kind="int", low=-3, high=70)),
                                   S(T((2, 3), kind="int", low=-100, high=100, dtype="int8"), 9)],
           method=True, inplace="bitwise_right_shift_", grad=False),
    OpSpec("and_operator", [S(INT, INT), S(BOOL, BOOL), S(INT, 3)], torch_name="bitwise_and", grad=False,
           call=_op(lambda a, b: a & b), note="alias of bitwise_and"),
    OpSpec("rand_operator", [S(INT, 3), S(BOOL, True)], torch_name="bitwise_and", grad=False,
           call=_op(lambda a, b: b & a), note="alias of bitwise_and"),
    OpSpec("or_operator", [S(INT, INT), S(BOOL, BOOL), S(INT, 3)], torch_name="bitwise_or", grad=False,
           call=_op(lambda a, b: (a | b, 3 | a)), note="alias of bitwise_or"),
    OpSpec("xor_operator", [S(INT, INT), S(BOOL, BOOL), S(INT, 3)], torch_name="bitwise_xor", grad=False,
           call=_op(lambda a, b: (a ^ b, 3 ^ a)), note="alias of bitwise_xor"),
    OpSpec("invert_operator", [S(INT), S(BOOL)], torch_name="bitwise_not", grad=False,
           call=_op(lambda a: ~a), note="alias of bitwise_not"),
    OpSpec("shift_operators", [S(INT, 2), S(INT, T((2, 3), kind="int", low=0, high=5))],
           torch_name="bitwise_left_shift", grad=False, call=_op(lambda a, b: (a << b, a >> b, 1 << a.abs() % 8)),
           note="alias of bitwise_left_shift"),
]
