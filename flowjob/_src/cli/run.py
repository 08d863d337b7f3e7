"""``flowjob run SCRIPT [ARGS...]``: runs a program written for OneFlow's legacy API."""

from __future__ import annotations

import argparse

from flowjob_cli import COMMANDS

from ..compat import run_script

_DESCRIPTION = """\
Runs a Python program written for OneFlow's legacy (v0.2-v0.6 single-client) API on flowjob,
unchanged: `import oneflow as flow`, `import oneflow.typing as tp`,
`from oneflow.compatible import single_client as flow` and their submodules resolve to flowjob
for this run only. SCRIPT gets ARGS as sys.argv[1:] and runs as __main__ with its directory on
sys.path; the exit status is the program's."""


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "run",
        help=COMMANDS["run"],
        description=_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--sync",
        action="store_true",
        help="finish every job call, with its watch handlers and callbacks, "
        "before the program goes on (for programs that read callback "
        "results without syncing, like OneFlow's async_batch_job.py)",
    )
    parser.add_argument("script", help="path of the Python program")
    parser.add_argument(
        "script_args",
        nargs=argparse.REMAINDER,
        metavar="ARGS",
        help="arguments passed to the program as sys.argv[1:]",
    )
    return parser


def run(args: argparse.Namespace) -> int:
    return run_script(args.script, list(args.script_args or ()), sync=args.sync)
