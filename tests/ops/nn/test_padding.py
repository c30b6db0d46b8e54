"""Tests of the padding ops (src/retrograd/_ops/nn/padding.py), checked against PyTorch."""

import pytest

import retrograd as rg

torch = pytest.importorskip("torch")
from .._differential_helpers import assert_same_derivatives  # noqa: E402
from parity import same_error  # noqa: E402


@pytest.mark.parametrize("mode,shape", [("reflect", (2, 3, 4)), ("replicate", (1, 2, 3, 4))])
def test_pad_modes_node_names(mode, shape):
    pad = (1, 2) if len(shape) == 3 else (2, 1, 1, 0)
    names = []
    for lib in (torch, rg):
        x = lib.ones(shape, requires_grad=True)
        names.append(type(lib.nn.functional.pad(x, pad, mode=mode).grad_fn).__name__)
    assert names[0] == names[1]


def test_pad_reflect_int_and_empty():
    for lib_args in ((torch.arange(10).reshape(2, 5), rg.arange(10).reshape(2, 5)),):
        a, b = (lib.nn.functional.pad(x, (2, 1), mode="reflect") for lib, x in zip((torch, rg), lib_args))
        assert a.tolist() == b.tolist()
    a = torch.nn.functional.pad(torch.zeros(0, 3, 3), (1, 1), mode="replicate")
    b = rg.nn.functional.pad(rg.zeros(0, 3, 3), (1, 1), mode="replicate")
    assert tuple(a.shape) == tuple(b.shape)


# ---- found by the differential fuzzer (tests/fuzz)
@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular", "constant"])
def test_pad_backward_has_no_nan_where_nothing_infinite_was_read(mode):
    # sqrt'(0) = inf at the first entry; the others must keep finite gradients (no 0 * inf)
    for pad in ((2, 2), (1, 2, 0, 1)):
        assert_same_derivatives(lambda L, x: L.nn.functional.pad(x, pad, mode=mode).sqrt(), [[[0.0, 1.0, 2.0], [4.0, 0.5, 9.0]]])


@pytest.mark.parametrize("mode", ["reflect", "replicate"])
@pytest.mark.parametrize("shape, pad", [((0, 3), (1, 1)), ((2, 0, 3), (1, 1)), ((1, 0, 3, 3), (1, 1, 1, 1))])
def test_reflect_replicate_pad_of_empty_non_batch_dims_message(mode, shape, pad):
    same_error(lambda L: L.nn.functional.pad(L.zeros(shape), pad, mode=mode))


def test_zero_padding_copies_in_the_input_layout():
    out = [L.nn.functional.pad(L.zeros(2, 3).t(), (0, 0)).stride() for L in (rg, torch)]
    assert out[0] == out[1]
