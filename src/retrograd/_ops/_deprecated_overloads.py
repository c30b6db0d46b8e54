"""PyTorch's deprecated "scalar first" overloads: ``x.add_(-lr, g)``, ``torch.addcmul(t, 0.5, a, b)``.

Old client code (and many tutorials) passes ``alpha`` / ``value`` positionally before the
tensors.  PyTorch still accepts these forms, warning once per process that they are
deprecated; :func:`scalar_first` checks such a call, warns like PyTorch, and returns the
scalar so the op can run its modern form.

>>> import warnings
>>> import retrograd as torch
>>> with warnings.catch_warnings():
...     warnings.simplefilter("ignore")
...     torch.ones(2).add_(-0.5, torch.tensor([2., 4.]))
tensor([ 0., -1.])
"""
from __future__ import annotations

import numbers
import warnings

import numpy as np

from .._tensor import Tensor

NO_ARG = object()  # default of the extra positional parameter: "the modern form was used"

# name -> (deprecated parameters, modern parameters), as the method's signature reads
_SIGNATURES = {
    "add": ("Number alpha, Tensor other", "Tensor other, *, Number alpha = 1"),
    "sub": ("Number alpha, Tensor other", "Tensor other, *, Number alpha = 1"),
    "addcmul": ("Number value, Tensor tensor1, Tensor tensor2", "Tensor tensor1, Tensor tensor2, *, Number value = 1"),
    "addcdiv": ("Number value, Tensor tensor1, Tensor tensor2", "Tensor tensor1, Tensor tensor2, *, Number value = 1"),
}
_warned = [False]  # PyTorch warns once per process (TORCH_WARN_ONCE), whichever overload comes first


def _is_number(v) -> bool:
    if isinstance(v, Tensor):
        return v.ndim == 0
    return isinstance(v, (numbers.Number, np.bool_)) and not isinstance(v, complex)


def scalar_first(name: str, method: bool, scalar, rest: tuple, keyword_given: bool, stacklevel: int = 3):
    """Check a deprecated ``name(scalar, *rest)`` call; warn (once) and return the scalar.

    ``method``: called as a Tensor method (PyTorch's messages do not count ``self`` then).
    ``keyword_given``: the modern keyword (``alpha=`` / ``value=``) was passed as well, which
    no overload accepts.
    """
    nparams = len(rest) + (0 if method else 1)  # positional parameters of the modern form
    if keyword_given or not _is_number(scalar):
        s = "" if nparams == 1 else "s"
        raise TypeError(f"{name}() takes {nparams} positional argument{s} but {nparams + 1} were given")
    if not _warned[0]:
        _warned[0] = True
        old, new = _SIGNATURES[name.rstrip("_")]
        if not method:
            old, new = f"Tensor input, {old}, *, Tensor out = None", f"Tensor input, {new}, Tensor out = None"
        warnings.warn(f"This overload of {name} is deprecated:\n\t{name}({old})\nConsider using one of the "
                      f"following signatures instead:\n\t{name}({new}) (Triggered internally at "
                      "/__w/pytorch/pytorch/torch/csrc/utils/python_arg_parser.cpp:1841.)", UserWarning,
                      stacklevel=stacklevel)
    return scalar.item() if isinstance(scalar, Tensor) else scalar
