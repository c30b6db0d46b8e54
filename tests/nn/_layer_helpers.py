"""Output flattening and error comparison shared by the nn layer tests."""

import pytest

import retrograd as rg

torch = pytest.importorskip("torch")


def _flat(o):
    if isinstance(o, (tuple, list)):
        return [y for x in o for y in _flat(x)]
    return [o]


def _np(t):
    return t.detach().numpy()


def check_error(fn):
    """fn(lib) must raise the same exception type and text in both libraries."""
    with pytest.raises(Exception) as te:
        fn(torch)
    with pytest.raises(Exception) as re_:
        fn(rg)
    assert type(re_.value) is type(te.value)
    assert str(re_.value).replace("torch.Size", "torch.Size") == str(te.value)
