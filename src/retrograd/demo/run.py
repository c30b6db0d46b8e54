"""The demo: every seed example, its code and what it prints."""
from __future__ import annotations

import contextlib
import io
import traceback

from .seed_blocks import BLOCKS


def run_seed_examples() -> list[tuple[str, str, str]]:
    """Run each seed block with ``import retrograd as torch``; return (title, code, output)."""
    import retrograd

    results = []
    for title, code in BLOCKS:
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            try:
                exec(compile(code, f"<seed: {title}>", "exec"), {"torch": retrograd})  # noqa: S102 - our own blocks
            except Exception as exc:  # the document shows some blocks failing
                print("".join(traceback.format_exception_only(type(exc), exc)).strip())
        results.append((title, code, buf.getvalue()))
    return results


def run_demo(out: str = "demo-out", quick: bool = False) -> int:
    import warnings

    warnings.simplefilter("ignore")
    for i, (title, code, output) in enumerate(run_seed_examples(), 1):
        print(f"=== {i}. {title}")
        print(code.rstrip())
        print("--- prints:")
        print(output.rstrip())
        print()
    return 0
