"""Tensor repr/str formatting that is byte-identical to PyTorch's.

The output of ``format_tensor`` reproduces ``repr(torch_tensor)`` exactly, dtype
names included (``dtype=torch.float64``).  PyTorch's algorithm has several
quirks (column widths computed only from nonzero finite values, an off-by-two
line length in the suffix wrapping, ``...`` spelled differently for vectors and
for higher dimensions); they are kept on purpose, because byte-identical output is the contract.

Only NumPy and the standard library are imported so that this module can be
used (and tested) independently of the Tensor class.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
from typing import Any, Iterator

import numpy as np

__all__ = ["format_tensor", "set_printoptions", "get_printoptions", "printoptions"]


# --------------------------------------------------------------------------
# Print options (mirrors torch.set_printoptions / torch.get_printoptions)
# --------------------------------------------------------------------------


@dataclasses.dataclass
class _PrintOptions:
    """Mutable global print options; defaults are torch's "default" profile."""

    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: bool | None = None


_OPTS = _PrintOptions()

# (precision, threshold, edgeitems, linewidth) for each named profile.
_PROFILES: dict[str, tuple[int, float, int, int]] = {
    "default": (4, 1000, 3, 80),
    "short": (2, 1000, 2, 80),
    "full": (4, math.inf, 3, 80),
}


def set_printoptions(
    precision: int | None = None,
    threshold: float | None = None,
    edgeitems: int | None = None,
    linewidth: int | None = None,
    profile: str | None = None,
    sci_mode: bool | None = None,
) -> None:
    """Set global printing options, with the same semantics as torch.

    A ``profile`` ("default", "short", "full") is applied first and the
    explicit arguments override it.  An unknown profile name is ignored, as in
    torch.  ``sci_mode`` is *always* assigned (``None`` means automatic), so
    any call without ``sci_mode`` resets it to automatic -- torch does this too.
    """
    if profile in _PROFILES:
        (_OPTS.precision, _OPTS.threshold, _OPTS.edgeitems, _OPTS.linewidth) = _PROFILES[profile]
    if precision is not None:
        _OPTS.precision = precision
    if threshold is not None:
        _OPTS.threshold = threshold
    if edgeitems is not None:
        _OPTS.edgeitems = edgeitems
    if linewidth is not None:
        _OPTS.linewidth = linewidth
    _OPTS.sci_mode = sci_mode


def get_printoptions() -> dict[str, Any]:
    """Return the current options as a dict accepted by ``set_printoptions``."""
    return dataclasses.asdict(_OPTS)


@contextlib.contextmanager
def printoptions(**kwargs: Any) -> Iterator[None]:
    """Temporarily change print options (same arguments as set_printoptions)."""
    saved = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**saved)


# --------------------------------------------------------------------------
# Element formatting
# --------------------------------------------------------------------------


class _ElementFormatter:
    """Decides how every element of one tensor is rendered and its column width.

    The decision is made once from ``sample`` (the whole tensor, or only the
    visible edge items when summarising) so that all columns line up.
    """

    def __init__(self, sample: np.ndarray) -> None:
        self.is_float = sample.dtype.kind == "f"
        self.int_mode = True  # floats that are all integral print as "1."
        self.sci_mode = False
        self.width = 1
        flat = sample.reshape(-1)

        if not self.is_float:
            for value in flat.tolist():
                self.width = max(self.width, len(f"{value}"))
            return

        # Only nonzero finite values drive the mode and the width; nan, inf
        # and zeros are then simply padded (or overflow) to that width.
        finite = flat[np.isfinite(flat) & (flat != 0)]
        if finite.size == 0:
            return
        magnitude = np.abs(finite).astype(np.float64)  # float16 overflows at 1e8
        lo, hi = magnitude.min(), magnitude.max()
        self.int_mode = bool(np.all(finite == np.ceil(finite)))
        if _OPTS.sci_mode is None:
            with np.errstate(over="ignore"):  # e.g. 1e300 / 1e-300 -> inf is fine
                ratio = hi / lo
            self.sci_mode = bool(ratio > 1000.0 or hi > 1.0e8 or lo < 1.0e-4)
        else:
            self.sci_mode = bool(_OPTS.sci_mode)

        precision = _OPTS.precision
        for value in finite.tolist():
            if self.sci_mode:
                text_len = len(f"{value:.{precision}e}")
            elif self.int_mode:
                text_len = len(f"{value:.0f}") + 1  # room for the trailing "."
            else:
                text_len = len(f"{value:.{precision}f}")
            self.width = max(self.width, text_len)

    def format(self, value: Any) -> str:
        """Render one Python scalar, right-aligned to the column width."""
        if not self.is_float:
            text = f"{value}"
        elif self.sci_mode:
            text = f"{value:{self.width}.{_OPTS.precision}e}"
        elif self.int_mode:
            text = f"{value:.0f}"
            if math.isfinite(value):
                text += "."  # mark the tensor as floating point
        else:
            text = f"{value:.{_OPTS.precision}f}"
        return text.rjust(self.width)


# --------------------------------------------------------------------------
# Layout of nested brackets
# --------------------------------------------------------------------------


def _summarized(data: np.ndarray) -> np.ndarray:
    """The elements that remain visible after ``...`` summarisation.

    Used only to size the columns, so hidden values do not widen them.
    """
    edge = _OPTS.edgeitems
    if data.ndim == 0:
        return data
    if data.ndim == 1:
        if data.shape[0] <= 2 * edge:
            return data
        # With edge == 0 ``data[-0:]`` is the whole vector; torch behaves the
        # same and the result is irrelevant then (the vector prints as [...]).
        return np.concatenate((data[:edge], data[-edge:]))
    if not edge:
        return data[tuple(slice(0, 0) for _ in data.shape)]
    keep = [
        np.arange(n) if n <= 2 * edge else np.r_[0:edge, n - edge : n] for n in data.shape
    ]
    return data[np.ix_(*keep)]


def _format_vector(data: np.ndarray, indent: int, summarize: bool, fmt: _ElementFormatter) -> str:
    """Format a 1-d array, wrapping it into lines that fit the line width."""
    edge = _OPTS.edgeitems
    if summarize and not edge:
        items = ["..."]
    elif summarize and data.shape[0] > 2 * edge:
        items = (
            [fmt.format(v) for v in data[:edge].tolist()]
            + [" ..."]
            + [fmt.format(v) for v in data[-edge:].tolist()]
        )
    else:
        items = [fmt.format(v) for v in data.tolist()]

    # Every element is budgeted its column width plus ", ".
    per_line = max(1, math.floor((_OPTS.linewidth - indent) / (fmt.width + 2)))
    lines = [", ".join(items[i : i + per_line]) for i in range(0, len(items), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _format_nested(data: np.ndarray, indent: int, summarize: bool, fmt: _ElementFormatter) -> str:
    """Recursively format an array of any rank at the given indentation."""
    if data.ndim == 0:
        return fmt.format(data.item())
    if data.ndim == 1:
        return _format_vector(data, indent, summarize, fmt)

    edge = _OPTS.edgeitems
    rows = data.shape[0]
    if summarize and rows > 2 * edge:
        parts = (
            [_format_nested(data[i], indent + 1, summarize, fmt) for i in range(edge)]
            + ["..."]
            + [_format_nested(data[i], indent + 1, summarize, fmt) for i in range(rows - edge, rows)]
        )
    else:
        parts = [_format_nested(data[i], indent + 1, summarize, fmt) for i in range(rows)]
    # Blocks of rank k are separated by k-1 blank lines' worth of newlines.
    separator = "," + "\n" * (data.ndim - 1) + " " * (indent + 1)
    return "[" + separator.join(parts) + "]"


def _format_body(data: np.ndarray, indent: int) -> str:
    """Format the bracketed contents of a non-empty array."""
    summarize = data.size > _OPTS.threshold
    fmt = _ElementFormatter(_summarized(data) if summarize else data)
    return _format_nested(data, indent, summarize, fmt)


def _torch_len(suffix: str) -> int:
    """Length of ``suffix`` as torch counts it (the suffixes are spelled as torch spells them)."""
    return len(suffix)


def _append_suffixes(text: str, suffixes: list[str], indent: int) -> str:
    """Append ``, key=value`` items, wrapping to a new line when too long.

    ``last_len`` reproduces torch's arithmetic exactly, including that it is
    two characters more than the true length when ``text`` has no newline.
    """
    pieces = [text]
    last_len = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        length = _torch_len(suffix)
        if last_len + length + 2 > _OPTS.linewidth:
            pieces.append(",\n" + " " * indent + suffix)
            last_len = indent + length
        else:
            pieces.append(", " + suffix)
            last_len += length + 2
    pieces.append(")")
    return "".join(pieces)


# --------------------------------------------------------------------------
# Public entry point
# --------------------------------------------------------------------------

# Dtypes whose name is implied by the printed values and therefore omitted.
_IMPLIED_DTYPES = ("int64", "bool")


def format_tensor(
    data: np.ndarray,
    dtype_name: str,
    *,
    is_default_float: bool,
    suffixes: list[str] | None = None,
    prefix: str = "tensor(",
) -> str:
    """Return the repr of a tensor holding ``data``, exactly as torch prints it.

    Args:
        data: the tensor's values (any rank, possibly empty).
        dtype_name: retrograd dtype name, e.g. ``"float32"``.
        is_default_float: whether the dtype is the current default float
            dtype; its name is then not printed.
        suffixes: already formatted trailing items such as
            ``"requires_grad=True"``, appended after the dtype.
        prefix: the opening text; continuation lines are indented by its length.
    """
    data = np.asarray(data)
    indent = len(prefix)
    extra: list[str] = []
    size_text = "size=" + str(tuple(int(n) for n in data.shape))
    dtype_text = "dtype=torch." + dtype_name

    if data.size == 0:
        # NumPy-style: the shape is shown unless it is the plain (0,).
        if data.ndim != 1:
            extra.append(size_text)
        # No values to infer the dtype from, so even int64/bool are named.
        if not is_default_float:
            extra.append(dtype_text)
        body = "[]"
    else:
        if not _OPTS.edgeitems:
            extra.append(size_text)  # "[...]" alone would hide the shape
        if not (is_default_float or dtype_name in _IMPLIED_DTYPES):
            extra.append(dtype_text)
        body = _format_body(data, indent)

    return _append_suffixes(prefix + body, extra + list(suffixes or []), indent)
