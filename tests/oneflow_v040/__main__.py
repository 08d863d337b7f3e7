"""``python -m tests.oneflow_v040 --oneflow CLONE [-j N] [--timeout S] [FILE ...]``: runs OneFlow
v0.4.0's op tests (the list in ``suite.py``, or the files named), read from a OneFlow clone,
through ``flowjob run``, records each outcome in ``results.json`` and rewrites ``RESULTS.md``."""

from __future__ import annotations

import argparse
import sys
from concurrent.futures import ThreadPoolExecutor

from tests.upstream import ONEFLOW, UpstreamError

from ._run import HERE, ops_folder, run_file
from .suite import CPU_ONLY, SUITE
from .table import update_results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.oneflow_v040", description=__doc__)
    parser.add_argument("files", nargs="*", help="run only these files (default: the list)")
    parser.add_argument(
        "--oneflow",
        metavar="CLONE",
        help=f"a clone of {ONEFLOW.url} (normal or bare; tag {ONEFLOW.revision} "
        f"is read from it); default: ${ONEFLOW.env}",
    )
    parser.add_argument("-j", "--jobs", type=int, default=1, help="files run at once")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per file")
    parser.add_argument(
        "--no-write",
        action="store_true",
        help="only print; leave results.json and RESULTS.md as they are",
    )
    args = parser.parse_args(argv)
    files = args.files or list(SUITE)
    unknown = [f for f in files if f not in SUITE]
    if unknown:
        parser.error(f"not in the suite list (tests/oneflow_v040/suite.py): {unknown}")
    try:
        ops = ops_folder(args.oneflow)
    except UpstreamError as exc:
        parser.error(str(exc))

    def one(name: str):
        result = run_file(name, ops, args.timeout, cpu_only=name in CPU_ONLY)
        print(f"{result.status:8} {result.seconds:6.1f}s {name} {result.error}", flush=True)
        return result

    with ThreadPoolExecutor(max(1, args.jobs)) as pool:
        results = list(pool.map(one, files))
    if not args.no_write:
        update_results(HERE / "results.json", HERE / "RESULTS.md", results)
    return 0 if all(r.status != "fail" or SUITE[r.file] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
