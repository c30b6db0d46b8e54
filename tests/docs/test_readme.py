"""Every Python block in README.md runs, and prints what its ``# output`` comments say.

The README's convention: a comment after a ``print(...)`` call is the text that call prints
(``print(x.grad)   # tensor(7.)``); ``...`` stands for any text (``<MulBackward0 object at
0x...>``), and a value printed over several lines is written on one, each line break and the
indentation after it read as one space.  Remarks go on lines of their own or after lines
that do not print.  Each block runs in a fresh interpreter whose ``print`` records the block
line that called it; ``test_readme_outputs`` then compares line by line.
"""
from __future__ import annotations

import doctest
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BLOCKS = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), re.S)

# Run in the child: exec the block under a print that records (block line, printed text).
_RECORDER = r"""
import builtins, io, json, sys
code, printed = sys.stdin.read(), []
_print = builtins.print
def _recording_print(*args, **kwargs):
    frame = sys._getframe(1)
    if kwargs.get("file") is None and frame.f_code.co_filename == "<readme>":
        buf = io.StringIO()
        _print(*args, **{**kwargs, "file": buf})
        printed.append((frame.f_lineno, buf.getvalue()))
    _print(*args, **kwargs)
builtins.print = _recording_print
scope = {"__name__": "__main__"}
if "import retrograd" not in code:
    exec("import retrograd as torch", scope)
exec(compile(code, "<readme>", "exec"), scope)
sys.stdout.flush()
sys.stderr.write("\nRECORDED " + json.dumps(printed) + "\n")
"""


def _run_block(code: str, cwd: Path) -> list[tuple[int, str]]:
    p = subprocess.run([sys.executable, "-c", _RECORDER], input=code, capture_output=True, text=True,
                       cwd=cwd, timeout=120)
    assert p.returncode == 0, p.stderr
    return [tuple(r) for r in json.loads(p.stderr.rsplit("\nRECORDED ", 1)[1])]


def _output_comments(code: str) -> dict[int, str]:
    """{line: expected text} for every ``print(...)  # text`` line of a block (1-based lines)."""
    found = {}
    for n, line in enumerate(code.splitlines(), 1):
        m = re.match(r"\s*print\(.*\)\s+#\s?(.*)$", line)
        if m:
            found[n] = m.group(1).strip()
    return found


def _matches(expected: str, printed: str) -> bool:
    one_line = re.sub(r"\n\s*", " ", printed.strip())
    checker = doctest.OutputChecker()
    return checker.check_output(expected + "\n", one_line + "\n", doctest.ELLIPSIS)


@pytest.mark.parametrize("i", range(len(BLOCKS)))
def test_readme_outputs(i, tmp_path):
    code = BLOCKS[i]
    printed = _run_block(code, tmp_path)
    by_line: dict[int, list[str]] = {}
    for line, text in printed:
        by_line.setdefault(line, []).append(text)
    for line, expected in _output_comments(code).items():
        got = by_line.get(line)
        assert got, f"README block {i}, line {line}: the print never ran (expected {expected!r})"
        for text in got:
            assert _matches(expected, text), (f"README block {i}, line {line}: the comment says {expected!r}, "
                                              f"the code prints {text.strip()!r}")


def test_readme_has_output_comments():
    """The convention is in use (a changed README format would leave the test above checking nothing)."""
    assert sum(len(_output_comments(b)) for b in BLOCKS) >= 10


def test_comment_reading():
    assert _output_comments("x = 1\nprint(x)   # 1\nprint(x)\ny = 2  # not output\n") == {2: "1"}
    assert _matches("<MulBackward0 object at 0x...>", "<MulBackward0 object at 0x7f00aa>\n")
    assert _matches("tensor([[1., 2.], [3., 4.]])", "tensor([[1., 2.],\n        [3., 4.]])\n")
    assert not _matches("tensor(7.)", "tensor(6.)\n")
