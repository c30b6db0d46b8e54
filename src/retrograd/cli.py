"""Command line: ``python -m retrograd demo [--out DIR] [--quick]``."""
from __future__ import annotations

import argparse


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m retrograd", description="retrograd command line")
    sub = parser.add_subparsers(dest="cmd", required=True)
    demo = sub.add_parser("demo", help="walk through the seed examples (and more)")
    demo.add_argument("--out", default="demo-out", help="output folder")
    demo.add_argument("--quick", action="store_true", help="finish fast (for CI)")
    args = parser.parse_args(argv)
    if args.cmd == "demo":
        from .demo.run import run_demo

        return run_demo(out=args.out, quick=args.quick)
    return 2
