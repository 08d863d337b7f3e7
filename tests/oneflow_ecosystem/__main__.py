"""``python -m tests.oneflow_ecosystem [-k TEXT] [--no-write]``: runs the suite's programs one
after another (clones named by the variables of ``tests/upstream.py``), prints a Markdown row
for each and rewrites ``RESULTS.md`` (rows of programs not run keep their old text)."""

from __future__ import annotations

import argparse

from ._run import run_program
from .results import HEADER, RESULTS, row, write
from .suite import PROGRAMS


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m tests.oneflow_ecosystem", description=__doc__)
    parser.add_argument("-k", default="", help="only programs whose name contains this")
    parser.add_argument("--no-write", action="store_true", help=f"leave {RESULTS.name} alone")
    parser.add_argument("-v", action="store_true", help="print the output of failing programs")
    args = parser.parse_args()
    print("\n".join(HEADER), flush=True)
    rows = {}
    for program in PROGRAMS:
        if args.k not in program.name:
            continue
        outcome = run_program(program)
        print(row(outcome), flush=True)
        if outcome.status != "no clone":  # keep the row of the last run that had one
            rows[program.name] = row(outcome)
        if args.v and outcome.status == "fail":
            print(outcome.output[-6000:], flush=True)
    if not args.no_write:
        write(PROGRAMS, rows)


if __name__ == "__main__":
    main()
