"""``flowjob check PROGRAM.py [more.py ...]``: the OneFlow, NumPy and Pillow names a program
uses that flowjob lacks, found without running it."""

from __future__ import annotations

import argparse
import os
import sys

from flowjob_cli import COMMANDS

_DESCRIPTION = """\
Scans OneFlow programs without running them (Python's ast) and lists, with file:line, every
oneflow name (attribute chains off `import oneflow as flow`, `from oneflow import x`,
oneflow.typing...), NumPy or Pillow name (after the removed names `flowjob run` restores) and
known-unsupported construct (C++ op libraries, TensorRT) that flowjob does not provide, every
call of a OneFlow function whose arguments do not fit its signature (too many, a keyword it
lacks), and every literal argument value OneFlow's argument helpers did not accept
(`strides="2"`, `padding="FULL"`). The modules of a program's own folder that it imports are
scanned too. Exit status 1 when
anything is listed, 0 (and one OK line) otherwise."""


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "check",
        help=COMMANDS["check"],
        description=_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("programs", nargs="+", metavar="PROGRAM.py", help="Python files to scan")
    parser.add_argument(
        "--no-follow",
        action="store_true",
        help="scan only the files named, not the local modules they import",
    )
    return parser


def run(args: argparse.Namespace) -> int:
    from ..compat import check_programs

    missing = [p for p in args.programs if not os.path.isfile(p)]
    if missing:
        print(f"flowjob check: no such file: {', '.join(missing)}", file=sys.stderr)
        return 2
    findings = check_programs(args.programs, follow_imports=not args.no_follow)
    for finding in findings:
        print(finding)
    if findings:
        files = len({f.path for f in findings})
        print(
            f"flowjob check: {len(findings)} finding(s) (names flowjob lacks, calls that do not "
            f"fit) in {files} file(s)"
        )
        return 1
    print(
        f"flowjob check: OK, {len(args.programs)} program(s) use only names flowjob provides, "
        "with arguments that fit"
    )
    return 0
