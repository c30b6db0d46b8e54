"""Specs for the core ops (issue 2): arithmetic, basic unary, sum/mean, matmul, views."""
from ._spec import OpSpec, S, T

POS = dict(low=0.5, high=2.0)


def _op(f):
    """call(lib, *args) for Python operators."""
    return lambda lib, *a, **k: f(*a, **k)


SPECS = [
    OpSpec("add", [S(T((2, 3)), T((2, 3))), S(T((2, 3)), T((3,))), S(T((2,)), 2.5), S(T((2, 2)), T((2, 2)), alpha=3)],
           method=True, inplace="add_", broadcast=True),
    OpSpec("sub", [S(T((2, 3)), T((2, 3))), S(T((3, 1)), T((3,))), S(T((2,)), 1.5), S(T((2,)), T((2,)), alpha=2)],
           method=True, inplace="sub_", broadcast=True),
    OpSpec("mul", [S(T((2, 3)), T((2, 3))), S(T((2, 1)), T((1, 3))), S(T((3,)), 2.0)],
           method=True, inplace="mul_", broadcast=True),
    OpSpec("div", [S(T((2, 3)), T((2, 3), **POS)), S(T((3,)), T((2, 1), **POS)), S(T((3,)), 4.0)],
           method=True, inplace="div_", broadcast=True),
    OpSpec("neg", [S(T((2, 3)))], method=True, inplace="neg_"),
    OpSpec("pow", [S(T((2, 3), **POS), T((2, 3))), S(T((3,)), 2), S(T((3,)), 3.0), S(T((2,), **POS), 0.5)],
           method=True, inplace="pow_"),
    OpSpec("rpow", [S(2.0, T((3,)))], torch_name="pow", call=lambda lib, a, b: a ** b, note="alias of rsub"),
    OpSpec("rsub", [S(T((3,)), 2.0)], call=_op(lambda a, b: b - a)),
    OpSpec("sqrt", [S(T((2, 3), **POS))], method=True, inplace="sqrt_"),
    OpSpec("exp", [S(T((2, 3)))], method=True, inplace="exp_"),
    OpSpec("log", [S(T((2, 3), **POS))], method=True, inplace="log_"),
    OpSpec("sin", [S(T((2, 3)))], method=True, inplace="sin_"),
    OpSpec("cos", [S(T((2, 3)))], method=True, inplace="cos_"),
    OpSpec("tan", [S(T((2, 3), low=-1, high=1))], method=True, inplace="tan_"),
    OpSpec("tanh", [S(T((2, 3)))], method=True, inplace="tanh_"),
    OpSpec("sigmoid", [S(T((2, 3), low=-5, high=5))], method=True, inplace="sigmoid_"),
    OpSpec("relu", [S(T((2, 3)))], method=True, inplace="relu_"),
    OpSpec("abs", [S(T((2, 3)))], method=True, inplace="abs_"),
    OpSpec("sum", [S(T((2, 3))), S(T((2, 3)), 1), S(T((2, 3, 2)), (0, 2), keepdim=True), S(T((2, 3)), -1)], method=True),
    OpSpec("mean", [S(T((2, 3))), S(T((2, 3)), 0), S(T((2, 3, 2)), (1, 2), keepdim=True)], method=True),
    OpSpec("matmul", [S(T((3,)), T((3,))), S(T((2, 3)), T((3,))), S(T((3,)), T((3, 2))), S(T((2, 3)), T((3, 4))),
                      S(T((2, 2, 3)), T((2, 3, 2))), S(T((2, 2, 3)), T((3, 2)))],
           method=True),
    # PyTorch routes this broadcast case through a transpose; the grad_fn name differs, values don't.
    OpSpec("matmul_broadcast_batch", [S(T((1, 2, 3)), T((2, 3, 1))), S(T((2, 3)), T((2, 3, 2)))],
           torch_name="matmul",
           call=lambda lib, a, b: a @ b, check_grad_fn=False, note="alias of matmul"),
    OpSpec("mm", [S(T((2, 3)), T((3, 2)))], method=True),
    OpSpec("mv", [S(T((2, 3)), T((3,)))], method=True),
    OpSpec("dot", [S(T((3,)), T((3,)))], method=True),
    OpSpec("bmm", [S(T((2, 2, 3)), T((2, 3, 2)))], method=True),
    OpSpec("outer", [S(T((3,)), T((2,)))], method=True),
    OpSpec("reshape", [S(T((2, 3)), (3, 2)), S(T((2, 3)), (-1,))], method=True),
    OpSpec("view", [S(T((2, 3)), 6), S(T((2, 3)), 3, -1)], call=lambda lib, x, *s: x.view(*s)),
    OpSpec("view_as", [S(T((2, 3)), T((3, 2), grad=False))], call=lambda lib, x, y: x.view_as(y)),
    OpSpec("reshape_as", [S(T((2, 3)), T((6,), grad=False))], call=lambda lib, x, y: x.reshape_as(y)),
    OpSpec("transpose", [S(T((2, 3)), 0, 1), S(T((2, 3, 4)), -1, 0)], method=True),
    OpSpec("swapaxes", [S(T((2, 3)), 0, 1)], method=True),
    OpSpec("swapdims", [S(T((2, 3)), 0, 1)], method=True),
    OpSpec("t", [S(T((2, 3))), S(T((3,)))], method=True),
    OpSpec("adjoint", [S(T((2, 3))), S(T((2, 3, 4)))], method=True),
    OpSpec("permute", [S(T((2, 3, 4)), (2, 0, 1))], method=True),
    OpSpec("movedim", [S(T((2, 3, 4)), 0, 2)], method=True),
    OpSpec("moveaxis", [S(T((2, 3, 4)), (0, 1), (2, 0))], method=True),
    OpSpec("expand", [S(T((3, 1)), 3, 4), S(T((3,)), (2, 3))], call=lambda lib, x, *s: x.expand(*s)),
    OpSpec("expand_as", [S(T((3, 1)), T((2, 3, 4), grad=False))], call=lambda lib, x, y: x.expand_as(y)),
    OpSpec("unsqueeze", [S(T((2, 3)), 1), S(T((2, 3)), -1)], method=True),
    OpSpec("squeeze", [S(T((2, 1, 3))), S(T((2, 1, 3)), 1), S(T((1, 2, 1)), (0, 2))], method=True),
    OpSpec("flatten", [S(T((2, 3, 2))), S(T((2, 3, 2)), 1)], method=True),
    OpSpec("contiguous", [S(T((2, 3)))], call=lambda lib, x: x.t().contiguous()),
    OpSpec("select", [S(T((2, 3)), 1, 2)], method=True),
    OpSpec("narrow", [S(T((4, 3)), 0, 1, 2)], method=True),
    OpSpec("clone", [S(T((2, 3)))], method=True),
    OpSpec("square", [S(T((2, 3)))], method=True),
    OpSpec("reciprocal", [S(T((2, 3), **POS))], method=True, inplace="reciprocal_"),
    OpSpec("sign", [S(T((2, 3)))], method=True, inplace="sign_"),
    OpSpec("clamp", [S(T((2, 3)), -0.5, 0.5), S(T((2, 3)), min=0.1), S(T((2, 3)), max=0.3)], method=True,
           inplace="clamp_"),
    OpSpec("clip", [S(T((2, 3)), -0.5, 0.5)], method=True, inplace="clip_"),
    OpSpec("where", [S(T((2, 3), kind="bool"), T((2, 3)), T((2, 3))), S(T((3,), kind="bool"), T((2, 3)), 0.0)]),
    OpSpec("getitem_basic", [S(T((4, 3)))], call=lambda lib, x: x[1:, 0], note="alias of getitem"),
    OpSpec("getitem_steps", [S(T((5, 4)))], call=lambda lib, x: x[::2, None, ..., -1], note="alias of getitem"),
    OpSpec("getitem_adv", [S(T((4, 3)))], call=lambda lib, x: x[[0, 2, 2]], note="alias of getitem"),
    OpSpec("getitem_mask", [S(T((4, 3)))], call=lambda lib, x: x[x > 0], note="alias of getitem"),
]
SPECS.append(OpSpec("nonzero", [S(T((3, 4), kind="int", low=0, high=2)), S(T((5,), kind="int", low=0, high=2))],
                    method=True, grad=False))
for _n in ("eq", "ne", "lt", "le", "gt", "ge"):
    SPECS.append(OpSpec(_n, [S(T((2, 3)), T((2, 3))), S(T((2, 3)), 0.0)], method=True, grad=False, broadcast=False))
for _n, _a in (("greater", "gt"), ("greater_equal", "ge"), ("less", "lt"), ("less_equal", "le"),
               ("not_equal", "ne")):
    SPECS.append(OpSpec(_n, [S(T((2, 3)), T((2, 3)))], method=True, grad=False))
for _n, _a in (("subtract", "sub"), ("multiply", "mul"), ("divide", "div"), ("true_divide", "div"),
               ("negative", "neg"), ("absolute", "abs")):
    SPECS.append(OpSpec(_n, [S(T((2, 3), low=0.5, high=2), T((2, 3), low=0.5, high=2))] if _a not in ("neg", "abs")
                        else [S(T((2, 3)))], method=True))
