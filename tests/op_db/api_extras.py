"""Specs for src/retrograd/_ops/api_extras.py: view-copy variants, function forms of detach/fill,
window functions, torch.gradient and top-level nn.functional aliases (torch's int reductions).
Copies are composed (view + clone), so their grad_fn (CloneBackward0) is not torch's
``<View>Backward0_copy``; windows, random paths and settings are also checked in tests/test_api_extras.py.
"""
from ._spec import OpSpec, S, T

X = T((2, 3))
POS = dict(low=0.2, high=2.0)


def _win(name):
    return lambda lib, *a, **k: getattr(lib, name)(*a, dtype=lib.float64, **k)


def _cf(name):
    return OpSpec(name, [], check_grad_fn=False)


SPECS = [
    OpSpec("alias_copy", [S(X)], check_grad_fn=False),
    OpSpec("diagonal_copy", [S(T((3, 4))), S(T((2, 3, 4)), 1, 0, 2)], check_grad_fn=False),
    OpSpec("expand_copy", [S(T((3, 1)), (3, 4)), S(T((3,)), (2, 3))], check_grad_fn=False),
    OpSpec("permute_copy", [S(T((2, 3, 4)), (2, 0, 1))], check_grad_fn=False),
    OpSpec("select_copy", [S(X, 0, 1), S(X, 1, -1)], check_grad_fn=False),
    OpSpec("slice_copy", [S(X), S(T((5, 2)), 0, 1, 4, 2), S(X, 1, -2)], check_grad_fn=False),
    OpSpec("split_copy", [S(T((5, 2)), 2), S(T((2, 5)), 3, 1)], check_grad_fn=False),
    OpSpec("split_with_sizes_copy", [S(T((5, 2)), [2, 3]), S(T((2, 5)), [1, 4], 1)], check_grad_fn=False),
    OpSpec("squeeze_copy", [S(T((2, 1, 3))), S(T((2, 1, 3)), 1)], check_grad_fn=False),
    OpSpec("t_copy", [S(X), S(T((3,)))], check_grad_fn=False),
    OpSpec("transpose_copy", [S(T((2, 3, 4)), 0, 2)], check_grad_fn=False),
    OpSpec("unbind_copy", [S(X), S(X, 1)], check_grad_fn=False),
    OpSpec("unfold_copy", [S(T((5,)), 0, 2, 1), S(T((2, 5)), 1, 3, 2)], check_grad_fn=False),
    OpSpec("unsqueeze_copy", [S(X, 1), S(X, -1)], check_grad_fn=False),
    OpSpec("view_copy", [S(X, (3, 2)), S(X, (-1,))], check_grad_fn=False),
    OpSpec("detach", [S(X)], grad=False),
    OpSpec("detach_", [S(X)], grad=False, call=lambda lib, x: lib.detach_(x.detach())),
    OpSpec("fill", [S(X, 2.5), S(X, T((), grad=False))], check_grad_fn=False, gradgrad=False),
    OpSpec("hann_window", [S(0), S(1), S(5), S(6, False)], call=_win("hann_window"), grad=False),
    OpSpec("hamming_window", [S(1), S(5), S(6, False), S(5, True, 0.3, 0.7)], call=_win("hamming_window"),
           grad=False),
    OpSpec("blackman_window", [S(1), S(5), S(6, False)], call=_win("blackman_window"), grad=False),
    OpSpec("bartlett_window", [S(1), S(5), S(6, False)], call=_win("bartlett_window"), grad=False),
    OpSpec("kaiser_window", [S(1), S(5), S(6, False, 3.0)], call=_win("kaiser_window"), grad=False),
    OpSpec("gradient", [S(T((5,))), S(T((4, 3)), spacing=2.0), S(T((4, 3)), dim=1, edge_order=2),
                        S(T((4, 3)), spacing=[0.5, 2.0]), S(T((3, 4)), dim=-1, spacing=0.3, edge_order=2)],
           check_grad_fn=False),
    OpSpec("binary_cross_entropy_with_logits", [S(X, T((2, 3), low=0, high=1, grad=False)),
                                                S(X, T((2, 3), low=0, high=1, grad=False), None, None, 2)]),
    OpSpec("kl_div", [S(X, T((2, 3), **POS)), S(X, X, 0, log_target=True), S(X, T((2, 3), **POS), 2)],
           check_grad_fn=False),
    OpSpec("hinge_embedding_loss", [S(X, T(kind="fixed", value=[[1., -1, 1], [-1, -1, 1]])),
                                    S(X, T(kind="fixed", value=[[1., -1, 1], [-1, -1, 1]]), 0.5, 0)],
           check_grad_fn=False),
    OpSpec("margin_ranking_loss", [S(T((4,)), T((4,)), T(kind="fixed", value=[1., -1, 1, -1])),
                                   S(T((4,)), T((4,)), T(kind="fixed", value=[1., -1, 1, -1]), 0.3, 2)],
           check_grad_fn=False),
    OpSpec("poisson_nll_loss", [S(X, T((2, 3), **POS, grad=False), True, False, 1e-8, 1),
                                S(T((2, 3), **POS), T((2, 3), **POS, grad=False), False, True, 1e-8, 0)],
           check_grad_fn=False),
    OpSpec("triplet_margin_loss", [S(T((3, 4)), T((3, 4)), T((3, 4))), S(T((3, 4)), T((3, 4)), T((3, 4)),
                                                                        0.5, 1.0, 1e-6, True, 0)],
           check_grad_fn=False, gradgrad=False),
    OpSpec("cosine_embedding_loss", [S(T((3, 4)), T((3, 4)), T(kind="fixed", value=[1., -1, 1])),
                                     S(T((3, 4)), T((3, 4)), T(kind="fixed", value=[1., -1, 1]), 0.2, 2)],
           check_grad_fn=False),
    OpSpec("prelu", [S(T((2, 3, 4)), T((3,))), S(T((2, 3)), T((1,)))]),
    OpSpec("rms_norm", [S(T((2, 3)), [3]), S(T((2, 3)), (2, 3), T((2, 3)), 1e-5)], check_grad_fn=False),
    OpSpec("pixel_unshuffle", [S(T((1, 2, 4, 4)), 2)], check_grad_fn=False),
    OpSpec("channel_shuffle", [S(T((1, 4, 2, 2)), 2)], check_grad_fn=False),
    OpSpec("alpha_dropout", [S(X, 0.5, False)], check_grad_fn=False),
    OpSpec("feature_alpha_dropout", [S(T((2, 3, 2)), 0.5, False)], check_grad_fn=False),
    OpSpec("feature_dropout", [S(T((2, 3, 2)), 0.5, False)], check_grad_fn=False),
]
