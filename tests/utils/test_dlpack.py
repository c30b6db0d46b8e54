"""retrograd.utils.dlpack and the top-level from_dlpack, against torch."""

import pytest

import retrograd

torch = pytest.importorskip("torch")


# ------------------------------------------------------------------ dlpack, flush denormal
def test_dlpack_top_level_round_trip_with_torch():
    x = retrograd.arange(4.)
    t = torch.from_dlpack(retrograd.to_dlpack(x))
    t[0] = 7.
    assert x[0].item() == 7.
    y = retrograd.from_dlpack(torch.arange(3.))
    assert y.tolist() == [0., 1., 2.]
