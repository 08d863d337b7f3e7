"""``python -m tests.oneflow_v040 --oneflow CLONE [-j N] [--devices N] [FILE ...]``: runs
OneFlow v0.4.0's op tests (every test file of ``oneflow/python/test/ops``, or the files
named), read from a OneFlow clone, through ``flowjob run``, each at 1 device and at the device
counts of its multi-device classes; records each outcome in ``results.json`` and rewrites
``RESULTS.md``."""

from __future__ import annotations

import argparse
import sys
from concurrent.futures import ThreadPoolExecutor

from tests.upstream import ONEFLOW, UpstreamError

from ._run import HERE, device_counts, needs_two_nodes, oneflow_test_files, ops_folder, run_file
from .suite import CPU_ONLY, KNOWN_FAILURES
from .table import update_results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.oneflow_v040", description=__doc__)
    parser.add_argument("files", nargs="*", help="run only these files (default: all)")
    parser.add_argument(
        "--oneflow",
        metavar="CLONE",
        help=f"a clone of {ONEFLOW.url} (normal or bare; tag {ONEFLOW.revision} "
        f"is read from it); default: ${ONEFLOW.env}",
    )
    parser.add_argument("-j", "--jobs", type=int, default=1, help="runs at once")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per run")
    parser.add_argument(
        "--devices",
        type=int,
        action="append",
        metavar="N",
        help="run only at this device count (repeatable; default: each file's counts)",
    )
    parser.add_argument(
        "--no-write",
        action="store_true",
        help="only print; leave results.json and RESULTS.md as they are",
    )
    args = parser.parse_args(argv)
    try:
        ops = ops_folder(args.oneflow)
    except UpstreamError as exc:
        parser.error(str(exc))
    every = oneflow_test_files(ops)
    files = args.files or every
    unknown = [f for f in files if f not in every]
    if unknown:
        parser.error(f"not a test file of oneflow/python/test/ops at v0.4.0: {unknown}")
    runs = [
        (name, n)
        for name in files
        for n in device_counts(ops / name)
        if not args.devices or n in args.devices
    ]

    def one(run: tuple[str, int]):
        name, n = run
        result = run_file(name, ops, args.timeout, cpu_only=name in CPU_ONLY, devices=n)
        print(f"{result.status:8} {n}d {result.seconds:6.1f}s {name} {result.error}", flush=True)
        return result

    with ThreadPoolExecutor(max(1, args.jobs)) as pool:
        results = list(pool.map(one, runs))
    if not args.no_write:
        shapes = {name: (device_counts(ops / name), needs_two_nodes(ops / name)) for name in every}
        update_results(HERE / "results.json", HERE / "RESULTS.md", results, shapes)
    unexpected = [
        r for r in results if r.status in ("fail", "timeout") and r.file not in KNOWN_FAILURES
    ]
    return 1 if unexpected else 0


if __name__ == "__main__":
    sys.exit(main())
