"""Specs for src/retrograd/_ops/tensor_extras.py: in-place random fills, in-place view ops,
in-place comparisons and aliases, clamp_min/max, put, index_reduce, unfold, as_strided and
small top-level functions.  Random fills are also checked in tests/test_tensor_extras.py.
"""
from ._spec import OpSpec, S, T

POS = dict(low=0.5, high=2.0)
NOGRAD = T((2, 3), grad=False)


def _on_clone(name):
    """call(lib, x, *args): ``x.clone().<name>(*args)`` (in-place ops on a non-leaf)."""
    return lambda lib, x, *a, **k: getattr(x.clone(), name)(*a, **k)


_RANDOM = [
    ("uniform_", [S(NOGRAD), S(NOGRAD, -0.1, 0.1)]),
    ("normal_", [S(NOGRAD), S(NOGRAD, 1.0, 0.5)]),
    ("bernoulli_", [S(NOGRAD), S(NOGRAD, 0.3)]),
    ("random_", [S(NOGRAD), S(NOGRAD, 5), S(NOGRAD, 2, 7)]),
    ("exponential_", [S(NOGRAD), S(NOGRAD, 2.0)]),
    ("geometric_", [S(NOGRAD, 0.4)]),
    ("cauchy_", [S(NOGRAD), S(NOGRAD, 1.0, 2.0)]),
    ("log_normal_", [S(NOGRAD), S(NOGRAD, 0.0, 0.5)]),
]

SPECS = [OpSpec(n, s, call=_on_clone(n), grad=False, nondeterministic=True) for n, s in _RANDOM]

SPECS += [
    OpSpec("t_", [S(T((2, 3))), S(T((3,)))], call=_on_clone("t_"), check_grad_fn=False),
    OpSpec("transpose_", [S(T((2, 3)), 0, 1), S(T((2, 3, 4)), -1, 0)], call=_on_clone("transpose_"),
           check_grad_fn=False),
    OpSpec("swapaxes_", [S(T((2, 3)), 0, 1)], call=_on_clone("swapaxes_"), check_grad_fn=False),
    OpSpec("swapdims_", [S(T((2, 3)), 1, 0)], call=_on_clone("swapdims_"), check_grad_fn=False),
    OpSpec("squeeze_", [S(T((2, 1, 3))), S(T((2, 1, 3)), 1)], call=_on_clone("squeeze_"), check_grad_fn=False),
    OpSpec("unsqueeze_", [S(T((2, 3)), 1), S(T((2, 3)), -1)], call=_on_clone("unsqueeze_"), check_grad_fn=False),
    OpSpec("as_strided", [S(T((2, 3)), (2, 2), (1, 2)), S(T((6,)), (3,), (2,), 1), S(T((4,)), (2, 2), (1, 1))],
           method=True),
    OpSpec("as_strided_", [S(T((2, 3)), (3, 2), (1, 3))], call=_on_clone("as_strided_"), check_grad_fn=False),
    OpSpec("clamp_min", [S(T((2, 3)), 0.1), S(T((2, 3)), -0.5)], method=True, inplace="clamp_min_",
           check_grad_fn=False),
    OpSpec("clamp_max", [S(T((2, 3)), 0.1), S(T((2, 3)), -0.5)], method=True, inplace="clamp_max_",
           check_grad_fn=False),
    OpSpec("put", [S(T((2, 3)), T(kind="fixed", value=[0, 5, -2]), T((3,))),
                   S(T((2, 3)), T(kind="fixed", value=[1, 1, 4]), T((3,)), True)],
           method=True, inplace="put_", check_grad_fn=False),
    OpSpec("index_reduce", [S(T((3, 2), **POS), 0, T(kind="fixed", value=[0, 2, 0]), T((3, 2), **POS), "prod"),
                            S(T((3, 2)), 0, T(kind="fixed", value=[0, 2, 0]), T((3, 2)), "amax",
                              include_self=False),
                            S(T((2, 3)), 1, T(kind="fixed", value=[1, 1]), T((2, 2)), "mean"),
                            S(T((2, 3)), 1, T(kind="fixed", value=[2, 0]), T((2, 2)), "amin",
                              include_self=False),
                            S(T(()), 0, T(kind="fixed", value=[0]), T(()), "prod")],
           method=True, inplace="index_reduce_"),
    OpSpec("unfold", [S(T((5,)), 0, 2, 1), S(T((2, 5)), 1, 3, 2), S(T((3, 4)), 0, 2, 1), S(T((4, 2)), -2, 1, 3)],
           call=lambda lib, x, *a: x.unfold(*a), note="Tensor method only, as torch"),
    OpSpec("resize_as_", [S(T((2, 3), grad=False), T((3,), grad=False)),
                          S(T((2,), grad=False), T((2, 2), grad=False))],
           call=lambda lib, x, y: lib.resize_as_(x.clone(), y).reshape(-1)[:2], grad=False,
           note="the grown part is uninitialised in torch: only the kept elements are compared"),
    OpSpec("is_same_size", [S(T((2, 3)), T((2, 3))), S(T((2, 3)), T((3, 2)))], method=True, grad=False),
    OpSpec("is_nonzero", [S(T((1,))), S(T(()))], method=True, grad=False),
    OpSpec("conj", [S(T((2, 3)))], method=True),
    OpSpec("resolve_conj", [S(T((2, 3)))], method=True),
    OpSpec("resolve_neg", [S(T((2, 3)))], method=True),
    OpSpec("conj_physical", [S(T((2, 3)))], method=True),
    OpSpec("real", [S(T((2, 3)))]),
    OpSpec("split_with_sizes", [S(T((4, 3)), [1, 3]), S(T((2, 5)), [2, 3], 1)], method=True,
           check_grad_fn=False),
    OpSpec("unsafe_split", [S(T((5, 3)), 2), S(T((2, 5)), 3, 1)], method=True),
    OpSpec("unsafe_chunk", [S(T((5, 3)), 2), S(T((2, 6)), 3, 1)], method=True),
    OpSpec("unsafe_split_with_sizes", [S(T((5, 3)), [2, 3]), S(T((2, 5)), [1, 4], 1)], method=True),
    OpSpec("nonzero_static", [S(T((2, 3), kind="int", low=0, high=2), size=4),
                              S(T((3,), kind="int", low=0, high=2), size=1, fill_value=7)],
           method=True, grad=False),
    OpSpec("asarray", [S(T((2, 3))), S(T(kind="fixed", value=[1.0, 2.0]))], grad=False),
    OpSpec("range", [S(0, 1, 0.25), S(1, 4), S(2, -1, -0.5)], grad=False),
]

for _n in ("eq", "ne", "lt", "le", "gt", "ge", "greater", "greater_equal", "less", "less_equal", "not_equal"):
    SPECS.append(OpSpec(_n + "_", [S(T((2, 3)), T((2, 3))), S(T((2, 3)), 0.0)], call=_on_clone(_n + "_"),
                        grad=False))
for _n, _s in (("divide_", [S(T((2, 3)), T((2, 3), **POS)), S(T((2, 3)), 2.0)]),
               ("true_divide_", [S(T((2, 3)), T((3,), **POS))]),
               ("multiply_", [S(T((2, 3)), T((2, 3)))]),
               ("subtract_", [S(T((2, 3)), T((2, 3))), S(T((2, 3)), T((3,)), alpha=2)]),
               ("negative_", [S(T((2, 3)))]),
               ("absolute_", [S(T((2, 3)))]),
               ("square_", [S(T((2, 3)))])):
    SPECS.append(OpSpec(_n, _s, call=_on_clone(_n), check_grad_fn=False))
