"""User mistakes on the command line: one line on stderr, exit status 2.

``Parser`` is the argparse parser of every ``flowjob`` command: a misspelt flag or a missing
argument prints ``flowjob CMD: error: ...`` and where the usage is, not the whole usage.
``UsageError`` is raised by a command for a mistake argparse cannot see (a path that does not
exist); ``flowjob.cli.main`` prints it the same way.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import NoReturn

__all__ = ["USAGE_STATUS", "Parser", "UsageError", "existing_dir", "existing_file"]

USAGE_STATUS = 2  # argparse's status for a command-line mistake


class UsageError(Exception):
    """A mistake in the command line (the message says which argument and why)."""


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        print(f"{self.prog}: error: {message} (see {self.prog} --help)", file=sys.stderr)
        sys.exit(USAGE_STATUS)


def existing_file(path: str, what: str) -> str:
    """``path`` when it is a file; else a ``UsageError`` naming ``what`` and the path."""
    if not os.path.isfile(path):
        why = "is a directory" if os.path.isdir(path) else "no such file"
        raise UsageError(f"{what} {path}: {why}")
    return path


def existing_dir(path: str, what: str) -> str:
    """``path`` when it is a directory; else a ``UsageError`` naming ``what`` and the path."""
    if not os.path.isdir(path):
        why = "not a directory" if os.path.exists(path) else "no such directory"
        raise UsageError(f"{what} {path}: {why}")
    return path
