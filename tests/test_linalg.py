"""The retrograd.linalg namespace: every name exists in torch and has an op_db spec, LinAlgError,
and functions torch removed."""
from __future__ import annotations

import pytest

import retrograd
import retrograd as rg

torch = pytest.importorskip("torch")

from op_db import all_specs  # noqa: E402

from ._error_compare import _err  # noqa: E402


torch.set_default_dtype(torch.float32)


def test_every_linalg_name_exists_in_torch_and_has_a_spec():
    specs = {s.name for s in all_specs()}
    for name in retrograd.linalg.__all__:
        assert hasattr(torch.linalg, name), name
        if name != "LinAlgError":
            assert f"linalg.{name}" in specs, name
    assert retrograd.linalg.LinAlgError.__mro__[1] is RuntimeError


def test_linalg_is_the_namespace_module():
    import retrograd.linalg as L

    assert retrograd.linalg is L and retrograd.linalg.inv is L.inv


@pytest.mark.parametrize("name", ["lstsq", "solve", "symeig", "eig"])
def test_removed_linalg_functions(name):
    x = retrograd.eye(2)
    r, t = _err(lambda: getattr(retrograd, name)(x, x), lambda: getattr(torch, name)(torch.eye(2), torch.eye(2)))
    assert r.split(". ")[0] == t.split(". ")[0] == "This function was deprecated since version 1.9 and is now removed"
    args = (x,) if name in ("lstsq", "solve") else ()
    targs = (torch.eye(2),) if args else ()
    r2, _ = _err(lambda: getattr(x, name)(*args), lambda: getattr(torch.eye(2), name)(*targs))
    assert r2 == r


def test_linalg_error_class_name_like_torch():
    def run(T):
        try:
            T.linalg.inv(T.zeros(2, 2))
        except T.linalg.LinAlgError as e:
            return type(e).__name__, isinstance(e, RuntimeError), repr(T.linalg.LinAlgError("x"))
    assert run(rg) == run(torch)
