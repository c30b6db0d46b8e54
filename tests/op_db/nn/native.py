"""Specs for the ops of ``retrograd.nn._native``: ``torch.*`` entry points of nn ops:
native_layer_norm, native_batch_norm, native_group_norm, native_dropout, native_channel_shuffle,
convolution, embedding_bag, ctc_loss, grid_sampler*, affine_grid_generator."""
from .._spec import OpSpec, S, T


def _fixed(v):
    return T(kind="fixed", value=v)


BAG_IDX = [1, 2, 4, 5, 4, 3, 2, 9]
BAG_OFF = [0, 4, 4]  # the middle bag is empty
IDX = T(kind="fixed", value=[1, 2, 4, 5, 4, 3])
OFF = T(kind="fixed", value=[0, 3])
GRID = T((1, 2, 3, 2), low=-1.1, high=1.1)


def _seeded(lib, x, p, train):
    lib.manual_seed(0)
    return lib.native_dropout(x, p, train)


def _ctc(lib, x, *args):
    return lib.ctc_loss(x.log_softmax(2), *args)


SPECS = [
    OpSpec("nn.functional.embedding_bag", [S(_fixed(BAG_IDX), T((10, 3)), _fixed(BAG_OFF), mode="sum"),
                                           S(_fixed(BAG_IDX), T((10, 3)), _fixed(BAG_OFF)),
                                           S(_fixed(BAG_IDX), T((10, 3)), _fixed(BAG_OFF), mode="max"),
                                           S(_fixed(BAG_IDX), T((10, 3)), _fixed(BAG_OFF), mode="sum",
                                             per_sample_weights=T((8,))),
                                           S(_fixed([BAG_IDX[:4], BAG_IDX[4:]]), T((10, 3)), mode="mean",
                                             padding_idx=4),
                                           S(_fixed(BAG_IDX), T((10, 3)), _fixed([0, 3, 8]), mode="sum",
                                             include_last_offset=True, padding_idx=2)], gradgrad=False),
    OpSpec("native_layer_norm", [S(T((2, 3, 4)), [4], T((4,)), T((4,)), 1e-5),
                                 S(T((2, 3, 4)), [3, 4], None, None, 1e-5)], check_grad_fn=False),
    OpSpec("native_batch_norm", [S(T((4, 3, 5)), T((3,)), T((3,)), None, None, True, 0.1, 1e-5),
                                 S(T((4, 3)), None, None, T((3,), grad=False), T((3,), low=0.5, grad=False),
                                   False, 0.1, 1e-5)], check_grad_fn=False),
    OpSpec("native_group_norm", [S(T((2, 6, 5)), T((6,)), T((6,)), 2, 6, 5, 3, 1e-5),
                                 S(T((2, 4)), None, None, 2, 4, 1, 2, 1e-5)], check_grad_fn=False),
    OpSpec("native_dropout", [S(T((2, 5)), 0.5, False), S(T((2, 5)), 0.4, True), S(T((6,), grad=False), 0.3, None)],
           call=_seeded, check_grad_fn=False),
    OpSpec("native_channel_shuffle", [S(T((1, 4, 2, 2), grad=False), 2)], check_grad_fn=False),
    OpSpec("convolution", [S(T((1, 2, 5)), T((3, 2, 2)), None, [1], [0], [1], False, [0], 1),
                           S(T((1, 2, 4, 4)), T((2, 3, 2, 2)), T((3,)), [2, 2], [1, 1], [1, 1], True, [1, 1], 1),
                           S(T((1, 2, 3, 3, 3)), T((4, 1, 2, 2, 2)), None, [1, 1, 1], [1, 1, 1], [1, 1, 1], False,
                             [0, 0, 0], 2)], check_grad_fn=False),
    OpSpec("embedding_bag", [S(T((10, 3)), IDX, OFF, False, 0), S(T((10, 3)), IDX, OFF, False, 1),
                             S(T((10, 3)), IDX, OFF, False, 2),
                             S(T((10, 3)), IDX, T(kind="fixed", value=[0, 3, 6]), False, 1, False, None, True, 4),
                             S(T((10, 3)), IDX, OFF, False, 0, False, T((6,), grad=False))], check_grad_fn=False),
    OpSpec("ctc_loss", [S(T((5, 2, 4)), T(kind="fixed", value=[[1, 2], [1, 1]]), [5, 4], [2, 1]),
                        S(T((5, 2, 4)), T(kind="fixed", value=[[1, 2], [1, 1]]), [5, 5], [2, 2], 0, 1),
                        S(T((5, 2, 4)), T(kind="fixed", value=[[1, 2], [3, 1]]), [5, 5], [2, 2], 0, 2)],
           call=_ctc, check_grad_fn=False, gradgrad=False),
    OpSpec("grid_sampler", [S(T((1, 2, 4, 5)), GRID, 0, 0, False), S(T((1, 2, 4, 5)), GRID, 0, 2, True),
                            S(T((1, 1, 2, 2, 2)), T((1, 1, 2, 2, 3), low=-1, high=1), 0, 1, False)],
           check_grad_fn=False, gradgrad=False),
    OpSpec("grid_sampler_2d", [S(T((1, 2, 4, 5)), GRID, 0, 1, False), S(T((1, 2, 4, 5)), GRID, 2, 0, True)],
           check_grad_fn=False, gradgrad=False),
    OpSpec("grid_sampler_3d", [S(T((1, 1, 3, 3, 3)), T((1, 2, 2, 2, 3), low=-1, high=1), 0, 0, False)],
           check_grad_fn=False, gradgrad=False),
    OpSpec("affine_grid_generator", [S(T((1, 2, 3)), [1, 1, 3, 4], False), S(T((2, 3, 4)), [2, 1, 2, 3, 2], True)],
           check_grad_fn=False),
]
