"""``retrograd.version``: the PyTorch API version retrograd follows, and retrograd's own version.

Client code checks ``torch.__version__`` to pick code paths (``>= "2.0"``,
``packaging.version.parse(torch.__version__)``), so ``__version__`` reports the PyTorch API
retrograd emulates ("2.13.0"), as a ``str`` that compares like PyTorch's ``TorchVersion``:
as a version against strings, tuples and ``packaging`` versions.  retrograd's own package
version is ``retrograd_version``.  There is no CUDA / ROCm build, so ``cuda`` and ``hip`` are None.

>>> import retrograd as torch
>>> torch.__version__ >= "2.0", torch.__version__ >= (2, 1), torch.version.cuda
(True, True, None)
"""
from __future__ import annotations

import re
from typing import Any

__all__ = ["__version__", "TorchVersion", "cuda", "hip", "rocm", "xpu", "debug", "git_version",
           "retrograd_version"]

# PEP 440, the parts client code meets: N(.N)*[{a|b|rc}N][.postN][.devN][+local].  (No packaging
# dependency: retrograd imports only NumPy and the standard library.)
_PEP440 = re.compile(
    r"^\s*v?(?:(?P<epoch>\d+)!)?(?P<release>\d+(?:\.\d+)*)"
    r"(?:[-_.]?(?P<pre_l>a|alpha|b|beta|c|rc|pre|preview)[-_.]?(?P<pre_n>\d*))?"
    r"(?:(?:-(?P<post_n1>\d+))|(?:[-_.]?(?P<post_l>post|rev|r)[-_.]?(?P<post_n2>\d*)))?"
    r"(?:[-_.]?(?P<dev_l>dev)[-_.]?(?P<dev_n>\d*))?"
    r"(?:\+(?P<local>[a-z0-9]+(?:[-_.][a-z0-9]+)*))?\s*$", re.IGNORECASE)
_PRE = {"a": 0, "alpha": 0, "b": 1, "beta": 1, "c": 2, "rc": 2, "pre": 2, "preview": 2}
_INF = float("inf")


class InvalidVersion(ValueError):
    """A string that is not a PEP 440 version (comparisons then fall back to ``str``)."""


def _key(text: str) -> tuple:
    """A sort key ordering versions as PEP 440 does (dev < pre < final < post)."""
    m = _PEP440.match(text)
    if m is None:
        raise InvalidVersion(f"Invalid version: '{text}'")
    release = [int(p) for p in m["release"].split(".")]
    while len(release) > 1 and release[-1] == 0:  # 2.13 == 2.13.0
        release.pop()
    pre = (_PRE[m["pre_l"].lower()], int(m["pre_n"] or 0)) if m["pre_l"] else None
    post = int(m["post_n1"] or m["post_n2"] or 0) if (m["post_n1"] or m["post_l"]) else None
    dev = int(m["dev_n"] or 0) if m["dev_l"] else None
    # final releases sort after their pre-releases; a lone dev release sorts before everything
    pre_key = pre if pre is not None else ((-_INF, 0) if dev is not None and post is None else (_INF, 0))
    local = tuple((0, int(p)) if p.isdigit() else (-1, p.lower())
                  for p in re.split(r"[-_.]", m["local"])) if m["local"] else ()
    return (int(m["epoch"] or 0), tuple(release), pre_key, -_INF if post is None else post,
            _INF if dev is None else dev, local)


def _other_key(other: Any) -> tuple:
    if isinstance(other, str):
        return _key(other)
    if hasattr(other, "release") and hasattr(other, "public"):  # a packaging.version.Version
        return _key(str(other))
    try:
        parts = list(other)
    except TypeError:
        raise InvalidVersion(other) from None
    return _key(".".join(str(p) for p in parts))


class TorchVersion(str):
    """A version string that compares as a version (against str, tuple or packaging Version).

    Strings that are not versions compare as plain strings, as PyTorch's ``TorchVersion`` does.

    >>> import retrograd as torch
    >>> v = torch.version.TorchVersion("2.13.0")
    >>> v > "2.9", v == (2, 13), v < (2, 13, 1)
    (True, True, True)
    """

    __slots__ = ()

    def _cmp(self, other: Any, method: str) -> bool:
        try:
            a, b = _key(self), _other_key(other)
        except InvalidVersion:
            return getattr(str, method)(self, other)
        return getattr(a, method)(b)

    def __eq__(self, other: Any) -> bool:
        return self._cmp(other, "__eq__")

    def __lt__(self, other: Any) -> bool:
        return self._cmp(other, "__lt__")

    def __le__(self, other: Any) -> bool:
        return self._cmp(other, "__le__")

    def __gt__(self, other: Any) -> bool:
        return self._cmp(other, "__gt__")

    def __ge__(self, other: Any) -> bool:
        return self._cmp(other, "__ge__")

    # (PyTorch overrides only these five: ``!=`` stays str's, and so does the hash)
    __ne__ = str.__ne__
    __hash__ = str.__hash__


__version__ = TorchVersion("2.13.0")
retrograd_version = "0.1.0"  # keep in step with pyproject.toml
git_version = "Unknown"  # (PyTorch records its commit here; retrograd is not built from a PyTorch tree)
cuda: str | None = None
hip: str | None = None
rocm: str | None = None
xpu: str | None = None
debug = False
