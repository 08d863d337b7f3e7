"""``python -m tests.oneflow_v040 --oneflow CLONE [-j N] [--devices N] [--folder F] [--eager]
[--sample K] [FILE ...]``: runs OneFlow v0.4.0's tests (by default every test file of
``oneflow/python/test/ops``; ``--folder`` another folder of the tree, or ``all``; or the files
named: ``test_add.py`` for ``ops/``, ``xrt/test_add.py`` for another folder), read from a
OneFlow clone, through ``flowjob run``, each at 1 device and at the device counts of its
multi-device classes; ``--eager`` runs ``ops/`` again with ``ONEFLOW_TEST_ENABLE_EAGER=1``
(its second column). Records each outcome in ``results.json`` and rewrites ``RESULTS.md``."""

from __future__ import annotations

import argparse
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tests.upstream import ONEFLOW, UpstreamError

from ._run import (
    HERE,
    device_counts,
    needs_two_nodes,
    oneflow_test_files,
    run_file,
    tests_tree,
)
from .folders import FOLDERS, folder_files, run_entry
from .suite import CPU_ONLY, EAGER_KNOWN_FAILURES, EXPECTED, KNOWN_FAILURES, STANDINS
from .table import update_results


def spread(files: list[str], k: int) -> list[str]:
    """``k`` of ``files`` spread evenly over the (sorted) list: a sample of the folder."""
    if k >= len(files):
        return list(files)
    return [files[(i * len(files)) // k] for i in range(k)]


def counts_of(entry: str, root: Path) -> tuple[int, ...]:
    """The device counts ``entry`` runs at (``ops/`` name or ``folder/name``)."""
    folder, _, name = entry.rpartition("/")
    if not folder:
        return device_counts(root / "ops" / entry)
    return device_counts(root / entry) if FOLDERS[folder].devices else (1,)


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
        "--folder",
        action="append",
        choices=["ops", *FOLDERS, "all"],
        help="run this folder of the tree (repeatable; default: ops; all: every folder, "
        "ops lazy only)",
    )
    parser.add_argument(
        "--eager",
        action="store_true",
        help="run ops/ files with ONEFLOW_TEST_ENABLE_EAGER=1 (the eager column)",
    )
    parser.add_argument(
        "--sample", type=int, metavar="K", help="only K files of each folder, spread over it"
    )
    parser.add_argument(
        "--no-write",
        action="store_true",
        help="only print; leave results.json and RESULTS.md as they are",
    )
    args = parser.parse_args(argv)
    try:
        root = tests_tree(args.oneflow)
    except UpstreamError as exc:
        parser.error(str(exc))
    ops = root / "ops"
    every_ops = oneflow_test_files(ops)
    every = {"ops": every_ops, **{f: folder_files(root, f) for f in FOLDERS}}
    folders = args.folder or ["ops"]
    if "all" in folders:
        folders = ["ops", *FOLDERS]
    if args.files:
        known = {e for entries in every.values() for e in entries}
        unknown = [f for f in args.files if f not in known]
        if unknown:
            parser.error(f"not a test file of oneflow/python/test at v0.4.0: {unknown}")
        files = list(args.files)
    else:
        files = [e for f in folders for e in spread(every[f], args.sample or len(every[f]))]
    if args.eager and any("/" in f for f in files):
        parser.error("--eager reruns ops/ files only (modules/ and tensor/ always run eager)")
    runs = [
        (entry, n)
        for entry in files
        for n in counts_of(entry, root)
        if not args.devices or n in args.devices
    ]

    def one(run: tuple[str, int]):
        entry, n = run
        if "/" in entry:
            standin = STANDINS.get(entry)
            prepare = standin.prepare if standin else None
            result = run_entry(entry, root, args.timeout, devices=n, prepare=prepare)
        else:
            eager = True if args.eager else None
            cpu_only = entry in CPU_ONLY
            result = run_file(entry, ops, args.timeout, cpu_only=cpu_only, devices=n, eager=eager)
            result.column = "eager" if args.eager else "lazy"
        mode = "eager" if result.eager else "lazy"
        print(
            f"{result.status:8} {n}d {mode:5} {result.seconds:6.1f}s {entry} {result.error}",
            flush=True,
        )
        return result

    with ThreadPoolExecutor(max(1, args.jobs)) as pool:
        results = list(pool.map(one, runs))
    if not args.no_write:
        shapes = {
            name: (device_counts(ops / name), needs_two_nodes(ops / name)) for name in every_ops
        }
        for folder in FOLDERS:
            shapes.update({e: (counts_of(e, root), False) for e in every[folder]})
        update_results(HERE / "results.json", HERE / "RESULTS.md", results, shapes)
    unexpected = [
        r
        for r in results
        if r.status in ("fail", "timeout")
        and r.file not in (EAGER_KNOWN_FAILURES if r.column == "eager" else KNOWN_FAILURES)
        and not (r.file in EXPECTED and EXPECTED[r.file].matches(r))
    ]
    return 1 if unexpected else 0


if __name__ == "__main__":
    sys.exit(main())
