"""Every Python block of the topic pages (docs/*.md) runs and prints what it says it prints.

A page's blocks run in order in one fresh interpreter (later blocks use names earlier ones
made), in a scratch directory.  ``# output`` comments after ``print(...)`` calls must match
what is printed (the README's convention, ``_output_comments.py``); a block written as a
doctest (``>>>`` lines) must print what it shows.  A block that is not retrograd code
(PyTorch's own imports, shown for comparison) is preceded by ``<!-- not run: <reason> -->``.
"""
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from ._output_comments import RECORDING_PRINT, mismatches

DOCS = Path(__file__).resolve().parents[2] / "docs"
PAGES = [p for p in sorted(DOCS.glob("*.md")) if "```python" in p.read_text()]

_RUNNER = RECORDING_PRINT + r"""
import doctest, json, sys
blocks = eval(sys.stdin.read())
scope = {"__name__": "docs_page"}   # (not "__main__": a block's `if __name__ == "__main__"` stays shut)
exec("import retrograd as torch", scope)
for i, code in enumerate(blocks):
    if code.lstrip().startswith(">>>"):
        test = doctest.DocTestParser().get_doctest(code, scope, f"block {i}", None, 0)
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
        runner.run(test, clear_globs=False)
        if runner.failures:
            sys.exit(f"block {i}: the doctest above failed")
    else:
        exec(compile(code, f"<block {i}>", "exec"), scope)
sys.stdout.flush()
sys.stderr.write("\nRECORDED " + json.dumps(PRINTED) + "\n")
"""


def _blocks(page: Path) -> list[str]:
    text = page.read_text()
    found = []
    for m in re.finditer(r"(<!-- not run: [^>]+-->\s*)?```python\n(.*?)```", text, re.S):
        if not m.group(1):
            found.append(m.group(2))
    return found


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_page_blocks_run(page, tmp_path):
    blocks = _blocks(page)
    p = subprocess.run([sys.executable, "-c", _RUNNER], input=repr(blocks), capture_output=True, text=True,
                       cwd=tmp_path, timeout=600)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    printed = json.loads(p.stderr.rsplit("\nRECORDED ", 1)[1])
    plain = {i: code for i, code in enumerate(blocks) if not code.lstrip().startswith(">>>")}
    assert not mismatches(plain, printed), f"{page.name}: {mismatches(plain, printed)}"


def test_skipped_blocks_say_why():
    for page in PAGES:
        for reason in re.findall(r"<!-- not run: ([^>]*)-->", page.read_text()):
            assert len(reason.strip()) > 10, f"{page.name}: a block is skipped without a reason"
