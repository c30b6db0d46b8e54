"""Generated docs stay in step with the code."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_ops_doc_is_current():
    p = subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_ops_doc.py"), "--check"],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
