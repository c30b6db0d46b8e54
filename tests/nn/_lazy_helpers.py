"""Error comparison and array helpers shared by the lazy-module, SyncBatchNorm, CrossMapLRN2d and adaptive-softmax tests."""

import pytest

torch = pytest.importorskip("torch")


tnn = torch.nn


def A(t):
    return t.detach().numpy()


def same_error(fr, ft):
    """Both raise the same exception type with the same message; returns the message."""
    with pytest.raises(Exception) as et:
        ft()
    with pytest.raises(Exception) as er:
        fr()
    assert type(er.value).__name__ == type(et.value).__name__
    assert str(er.value) == str(et.value).replace("torch.Size", "torch.Size")
    return str(er.value)
