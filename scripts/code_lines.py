"""Count the code lines of Python files: lines that are not blank, not comments, not docstrings.

Usage::

    python scripts/code_lines.py FILE...                 # print each file's count
    python scripts/code_lines.py --max 250 FILE...       # and fail (exit 1) when one is over

The engine budget in CI: ``python scripts/code_lines.py --max 250 src/retrograd/autograd/engine.py``.
A docstring is a string literal standing alone as the first statement of a module, class or
function; every line it spans is left out.  A line holding only a comment is left out; a line
with code and a trailing comment counts.
"""
from __future__ import annotations

import argparse
import ast
import io
import sys
import tokenize


def docstring_lines(tree: ast.AST) -> set[int]:
    """Line numbers spanned by docstrings in ``tree``."""
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                lines.update(range(body[0].lineno, body[0].end_lineno + 1))
    return lines


def code_lines(source: str) -> int:
    """The number of code lines in ``source``.

    >>> code_lines('\"\"\"doc\"\"\"\\n# note\\n\\nx = 1  # one\\n')
    1
    """
    skip = docstring_lines(ast.parse(source))
    code: set[int] = set()
    ignorable = (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
                 tokenize.ENCODING, tokenize.ENDMARKER)
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type in ignorable:
            continue
        for line in range(tok.start[0], tok.end[0] + 1):
            if line not in skip:
                code.add(line)
    return len(code)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+")
    parser.add_argument("--max", type=int, default=None, help="fail when a file has more code lines than this")
    args = parser.parse_args(argv)
    failed = False
    for path in args.files:
        with open(path, encoding="utf-8") as f:
            n = code_lines(f.read())
        over = args.max is not None and n > args.max
        failed |= over
        print(f"{n:6d}  {path}" + (f"  (over the budget of {args.max})" if over else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
