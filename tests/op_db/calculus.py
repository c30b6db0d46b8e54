"""Specs for the ops of ``retrograd._ops.calculus``: diff, gradient, trapezoid/trapz,
cumulative_trapezoid."""
from ._spec import OpSpec, S, T


NG = dict(check_grad_fn=False)


SPECS = [
    OpSpec("gradient", [S(T((5,))), S(T((4, 3)), spacing=2.0), S(T((4, 3)), dim=1, edge_order=2),
                        S(T((4, 3)), spacing=[0.5, 2.0]), S(T((3, 4)), dim=-1, spacing=0.3, edge_order=2)],
           check_grad_fn=False),
    OpSpec("diff", [S(T((3, 4))), S(T((3, 4)), 2, 0), S(T((3, 4)), 1, -1, T((3, 2)), T((3, 1))),
                    S(T((5,), kind="int", low=0, high=9))], method=True),
    OpSpec("trapezoid", [S(T((3, 4))), S(T((3, 4)), T((4,), kind="fixed", value=[0.0, 0.5, 1.5, 2.0])),
                         S(T((3, 4)), dx=0.5, dim=0), S(T((3, 4)), T((3, 4)))], **NG),
    OpSpec("trapz", [S(T((3, 4))), S(T((3, 4)), T((3, 4)), dim=0), S(T((4,)), dx=2.0)], **NG),
    OpSpec("cumulative_trapezoid", [S(T((3, 4))), S(T((3, 4)), T((4,), kind="fixed", value=[0.0, 0.5, 1.5, 2.0])),
                                    S(T((3, 4)), dx=0.5, dim=0)], **NG),
]
