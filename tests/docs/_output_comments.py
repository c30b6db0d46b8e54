"""The docs' ``# output`` comments: a comment after a ``print(...)`` call is what that call prints.

``print(x.grad)   # tensor(7.)``: ``...`` stands for any text (``<MulBackward0 object at
0x...>``), and a value printed over several lines is written on one, each line break and the
indentation after it read as one space.  Remarks go on lines of their own, or after lines that
do not print.  Blocks run in a child interpreter whose ``print`` records the block and line
that called it (``RECORDING_PRINT``); ``mismatches`` compares those records with the comments.
"""
from __future__ import annotations

import doctest
import re

# Source run in the child before the blocks: blocks are compiled with the file name "<block i>".
RECORDING_PRINT = r"""
import builtins as _builtins, io as _io, sys as _sys
PRINTED = []
_print = _builtins.print
def _recording_print(*args, **kwargs):
    frame = _sys._getframe(1)
    if kwargs.get("file") is None and frame.f_code.co_filename.startswith("<block "):
        buf = _io.StringIO()
        _print(*args, **{**kwargs, "file": buf})
        PRINTED.append((int(frame.f_code.co_filename[7:-1]), frame.f_lineno, buf.getvalue()))
    _print(*args, **kwargs)
_builtins.print = _recording_print
"""


def output_comments(code: str) -> dict[int, str]:
    """{line: expected text} for every ``print(...)  # text`` line of a block (1-based lines)."""
    found = {}
    for n, line in enumerate(code.splitlines(), 1):
        m = re.match(r"\s*print\(.*\)\s+#\s?(.*)$", line)
        if m:
            found[n] = m.group(1).strip()
    return found


def matches(expected: str, printed: str) -> bool:
    one_line = re.sub(r"\n\s*", " ", printed.strip())
    return doctest.OutputChecker().check_output(expected + "\n", one_line + "\n", doctest.ELLIPSIS)


def mismatches(blocks: dict[int, str], printed: list) -> list[str]:
    """What disagrees between the comments of ``blocks`` ({block number: code}) and ``printed``."""
    by_line: dict[tuple[int, int], list[str]] = {}
    for block, line, text in printed:
        by_line.setdefault((block, line), []).append(text)
    found = []
    for i, code in blocks.items():
        for line, expected in output_comments(code).items():
            got = by_line.get((i, line))
            if not got:
                found.append(f"block {i}, line {line}: the print never ran (its comment says {expected!r})")
            found += [f"block {i}, line {line}: the comment says {expected!r}, the code prints {text.strip()!r}"
                      for text in got or () if not matches(expected, text)]
    return found
