"""docs/debugging.md: each Python block, run as ``example.py``, prints exactly the text block after it."""
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAIRS = re.findall(r"```python\n(.*?)```\n\n```text\n(.*?)```", (ROOT / "docs" / "debugging.md").read_text(), re.S)


def test_the_page_has_examples():
    assert len(PAIRS) >= 6


@pytest.mark.parametrize("i", range(len(PAIRS)))
def test_debugging_example_prints_what_the_page_shows(i, tmp_path):
    code, shown = PAIRS[i]
    (tmp_path / "example.py").write_text(code)
    p = subprocess.run([sys.executable, "example.py"], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stdout.replace(str(tmp_path) + "/", "") == shown
