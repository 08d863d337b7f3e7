"""``flowjob <command>``: dispatches to the command modules of this folder.

The console script enters through ``flowjob_cli.main`` (which answers ``--help`` without
importing this package); :func:`main` imports only the module of the command it runs.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from flowjob_cli import COMMANDS, DESCRIPTION

from ._usage import USAGE_STATUS, Parser, UsageError

__all__ = ["build_parser", "main"]


def build_parser(*commands: str) -> argparse.ArgumentParser:
    """The parser of ``commands`` (every command when none is named). Each command module has
    add_parser(subparsers) and run(args) -> int."""
    parser = Parser(prog="flowjob", description=DESCRIPTION)
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in commands or COMMANDS:
        importlib.import_module(f"flowjob._src.cli.{name}").add_parser(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    command = argv[0] if argv and argv[0] in COMMANDS else None
    parser = build_parser(*([command] if command else ()))
    # `flowjob run SCRIPT ARGS...` passes everything after SCRIPT to the script untouched.
    args, rest = parser.parse_known_args(argv)
    name = " ".join(["flowjob", args.command, *([args.action] if "action" in args else [])])
    if rest and args.command not in ("run", "launch"):
        print(
            f"{name}: error: unrecognized arguments: {' '.join(rest)} (see {name} --help)",
            file=sys.stderr,
        )
        return USAGE_STATUS
    if rest and args.command == "run":
        args.script_args = [*getattr(args, "script_args", []), *rest]
    elif rest:
        args.program_args = [*getattr(args, "program_args", []), *rest]
    module = importlib.import_module(f"flowjob._src.cli.{args.command}")
    try:
        return int(module.run(args) or 0)
    except UsageError as exc:
        print(f"{name}: error: {exc}", file=sys.stderr)
        return USAGE_STATUS


if __name__ == "__main__":
    sys.exit(main())
