"""Cases written as expressions in ``T`` (torch or retrograd), run in both libraries and compared."""

import pytest

import retrograd

torch = pytest.importorskip("torch")


def _pair(make):
    return make(torch), make(retrograd)


def _same_error(fn_src):
    """Run ``fn_src`` (an expression in ``T``) in both libraries: same exception type and text."""
    errs = []
    for lib in (torch, retrograd):
        try:
            eval(fn_src, {"T": lib})
        except Exception as e:  # noqa: BLE001 - we compare whatever each raises
            errs.append((type(e), str(e)))
        else:
            errs.append(None)
    assert errs[0] is not None, f"torch did not raise for {fn_src}"
    assert errs[1] is not None, f"retrograd did not raise for {fn_src}"
    assert errs[0][0] is errs[1][0], (fn_src, errs)
    assert errs[0][1] == errs[1][1], (fn_src, errs)


I = "T.tensor([1, -2, 2])"


B = "T.tensor([True, False])"


F = "T.tensor([1., 2.])"


FG = "T.tensor([1., 2.], requires_grad=True)"
