"""The ``flowjob`` console command's entry point, kept outside the ``flowjob`` package.

Importing anything below ``flowjob`` runs ``flowjob/__init__.py``, which imports JAX (about a
second, several under load). ``flowjob --help``, a missing or misspelt command are answered
here from :data:`COMMANDS` alone; a real command is handed to ``flowjob._src.cli.main``, which
imports only that command's module.
"""

from __future__ import annotations

import argparse
import sys
from typing import NoReturn

__all__ = ["COMMANDS", "DESCRIPTION", "main"]

DESCRIPTION = "OneFlow's job functions on JAX"
# Command name -> the one-line help shown by ``flowjob --help`` (also used by each command's
# own parser in flowjob._src.cli, so the two never disagree).
COMMANDS: dict[str, str] = {
    "run": "run a OneFlow program on flowjob",
    "check": "list the names a OneFlow program uses that flowjob lacks",
    "launch": "start the processes of a multi-process job on this node",
    "board": "show a summary log directory in TensorBoard",
    "doctor": "show versions and devices; check logs and checkpoints for damage",
    "ofrecord": "write or inspect OFRecord data sets",
    "export": "write a saved model and/or an ONNX model of a predict job",
}


class _Parser(argparse.ArgumentParser):
    """One line for a mistake (as flowjob.cli's parsers), not the whole usage."""

    def error(self, message: str) -> NoReturn:
        print(f"{self.prog}: error: {message} (see {self.prog} --help)", file=sys.stderr)
        sys.exit(2)


def _overview_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="flowjob", description=DESCRIPTION)
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, help_text in COMMANDS.items():
        subparsers.add_parser(name, help=help_text, add_help=False)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Runs ``flowjob ARGV``; returns the exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv or argv[0] not in COMMANDS:
        # --help, no command or an unknown one: argparse prints and exits (status 0 or 2).
        _overview_parser().parse_args(argv)
    from flowjob._src.cli.main import main as run_command

    return run_command(argv)
