"""A written OFRecord data set as one unit: staged in a hidden sibling folder, published by a
rename, described by a manifest.

OFRecord files have no end marker and no checksum, so a part cut short on a record boundary
reads as a smaller, valid part. flowjob therefore never writes parts where a reader looks:
everything goes to a hidden ``.<name>.<random>.tmp`` next to the target (``flowjob._src._files``),
the manifest (``MANIFEST_NAME``: each part's name, record count, size and CRC-32C) is written
last, and the finished folder is renamed into place.
A killed writer leaves at most that hidden folder; the next write there removes it.
Readers that find a manifest check the part files they open against it; folders without one
(written by OneFlow) are read as before.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import json
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from .._files import atomic_directory, read_bounded, staging_name
from ._record import RecordError

MANIFEST_NAME = "_ofrecord_manifest.json"
_FORMAT = "flowjob-ofrecord-manifest"
_VERSION = 1
# A manifest lists each part in ~100 bytes of JSON: 64 MiB is over half a million parts.
MANIFEST_LIMIT = 64 << 20


class DatasetExistsError(RecordError, FileExistsError):
    """The output folder of an OFRecord writer already holds files (and ``overwrite`` is off)."""


@dataclass(frozen=True)
class PartInfo:
    """One part file as the manifest records it."""

    name: str
    records: int
    bytes: int
    crc32c: int


@dataclass(frozen=True)
class Manifest:
    """What a complete data set holds: its part files in order and the naming rule used."""

    part_name_prefix: str
    parts: tuple[PartInfo, ...]

    @property
    def records(self) -> int:
        return sum(p.records for p in self.parts)

    def part(self, name: str) -> PartInfo | None:
        return next((p for p in self.parts if p.name == name), None)


def write_manifest(folder: str, manifest: Manifest) -> None:
    body = {
        "format": _FORMAT,
        "version": _VERSION,
        "part_name_prefix": manifest.part_name_prefix,
        "records": manifest.records,
        "parts": [
            {"name": p.name, "records": p.records, "bytes": p.bytes, "crc32c": p.crc32c}
            for p in manifest.parts
        ],
    }
    path = os.path.join(folder, MANIFEST_NAME)
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(body, handle, indent=1)
        handle.write("\n")
        handle.flush()
        os.fsync(handle.fileno())


def read_manifest(folder: str | os.PathLike) -> Manifest | None:
    """The folder's manifest, None if it has none; ``RecordError`` if it is not readable."""
    path = os.path.join(os.fspath(folder), MANIFEST_NAME)
    if not os.path.lexists(path):
        return None
    try:
        # bounded before reading: a FIFO, a device or a huge (sparse) file is refused by name
        raw = read_bounded(path, MANIFEST_LIMIT, what="OFRecord manifest", error=RecordError)
    except RecordError as exc:
        raise RecordError(
            f"{exc}; delete it to read the folder without completeness checks"
        ) from None
    try:
        body = json.loads(raw.decode("utf-8"))
        if body.get("format") != _FORMAT:
            raise ValueError(f"format is {body.get('format')!r}, expected {_FORMAT!r}")
        parts = tuple(
            PartInfo(str(p["name"]), int(p["records"]), int(p["bytes"]), int(p["crc32c"]))
            for p in body["parts"]
        )
        return Manifest(str(body["part_name_prefix"]), parts)
    except (ValueError, KeyError, TypeError) as exc:
        raise RecordError(
            f"{path}: unreadable OFRecord manifest ({exc}); delete it to read "
            "the folder without completeness checks"
        ) from None


def check_parts(folder: str, paths: list[str]) -> list[str]:
    """Checks the part files a reader is about to open against the folder's manifest (sizes
    only: no file is read). Raises ``RecordError`` for a part that is not in the manifest or
    whose size differs; returns notes (e.g. parts of the set the reader leaves out)."""
    manifest = read_manifest(folder)
    if manifest is None:
        return []
    for path in paths:
        name = os.path.basename(path)
        info = manifest.part(name)
        if info is None:
            listed = ", ".join(p.name for p in manifest.parts)
            raise RecordError(
                f"{path}: not one of the parts listed in {folder}'s manifest "
                f"({listed}); the folder mixes data sets, or the reader's "
                "part_name_prefix/part_name_suffix_length differ from the writer's"
            )
        size = os.path.getsize(path)
        if size != info.bytes:
            raise RecordError(
                f"{path}: {size} bytes, but the data set's manifest says "
                f"{info.bytes} bytes ({info.records} records): the part was "
                "changed or cut short after it was written"
            )
    if len(paths) < len(manifest.parts):
        return [
            f"{folder}: reading {len(paths)} of the {len(manifest.parts)} part files of "
            f"the data set ({len(manifest.parts)} listed in its manifest)"
        ]
    return []


def check_target(out_dir: str, overwrite: bool) -> None:
    """Refuses before any work if ``out_dir`` cannot take a new data set."""
    if not os.path.lexists(out_dir):
        return
    if not os.path.isdir(out_dir):
        raise DatasetExistsError(
            f"{out_dir}: exists and is not a folder; choose a new folder for the data set"
        )
    entries = sorted(os.listdir(out_dir))
    if not entries:
        return
    if not overwrite:
        shown = ", ".join(entries[:3]) + (
            f" and {len(entries) - 3} more" if len(entries) > 3 else ""
        )
        raise DatasetExistsError(
            f"{out_dir}: the folder is not empty ({shown}); pass overwrite=True (flowjob "
            "ofrecord: --overwrite) to replace the folder and everything in it, or choose a "
            "new folder (new parts are never mixed with old ones)"
        )
    folders = [e for e in entries if os.path.isdir(os.path.join(out_dir, e))]
    if folders:
        raise DatasetExistsError(
            f"{out_dir}: holds sub-folders ({', '.join(folders[:3])}); overwrite=True replaces "
            "only a folder of plain files (a data set), so this one is left alone"
        )


@contextmanager
def staged_folder(out_dir: str, overwrite: bool) -> Iterator[str]:
    """A hidden staging folder next to ``out_dir``; when the block ends without an error it
    becomes ``out_dir`` (replacing the old one when ``overwrite``), else it is removed.
    Staging folders of killed writers of ``out_dir`` are removed first."""
    out_dir = os.path.abspath(out_dir)
    check_target(out_dir, overwrite)
    with atomic_directory(out_dir, lambda tmp, path: _publish(tmp, path, overwrite)) as staging:
        yield staging


def _publish(staging: str, out_dir: str, overwrite: bool) -> None:
    check_target(out_dir, overwrite)  # again: the folder may have changed while we wrote
    try:
        os.rename(staging, out_dir)  # also replaces an empty folder (POSIX rename)
        return
    except OSError as exc:
        if exc.errno not in (errno.ENOTEMPTY, errno.EEXIST) or not overwrite:
            raise
    if _exchange(staging, out_dir):  # out_dir is now the new set, staging the old one
        shutil.rmtree(staging, ignore_errors=True)
        return
    # No atomic exchange here: the old folder moves aside first (under a staging name, so a
    # kill right here leaves a leftover the next write removes), then the new one moves in.
    old = os.path.join(os.path.dirname(out_dir), staging_name(os.path.basename(out_dir)))
    os.rename(out_dir, old)
    os.rename(staging, out_dir)
    shutil.rmtree(old, ignore_errors=True)


def _exchange(a: str, b: str) -> bool:
    """Linux ``renameat2(RENAME_EXCHANGE)``: swaps two folders in one step; False where the
    C library or the file system lacks it."""
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError, TypeError):
        return False
    at_fdcwd, rename_exchange = -100, 2
    return renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0
