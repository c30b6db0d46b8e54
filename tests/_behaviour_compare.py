"""Compare a behaviour (value or error) between torch and retrograd; shared by the tests of several subjects."""

import numpy as np
import pytest

import retrograd as rg
from parity import torch_part

torch = pytest.importorskip("torch")


def raises_like(tfn, rfn):
    """Both calls raise the same exception type with the same message (retrograd. read as torch.)."""
    with pytest.raises(Exception) as te:
        tfn()
    with pytest.raises(Exception) as re_:
        rfn()
    assert type(re_.value).__name__ == type(te.value).__name__
    ours = torch_part(str(re_.value).replace("retrograd.", "torch."), str(te.value))
    assert ours == str(te.value), (str(re_.value), str(te.value))


def same(a, b, path="x"):
    """torch structure ``a`` and retrograd structure ``b`` hold the same things."""
    if isinstance(a, torch.Tensor):
        assert isinstance(b, rg.Tensor), path
        assert str(a.dtype).split(".")[1] == b.dtype.name, path
        np.testing.assert_array_equal(b.numpy(), a.numpy(), err_msg=path)
    elif isinstance(a, dict):
        assert type(a) is type(b) and list(a) == list(b), path
        for k in a:
            same(a[k], b[k], f"{path}[{k!r}]")
    elif isinstance(a, (list, tuple)):
        assert type(a) is type(b) and len(a) == len(b), (path, type(a), type(b))
        for i, (x, y) in enumerate(zip(a, b)):
            same(x, y, f"{path}[{i}]")
    else:
        assert type(a) is type(b) and a == b, (path, a, b)
