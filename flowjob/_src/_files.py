"""Files flowjob reads and writes, one mechanism for each direction.

Reading: a file named by something flowjob reads (a saved model's ``saved_model.json``, a
checkpoint's ``meta``) must be a regular file, stay inside the folder it belongs to, and be no
larger than a limit checked *before* the read (a FIFO, ``/dev/zero`` or a 20 GiB sparse file
is refused naming the file, not read until memory runs out).

Writing: everything is built in a hidden sibling ``.<name>.<random>.tmp`` and renamed into
place, so a reader sees the old file/folder or the complete new one. The writer holds an
``flock`` on its staging file or folder; a staging sibling nobody holds was left by a killed
writer: the next write to the same place removes it (``remove_stale``), ``flowjob doctor`` and
``flowjob ofrecord inspect`` report it (``stale_staging``).
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import secrets
import shutil
import stat
from collections.abc import Callable, Iterable, Iterator
from typing import BinaryIO

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no locks, leftovers are then never removed
    fcntl = None  # type: ignore[assignment]

from flowjob._src.errors import FlowJobError

STAGING_SUFFIX = ".tmp"
_READ_CHUNK = 1 << 20


class FileCheckError(FlowJobError, ValueError):
    """A file flowjob was asked to read is not a regular file inside its folder, or too big."""


ErrorType = Callable[[str], Exception]


# --- reading ------------------------------------------------------------------------------------
def describe_kind(mode: int) -> str:
    """What a ``st_mode`` is, in words ("a FIFO", "a character device", ...)."""
    for test, name in (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return name
    return "not a regular file"


def check_regular(
    path: str, *, what: str = "file", limit: int | None = None, error: ErrorType = FileCheckError
) -> os.stat_result:
    """``os.stat(path)`` after checking that it is a regular file of at most ``limit`` bytes."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise error(f"{what} {path} does not exist") from None
    except OSError as exc:
        raise error(f"{what} {path}: cannot stat ({exc.strerror})") from None
    _check_stat(path, st, what, limit, error)
    return st


def _check_stat(
    path: str, st: os.stat_result, what: str, limit: int | None, error: ErrorType
) -> None:
    if not stat.S_ISREG(st.st_mode):
        raise error(f"{what} {path} is {describe_kind(st.st_mode)}, not a regular file")
    if limit is not None and st.st_size > limit:
        raise error(
            f"{what} {path} is {st.st_size} bytes, more than the {limit} bytes such a file "
            "can hold (not read)"
        )


@contextlib.contextmanager
def open_regular(
    path: str, *, what: str = "file", limit: int | None = None, error: ErrorType = FileCheckError
) -> Iterator[BinaryIO]:
    """Opens ``path`` for reading after checking the *opened* file (no race with a swap):
    O_NONBLOCK so that opening a FIFO cannot hang, then ``fstat``."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise error(f"{what} {path} does not exist") from None
    except OSError as exc:
        raise error(f"{what} {path}: cannot open ({exc.strerror})") from None
    try:
        _check_stat(path, os.fstat(fd), what, limit, error)
    except BaseException:
        os.close(fd)
        raise
    with os.fdopen(fd, "rb") as f:
        yield f


def read_bounded(
    path: str, limit: int, *, what: str = "file", error: ErrorType = FileCheckError
) -> bytes:
    """The whole of a regular file of at most ``limit`` bytes (checked before reading)."""
    with open_regular(path, what=what, limit=limit, error=error) as f:
        data = f.read(limit + 1)
    if len(data) > limit:  # it grew after the check
        raise error(f"{what} {path} grew past {limit} bytes while being read")
    return data


def inside(
    root: str, name: object, *, what: str = "path", error: ErrorType = FileCheckError
) -> str:
    """``root/name`` for a relative ``name`` that stays inside ``root`` (symlinks resolved)."""
    if not isinstance(name, str) or not name or "\0" in name:
        raise error(f"{what} must be a non-empty relative path, got {name!r}")
    if os.path.isabs(name) or (os.altsep is not None and name.startswith(os.altsep)):
        raise error(f"{what} {name!r} is an absolute path; it must name a file inside {root}")
    parts = name.replace("\\", "/").split("/")
    if ".." in parts:
        raise error(f"{what} {name!r} leaves {root} ('..'); it must name a file inside it")
    path = os.path.join(root, name)
    real_root = os.path.realpath(root)
    if os.path.commonpath([real_root, os.path.realpath(path)]) != real_root:
        raise error(f"{what} {name!r} resolves outside {root} (a symbolic link)")
    return path


def crc32c_of(path: str, size: int) -> int:
    """CRC-32C of the first ``size`` bytes of a file, streamed in 1 MiB pieces."""
    import google_crc32c

    crc = google_crc32c.Checksum()
    with open(path, "rb") as f:
        left = size
        while left > 0:
            chunk = f.read(min(_READ_CHUNK, left))
            if not chunk:
                break
            crc.update(chunk)
            left -= len(chunk)
    return int.from_bytes(crc.digest(), "big")


# --- staged writing -------------------------------------------------------------------------------
def fsync_dir(path: str) -> None:
    """Makes a directory's entries (created/renamed files) durable; a no-op where unsupported."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_file(path: str, chunks: Iterable[bytes | memoryview]) -> None:
    """Writes ``chunks`` to a new file and fsyncs it (inside a staging folder)."""
    with open(path, "xb") as f:
        for chunk in chunks:
            f.write(chunk)
        f.flush()
        os.fsync(f.fileno())


# Errors of a write that run out of room or rights: the bare message names no file.
DISK_ERRORS = frozenset(
    {errno.ENOSPC, errno.EFBIG, errno.EDQUOT, errno.EIO, errno.EROFS, errno.EACCES}
)


@contextlib.contextmanager
def naming_write_errors(what: str, path: str) -> Iterator[None]:
    """Re-raises a full disk, a file-size limit (EFBIG) or a read-only file system met inside
    the block as an ``OSError`` of the same errno naming ``what`` and ``path``
    ("[Errno 27] File too large" alone names nothing); errors that name a file pass as they are.

    Examples:
        >>> import errno
        >>> try:
        ...     with naming_write_errors("ONNX model", "m.onnx"):
        ...         raise OSError(errno.EFBIG, "File too large")
        ... except OSError as exc:
        ...     print(exc.errno == errno.EFBIG, exc.strerror)
        True writing ONNX model m.onnx failed: File too large
    """
    try:
        yield
    except OSError as exc:
        if exc.errno not in DISK_ERRORS or exc.filename is not None:
            raise
        raise OSError(exc.errno, f"writing {what} {path} failed: {exc.strerror}", path) from exc


def staging_name(base: str) -> str:
    """A fresh hidden staging name for the target ``base``."""
    return f".{base}.{secrets.token_hex(6)}{STAGING_SUFFIX}"


# Staging names of flowjob versions before the shared writer (they held no lock, so one
# found is a leftover): an OFRecord set's staging folder and the old set an overwrite moved
# aside, and a saved-model version folder made by ``tempfile.mkdtemp``.
_EARLIER_STAGING = (
    re.compile(r"\.(?P<base>.+)\.writing-[0-9a-f]{12}"),
    re.compile(r"\.(?P<base>.+)\.replaced-[0-9a-f]{8}"),
    re.compile(r"\.(?P<base>[0-9]+)-[a-z0-9_]{8}"),
)


def is_staging(name: str, base: str | None = None) -> bool:
    """Whether ``name`` is a staging name (for the target ``base`` when given), this
    version's or an earlier one's."""
    if name.startswith(".") and name.endswith(STAGING_SUFFIX):
        if base is None:
            return True
        stem = name[1 : -len(STAGING_SUFFIX)]
        head, _, token = stem.rpartition(".")
        return head == base and len(token) == 12
    for pattern in _EARLIER_STAGING:
        match = pattern.fullmatch(name)
        if match is not None and (base is None or match["base"] == base):
            return True
    return False


def _try_lock(fd: int) -> bool:
    if fcntl is None:
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            return False
        raise
    return True


def _held(path: str) -> bool:
    """Whether a live writer holds the staging file or folder ``path``."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return False
    try:
        return not _try_lock(fd) if fcntl is not None else True
    finally:
        os.close(fd)  # closing releases the probe's lock


def stale_staging(folder: str, base: str | None = None) -> list[str]:
    """Staging entries in ``folder`` (of target ``base`` when given) no live writer holds."""
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    return [n for n in names if is_staging(n, base) and not _held(os.path.join(folder, n))]


def remove_stale(target: str) -> list[str]:
    """Removes what killed writers of ``target`` left beside it; returns the removed paths."""
    parent, base = os.path.split(os.path.abspath(target))
    removed = []
    for name in stale_staging(parent, base):
        path = os.path.join(parent, name)
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, ignore_errors=True)
        else:
            with contextlib.suppress(OSError):
                os.unlink(path)
        removed.append(path)
    return removed


def _claim(parent: str, base: str, make: Callable[[str], int]) -> tuple[str, int]:
    """A new staging entry made by ``make(path) -> fd``, locked by this process."""
    while True:
        path = os.path.join(parent, staging_name(base))
        try:
            fd = make(path)
        except FileExistsError:
            continue
        # A cleaner may have locked (and may remove) the entry between make and lock: retry.
        try:
            if _try_lock(fd) and os.path.samestat(os.fstat(fd), os.stat(path)):
                return path, fd
        except FileNotFoundError:
            pass
        os.close(fd)


def _make_dir(path: str) -> int:
    os.mkdir(path)  # not tempfile.mkdtemp: its 0700 would become the published folder's mode
    return os.open(path, os.O_RDONLY)


def _make_file(path: str) -> int:
    return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)


def rename_no_clobber(tmp: str, path: str) -> None:
    """Renames a folder onto ``path`` if that is absent or an empty folder, else FileExistsError."""
    try:
        os.rename(tmp, path)  # POSIX: replaces an empty directory, fails on a non-empty one
    except OSError as exc:
        if exc.errno not in (errno.ENOTEMPTY, errno.EEXIST, errno.ENOTDIR, errno.EISDIR):
            raise
        if os.path.isdir(path) and not os.path.islink(path) and not os.listdir(path):
            os.rmdir(path)  # platforms whose rename refuses any existing directory
            os.rename(tmp, path)
            return
        raise FileExistsError(
            errno.EEXIST, f"{path} appeared while it was being written", path
        ) from None


@contextlib.contextmanager
def atomic_directory(
    path: str, publish: Callable[[str, str], None] = rename_no_clobber
) -> Iterator[str]:
    """Yields a fresh staging folder beside ``path``; when the block ends without an error the
    folder is fsynced and ``publish(staging, path)`` puts it in place, else it is removed.
    Leftovers of killed writers of ``path`` are removed first."""
    parent, base = os.path.split(os.path.abspath(path))
    os.makedirs(parent, exist_ok=True)
    remove_stale(path)
    tmp, fd = _claim(parent, base, _make_dir)
    try:
        yield tmp
        fsync_dir(tmp)
        publish(tmp, path)
        fsync_dir(parent)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    finally:
        os.close(fd)


def link_no_clobber(tmp: str, path: str) -> None:
    """Puts the file ``tmp`` at ``path`` unless something is there (then FileExistsError):
    a hard link fails atomically when ``path`` exists, so of two writers racing for one name
    exactly one wins; ``tmp`` is removed either way."""
    try:
        os.link(tmp, path)
    except FileExistsError:
        raise FileExistsError(
            errno.EEXIST,
            f"{path} appeared while it was being written (another writer saved there first; "
            "nothing was overwritten)",
            path,
        ) from None
    except OSError as exc:
        if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK):
            raise
        # a file system without hard links: the check below is the best left (a small race)
        if os.path.lexists(path):
            raise FileExistsError(
                errno.EEXIST, f"{path} appeared while it was being written", path
            ) from None
        os.rename(tmp, path)
        return
    os.unlink(tmp)


@contextlib.contextmanager
def atomic_file(path: str, *, replace: bool = True) -> Iterator[BinaryIO]:
    """Yields a binary file; on success it is fsynced and renamed to ``path`` (replacing it;
    ``replace=False``: FileExistsError if ``path`` exists by then, see ``link_no_clobber``)."""
    parent, base = os.path.split(os.path.abspath(path))
    if os.path.isdir(path):
        raise IsADirectoryError(errno.EISDIR, f"{path} is a directory, not a file name", path)
    os.makedirs(parent, exist_ok=True)
    remove_stale(path)
    tmp, fd = _claim(parent, base, _make_file)
    try:
        with open(os.dup(fd), "wb") as f:  # builtin open: tests patch it
            yield f
            f.flush()
            os.fsync(f.fileno())
        if replace:
            os.replace(tmp, path)
        else:
            link_no_clobber(tmp, path)
        fsync_dir(parent)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    finally:
        os.close(fd)
