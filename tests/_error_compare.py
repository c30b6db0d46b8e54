"""Compare the error raised by torch and retrograd; shared by the tests of several subjects."""

import numpy as np
import pytest


def _np(t):
    return t.detach().numpy() if hasattr(t, "detach") else np.asarray(t)


def _err(fn_r, fn_t):
    with pytest.raises(Exception) as er:
        fn_r()
    with pytest.raises(Exception) as et:
        fn_t()
    assert type(er.value).__name__ == type(et.value).__name__
    return str(er.value), str(et.value)
