"""Specs for the fused nn ops of ``_ops/nn_fused.py`` (one node each, PyTorch's node names).

PyTorch has no second derivative for multi_margin_loss, multilabel_margin_loss and
embedding_bag, so those specs are first order here (tests/test_nn_fused_nodes.py runs
retrograd's own gradgradcheck on them); scale_grad_by_freq is no true derivative and is
covered there too.
"""
from ._spec import OpSpec, S, T


def _fixed(v):
    return T(kind="fixed", value=v)


PARAM = {"low": 0.5, "high": 2.0, "grad": False}  # class weights / pos_weight: no gradient in PyTorch
PM1 = [[1., -1, 1, 1], [-1, -1, 1, -1], [1, 1, -1, 1]]
MLM_T = [[0, 3, -1, 1], [1, -1, 0, 0], [2, 1, 0, 3]]
BAG_IDX = [1, 2, 4, 5, 4, 3, 2, 9]
BAG_OFF = [0, 4, 4]  # the middle bag is empty

SPECS = [
    OpSpec("nn.functional.layer_norm", [S(T((2, 3, 4)), (4,), T((4,)), T((4,))),
                                        S(T((2, 3, 4)), (3, 4)),
                                        S(T((3, 4)), [4], T((4,)), None, 1e-3),
                                        S(T((2, 3, 4)), (3, 4), T((3, 4)), None, 1e-2)]),
    OpSpec("nn.functional.group_norm", [S(T((2, 6, 3, 2)), 3, T((6,)), T((6,))),
                                        S(T((3, 6)), 2),
                                        S(T((2, 4, 5)), 4, T((4,)), None, 1e-3)]),
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
    OpSpec("nn.functional.embedding_bag", [S(_fixed(BAG_IDX), T((10, 3)), _fixed(BAG_OFF), mode="sum"),
                                           S(_fixed(BAG_IDX), T((10, 3)), _fixed(BAG_OFF)),
                                           S(_fixed(BAG_IDX), T((10, 3)), _fixed(BAG_OFF), mode="max"),
                                           S(_fixed(BAG_IDX), T((10, 3)), _fixed(BAG_OFF), mode="sum",
                                             per_sample_weights=T((8,))),
                                           S(_fixed([BAG_IDX[:4], BAG_IDX[4:]]), T((10, 3)), mode="mean",
                                             padding_idx=4),
                                           S(_fixed(BAG_IDX), T((10, 3)), _fixed([0, 3, 8]), mode="sum",
                                             include_last_offset=True, padding_idx=2)], gradgrad=False),
]
