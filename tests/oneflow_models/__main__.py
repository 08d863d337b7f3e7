"""``python -m tests.oneflow_models [--oneflow CLONE] [-k TEXT]``: runs the model cases and
prints one Markdown row per case (its file, test, how it is run, and pass or its cause)."""

from __future__ import annotations

import argparse

from ._run import models_folder, run_case
from .suite import CASES

_SHOWN = {
    "pass": "pass",
    "data": "needs private data",
    "not run": "not run",
    "fail": "fail",
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--oneflow", help="a OneFlow clone (default: $FLOWJOB_ONEFLOW_SRC)")
    parser.add_argument("-k", default="", help="only cases whose name contains this")
    args = parser.parse_args()
    models = models_folder(args.oneflow)
    print("| file | test | run as | result | cause |")
    print("|---|---|---|---|---|")
    for case in CASES:
        if args.k not in case.name:
            continue
        outcome = run_case(case, models)
        cause = outcome.error if outcome.status != "pass" else ""
        if outcome.status == "fail" and case.known:
            cause = f"{case.known} ({outcome.error})"
        run_as = f"flowjob run {case.entry} {case.selector}"
        print(
            f"| {case.file} | {case.selector.split('.')[-1]} | `{run_as}` | "
            f"{_SHOWN[outcome.status]} | {cause.replace('|', '/')} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
