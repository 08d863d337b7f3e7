"""Checking an OFRecord file or data set folder: every record parsed, the set compared with
its manifest (``flowjob ofrecord inspect``)."""

from __future__ import annotations

import enum
import os
import stat
import struct
from dataclasses import dataclass, field
from typing import Any

import google_crc32c

from .._files import stale_staging
from ._dataset import MANIFEST_NAME, Manifest, PartInfo, read_manifest
from ._progress import Progress
from ._record import RecordError, iter_raw_records, parse_record

_LENGTH = struct.Struct("<q")


class ProblemKind(enum.Enum):
    DAMAGED = "DAMAGED"  # a file's bytes are not whole records
    INCOMPLETE = "INCOMPLETE"  # the files disagree with the manifest: missing, short, changed
    EMPTY = "EMPTY"  # nothing to read: no such path, no files, no records


@dataclass(frozen=True)
class Problem:
    kind: ProblemKind
    message: str

    def __str__(self) -> str:
        return f"{self.kind.value}: {self.message}"


@dataclass
class FileReport:
    path: str
    records: int = 0
    bytes: int = 0
    crc32c: int = 0
    damaged: bool = False


@dataclass
class DatasetReport:
    """What :func:`inspect_ofrecord` found; ``ok`` is False when anything is wrong."""

    path: str
    files: list[FileReport] = field(default_factory=list)
    manifest: Manifest | None = None
    problems: list[Problem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    first_record: Any = None

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def records(self) -> int:
        return sum(f.records for f in self.files)


def inspect_ofrecord(path: str | os.PathLike, progress: bool = False) -> DatasetReport:
    """Parses every record of a part file, or of a data set folder, and checks the set.

    A folder with a manifest (written by flowjob) is complete when each listed part exists
    with the listed record count, size and CRC-32C and no other file carries the part prefix;
    a folder without one (written by OneFlow) can only be checked file by file.
    """
    report = DatasetReport(os.fspath(path))
    folder = report.path if os.path.isdir(report.path) else os.path.dirname(report.path) or "."
    try:
        report.manifest = read_manifest(folder)
    except RecordError as exc:
        # nothing can be checked against a manifest that cannot be read: stop here
        report.problems.append(Problem(ProblemKind.INCOMPLETE, str(exc)))
        return report
    if not os.path.exists(report.path):
        report.problems.append(Problem(ProblemKind.EMPTY, f"{report.path}: no such file or folder"))
        return report
    if os.path.isdir(report.path):
        parent, base = os.path.split(os.path.abspath(report.path))
        for name in stale_staging(parent, base):
            report.notes.append(
                f"{os.path.join(parent, name)}: staging folder left by an interrupted write "
                "(never read; the next write of this data set removes it)"
            )
    files = _files_to_scan(report, folder)
    meter = Progress(f"scanning {report.path}", enabled=progress)
    for file in files:
        report.files.append(_scan(file, report, meter))
    meter.close()
    if report.manifest is not None:
        _compare(report, folder)
    elif files and os.path.isdir(report.path):
        report.notes.append(
            "no manifest (written by OneFlow or an older flowjob): each file "
            "was checked, but whether parts are missing or cut short on a "
            "record boundary cannot be told"
        )
    if report.ok and files and report.records == 0:
        report.problems.append(Problem(ProblemKind.EMPTY, f"{report.path}: holds no records"))
    return report


def _files_to_scan(report: DatasetReport, folder: str) -> list[str]:
    if not os.path.isdir(report.path):
        return [report.path]
    manifest = report.manifest
    names = sorted(
        n
        for n in os.listdir(folder)
        if n != MANIFEST_NAME and _scanned(os.path.join(folder, n), n, manifest)
    )
    if manifest is None:
        if not names:
            report.problems.append(
                Problem(
                    ProblemKind.EMPTY,
                    f"{folder}: the folder holds no files (not an OFRecord data set)",
                )
            )
        return [os.path.join(folder, n) for n in names]
    listed = [p.name for p in manifest.parts]
    for name in names:
        if name in listed:
            continue
        if name.startswith(manifest.part_name_prefix):
            report.problems.append(
                Problem(
                    ProblemKind.INCOMPLETE,
                    f"{folder}/{name}: a part file that the manifest does not list",
                )
            )
        else:
            report.notes.append(f"{folder}/{name}: not a part of the data set (ignored)")
    return [os.path.join(folder, n) for n in listed if n in names]


def _scanned(path: str, name: str, manifest: Manifest | None) -> bool:
    """Whether a folder entry is scanned: every regular file, and whatever else stands where a
    part belongs (a FIFO, a device, a directory named like a part: reported by what it is,
    never opened for reading, never passed over as "missing")."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        mode = None  # a dangling or looping link: a part if it is named like one
    if mode is not None and stat.S_ISREG(mode):
        return True
    if manifest is not None:
        return manifest.part(name) is not None or name.startswith(manifest.part_name_prefix)
    return name.startswith("part-") or (mode is not None and not stat.S_ISDIR(mode))


def _scan(path: str, report: DatasetReport, meter: Progress) -> FileReport:
    result = FileReport(path)
    try:
        for offset, data in iter_raw_records(path):
            record = parse_record(data, path, offset)
            if report.first_record is None:
                report.first_record = record
            header = _LENGTH.pack(len(data))
            result.crc32c = google_crc32c.extend(google_crc32c.extend(result.crc32c, header), data)
            result.bytes += len(header) + len(data)
            result.records += 1
            meter.update()
    except RecordError as exc:
        result.damaged = True
        report.problems.append(Problem(ProblemKind.DAMAGED, str(exc)))
    return result


def _compare(report: DatasetReport, folder: str) -> None:
    manifest = report.manifest
    scanned = {os.path.basename(f.path): f for f in report.files}
    expected: list[PartInfo] = list(manifest.parts)
    if not os.path.isdir(report.path):
        info = manifest.part(os.path.basename(report.path))
        if info is None:
            report.notes.append(f"{report.path}: not listed in {folder}'s manifest")
        expected = [info] if info is not None else []
    for info in expected:
        got = scanned.get(info.name)
        where = os.path.join(folder, info.name)
        if got is None:
            report.problems.append(
                Problem(
                    ProblemKind.INCOMPLETE,
                    f"{where}: listed in the manifest ({info.records} records) but missing",
                )
            )
        elif got.damaged:
            continue  # already reported with its byte offset
        elif (got.records, got.bytes) != (info.records, info.bytes):
            report.problems.append(
                Problem(
                    ProblemKind.INCOMPLETE,
                    f"{where}: {got.records} records in {got.bytes} bytes, "
                    f"the manifest says {info.records} records in {info.bytes} bytes",
                )
            )
        elif got.crc32c != info.crc32c:
            report.problems.append(
                Problem(
                    ProblemKind.DAMAGED,
                    f"{where}: CRC-32C {got.crc32c:08x} differs from the "
                    f"manifest's {info.crc32c:08x}: bytes inside records changed after writing",
                )
            )
