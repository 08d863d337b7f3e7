"""``flowjob <command>``: dispatches to the command modules of this folder."""

from __future__ import annotations

import argparse
import importlib
import sys

# Each module has add_parser(subparsers) and run(args) -> int.
_COMMANDS = ("run", "board", "doctor", "ofrecord", "export")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="flowjob", description="OneFlow's job functions on JAX")
    subparsers = parser.add_subparsers(dest="command", required=True)
    for name in _COMMANDS:
        module = importlib.import_module(f"flowjob.cli.{name}")
        module.add_parser(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser()
    # `flowjob run SCRIPT ARGS...` passes everything after SCRIPT to the script untouched.
    args, rest = parser.parse_known_args(argv)
    if rest and args.command != "run":
        parser.error(f"unrecognized arguments: {' '.join(rest)}")
    if rest:
        args.script_args = [*getattr(args, "script_args", []), *rest]
    module = importlib.import_module(f"flowjob.cli.{args.command}")
    return int(module.run(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
