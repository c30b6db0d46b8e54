"""Tests of the diagonal ops (src/retrograd/_ops/diagonal.py), checked against PyTorch."""

import pytest

import retrograd

torch = pytest.importorskip("torch")
from ._differential_helpers import assert_same_layout  # noqa: E402


def test_type_checks_and_tri_indices_errors_like_torch():
    def run(T):
        out = []
        for f in (lambda: T.is_floating_point(1.0), lambda: T.is_nonzero(1), lambda: T.is_complex(1.0),
                  lambda: T.is_complex(T.ones(1)), lambda: T.tril_indices(3, 3, dtype=T.float32),
                  lambda: T.tril_indices(-1, 3), lambda: T.triu_indices(3, -2),
                  lambda: T.triu_indices(3, 3, dtype=T.int32).tolist()):
            try:
                out.append(f())
            except (TypeError, RuntimeError, NotImplementedError) as e:
                out.append((type(e).__name__, str(e)))
        return out

    assert run(retrograd) == run(torch)


# ---- found by the differential fuzzer (tests/fuzz)
@pytest.mark.parametrize("op", [lambda L, x: x.tril(), lambda L, x: x.triu(1)])
def test_tril_triu_results_are_contiguous(op):
    assert_same_layout(op)
