"""``flowjob doctor [PATH...] [--logdir D] [--checkpoint C]``: environment report and damage checks.

Prints the versions that matter for bug reports, the JAX devices and the compilation cache,
then checks each positional ``PATH`` (a log directory when an event file is at or below it,
else a checkpoint), each ``--logdir`` (every event file: records framed and CRC-valid,
payloads that parse as ``Event``, a torn tail reported as such) and each ``--checkpoint`` (a
OneFlow directory, a root of such snapshots, or a safetensors file) with the library's own
readers.

Every problem is one line ``DAMAGED <file>: <why>`` (or ``WARNING <file>: <why>`` for things
that are normal after a crash and harmless to readers, such as a torn last record or a
temporary directory left by a killed save). Exit status: 0 when nothing is damaged, 1 when
something is (``--strict`` counts warnings too).
"""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import platform
import sys
from collections.abc import Iterator

from flowjob_cli import COMMANDS

from ._doctor_files import check_checkpoint
from ._report import Report

__all__ = ["add_parser", "run", "Report", "check_logdir", "check_event_file", "check_checkpoint"]

_VERSIONED = ("flowjob", "jax", "jaxlib", "numpy", "tensorboard", "protobuf")


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Adds the ``doctor`` sub-command to ``subparsers`` (its handler is :func:`run`)."""
    p = subparsers.add_parser(
        "doctor",
        help=COMMANDS["doctor"],
        description="Print versions, JAX devices and the compilation cache, and check summary "
        "log directories and checkpoints for damage (exit status 1 if any).",
    )
    p.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="a log directory or event file (when an event file is at or below it) "
        "or else a checkpoint, to check",
    )
    p.add_argument(
        "--logdir",
        action="append",
        default=[],
        metavar="D",
        help="a summary log directory to check (every event file below it); may be repeated",
    )
    p.add_argument(
        "--checkpoint",
        action="append",
        default=[],
        metavar="C",
        help="a OneFlow checkpoint directory, a directory of such snapshots, or a "
        "safetensors file to check; may be repeated",
    )
    p.add_argument(
        "--strict",
        action="store_true",
        help="also exit with status 1 on warnings (torn tails, leftovers)",
    )
    p.set_defaults(func=run)
    return p


# --- environment ------------------------------------------------------------------------------
def _version(dist: str) -> str:
    if dist == "flowjob":
        import flowjob

        return flowjob.__version__
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def _environment(report: Report) -> list[str]:
    out = ["versions:"]
    out.append(f"  {'python':<12}{platform.python_version()} ({sys.executable})")
    out += [f"  {name:<12}{_version(name)}" for name in _VERSIONED]
    try:
        import google_crc32c

        out.append(f"  {'crc32c':<12}{google_crc32c.implementation} implementation")
    except ImportError:
        out.append(f"  {'crc32c':<12}not installed")
    out.append("devices:")
    import jax

    try:
        devices = jax.devices()
    except Exception as exc:  # a broken backend is exactly what doctor should report
        report.damage("jax.devices()", f"cannot initialise the JAX backend: {exc}")
        devices = []
    for d in devices:
        out.append(f"  {d.platform}:{d.id}  {getattr(d, 'device_kind', '?')}")
    out.append(
        f"  (backend {jax.default_backend() if devices else 'none'}, "
        f"{jax.process_count()} process(es))"
    )
    out.append(_gpus())
    from ..runtime import compilation_cache_dir

    cache = compilation_cache_dir()
    if not cache:
        out.append("compilation cache: off")
    elif os.path.isdir(cache):
        files = list(_files_under(cache))
        size = sum(os.path.getsize(f) for f in files if os.path.isfile(f))
        writable = "writable" if os.access(cache, os.W_OK) else "NOT writable"
        out.append(
            f"compilation cache: {cache} ({len(files)} file(s), {size / 2**20:.1f} MiB, {writable})"
        )
    else:
        out.append(f"compilation cache: {cache} (not created yet)")
    return out


def _gpus() -> str:
    """The GPUs JAX sees (what ``gpu_device_num`` and ``"gpu"`` placements run on), or why
    there are none."""
    from .._devices import local_devices

    gpus = local_devices("gpu")
    if gpus:
        kinds = sorted({getattr(d, "device_kind", "?") for d in gpus})
        return f"gpus: {len(gpus)} ({', '.join(kinds)}); jobs run there unless placed on 'cpu'"
    plugin = _version("jax-cuda12-plugin")
    why = (
        "JAX's CUDA plugin is installed but found no usable GPU (driver, CUDA_VISIBLE_DEVICES?)"
        if plugin != "not installed"
        else "JAX's CUDA wheels are not installed: pip install 'flowjob[gpu]'"
    )
    return f"gpus: none ({why}); gpu_device_num(n) gives n CPU devices"


def _files_under(root: str) -> Iterator[str]:
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(filenames):
            yield os.path.join(dirpath, name)


# --- event files ----------------------------------------------------------------------------
def check_event_file(path: str, report: Report) -> int:
    """Checks one event file; returns the number of readable records."""
    from google.protobuf.message import DecodeError
    from tensorboard.compat.proto import event_pb2

    from flowjob._src.summary import RecordCorruptError, read_records

    count = 0
    try:
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            try:
                for payload in read_records(f, strict=True):
                    offset = f.tell() - len(payload) - 16
                    try:
                        event = event_pb2.Event.FromString(payload)
                    except DecodeError as exc:
                        report.damage(
                            path,
                            f"record {count} at offset {offset} has valid CRCs "
                            f"but is not an Event ({exc})",
                        )
                        return count
                    if count == 0 and not event.file_version.startswith("brain.Event:"):
                        report.warn(path, "the first record is not a file_version event")
                    count += 1
            except RecordCorruptError as exc:
                report.damage(
                    path,
                    f"record at offset {exc.offset}: {exc.detail}; the {count} record(s) "
                    "before it are readable, "
                    "TensorBoard stops reading this file there",
                )
                return count
            end = f.tell()
    except OSError as exc:
        report.damage(path, f"cannot read: {exc}")
        return count
    if size == 0:
        report.warn(path, "empty event file (not even the file_version record)")
    elif end < size:
        report.warn(
            path,
            f"torn tail: the last {size - end} byte(s), from offset {end}, are an "
            f"incomplete record (a writer was killed or is still writing); "
            f"{count} complete record(s) are readable",
        )
    else:
        report.ok(path, f"{count} record(s)")
    return count


def _is_event_file(path: str) -> bool:
    return "tfevents" in os.path.basename(path)


def holds_event_files(path: str) -> bool:
    """Whether ``path`` is an event file or a directory with one below it (a positional
    ``PATH`` is then checked as a log directory, else as a checkpoint)."""
    if os.path.isfile(path):
        return _is_event_file(path)
    return any(_is_event_file(p) for p in _files_under(path))


def check_logdir(logdir: str, report: Report) -> None:
    """Checks every event file (basename containing ``tfevents``) below ``logdir``."""
    if not os.path.isdir(logdir):
        report.damage(
            logdir,
            "log directory does not exist" if not os.path.exists(logdir) else "not a directory",
        )
        return
    files = [p for p in _files_under(logdir) if _is_event_file(p)]
    if not files:
        report.warn(logdir, "no event files (names containing 'tfevents') found")
    for path in files:
        check_event_file(path, report)


# --- entry point ----------------------------------------------------------------------------
def run(args: argparse.Namespace) -> int:
    """Prints the report; returns 0 when healthy, 1 when damage (or, strict, a warning) is found."""
    report = Report()
    print("flowjob doctor")
    for line in _environment(report):
        print(line)
    logdirs = list(getattr(args, "logdir", None) or [])
    checkpoints = list(getattr(args, "checkpoint", None) or [])
    for path in getattr(args, "paths", None) or []:
        (logdirs if holds_event_files(os.path.expanduser(path)) else checkpoints).append(path)
    for logdir in logdirs:
        print(f"logdir {logdir}:")
        start = len(report.lines)
        logdir = os.path.expanduser(logdir)
        if os.path.isfile(logdir):
            check_event_file(logdir, report)
        else:
            check_logdir(logdir, report)
        _print_from(report, start)
    for path in checkpoints:
        print(f"checkpoint {path}:")
        start = len(report.lines)
        check_checkpoint(os.path.expanduser(path), report)
        _print_from(report, start)
    failed = report.damaged or (getattr(args, "strict", False) and report.warnings)
    print(
        f"result: {report.damaged} damaged, {report.warnings} warning(s) -> "
        f"{'PROBLEMS FOUND' if failed else 'healthy'}"
    )
    return 1 if failed else 0


def _print_from(report: Report, start: int) -> None:
    for line in report.lines[start:]:
        print(f"  {line}")


def main(argv: list[str] | None = None) -> int:
    """Stand-alone entry point (``python -m flowjob._src.cli.doctor ...``)."""
    parser = argparse.ArgumentParser(prog="flowjob")
    add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["doctor", *(sys.argv[1:] if argv is None else argv)])
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
