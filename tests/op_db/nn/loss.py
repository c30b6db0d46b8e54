"""Specs for the ops of ``retrograd._ops.nn.loss``: mse, nll, smooth_l1/huber, bce (+ with logits),
soft/multi margin, kl_div, hinge, ranking, poisson_nll, triplet, cosine_embedding, ctc_loss."""
from .._spec import OpSpec, S, T


X = T((2, 3))
POS = dict(low=0.2, high=2.0)


def _fixed(v):
    return T(kind="fixed", value=v)


PARAM = {"low": 0.5, "high": 2.0, "grad": False}  # class weights / pos_weight: no gradient in PyTorch
PM1 = [[1., -1, 1, 1], [-1, -1, 1, -1], [1, 1, -1, 1]]
MLM_T = [[0, 3, -1, 1], [1, -1, 0, 0], [2, 1, 0, 3]]


SPECS = [
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
    OpSpec("nn.functional.binary_cross_entropy_with_logits",
           [S(T((3, 4), low=-4, high=4), T((3, 4), low=0, high=1)),
            S(T((3, 4), low=-4, high=4), T((3, 4), low=0, high=1), T((4,), **PARAM), reduction="sum",
              pos_weight=T((4,), **PARAM)),
            S(T((2, 3)), T((2, 3), low=0, high=1), reduction="none", pos_weight=T((3,), **PARAM)),
            S(T(()), T((), low=0, high=1))]),
    OpSpec("nn.functional.soft_margin_loss", [S(T((3, 4)), _fixed(PM1)),
                                              S(T((3, 4)), _fixed(PM1), reduction="none"),
                                              S(T((3, 4)), _fixed(PM1[0]), reduction="sum")]),
    OpSpec("nn.functional.multi_margin_loss", [S(T((3, 4)), _fixed([0, 3, 1])),
                                               S(T((3, 4)), _fixed([0, 3, 1]), 2, 0.7, T((4,), **PARAM),
                                                 reduction="none"),
                                               S(T((3, 4)), _fixed([2, 2, 0]), 1, 1.5, T((4,), **PARAM),
                                                 reduction="sum"),
                                               S(T((4,)), _fixed(2), 2)], gradgrad=False),
    OpSpec("nn.functional.multilabel_margin_loss", [S(T((3, 4)), _fixed(MLM_T)),
                                                    S(T((3, 4)), _fixed(MLM_T), reduction="none"),
                                                    S(T((3, 4)), _fixed(MLM_T), reduction="sum"),
                                                    S(T((4,)), _fixed([3, 0, -1, 1]))], gradgrad=False),
    OpSpec("nn.functional.mse_loss", [S(T((3, 4)), T((3, 4))), S(T((3, 4)), T((4,)), reduction="sum"),
                                      S(T((2, 3)), T((2, 3)), reduction="none")]),
    OpSpec("nn.functional.nll_loss", [S(T((4, 5)), _fixed([1, 0, 4, 2])),
                                      S(T((2, 3, 2, 2)), _fixed([[[0, 1], [2, 0]], [[1, 1], [2, 2]]]),
                                        reduction="sum"),
                                      S(T((5,)), _fixed(3), reduction="none")]),
    OpSpec("nn.functional.cross_entropy", [S(T((4, 5)), _fixed([1, 0, 4, 2])),
                                           S(T((4, 5)), _fixed([1, 0, 4, 2]), ignore_index=0, reduction="none")]),
]
