"""Crash-safe writes: build next to the target, fsync, then rename into place.

A reader (or a restarted process) therefore sees either no checkpoint at the target path or a
complete one; a killed save leaves only a hidden ``.<name>.<random>.tmp`` sibling behind.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import shutil
from collections.abc import Iterable, Iterator
from typing import BinaryIO


def ensure_free(path: str) -> None:
    """Raises FileExistsError when ``path`` is a file or a non-empty directory (OneFlow's rule)."""
    if os.path.isdir(path):
        if not os.listdir(path):
            return
        what = "a non-empty directory"
    elif os.path.lexists(path):
        what = "a file"
    else:
        return
    raise FileExistsError(
        f"{path} is {what}: flow.checkpoint.save writes a new checkpoint and never overwrites "
        "(note that flow.save is different from torch.save); choose a new or empty directory, "
        "or remove the old one first"
    )


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
    """Writes ``chunks`` to a new file and fsyncs it."""
    with open(path, "xb") as f:
        for chunk in chunks:
            f.write(chunk)
        f.flush()
        os.fsync(f.fileno())


def _sibling(path: str) -> str:
    parent, name = os.path.split(os.path.abspath(path))
    return os.path.join(parent, f".{name}.{secrets.token_hex(6)}.tmp")


@contextlib.contextmanager
def atomic_directory(path: str) -> Iterator[str]:
    """Yields a fresh temporary sibling of ``path``; on success it is renamed to ``path``.

    The caller writes (and fsyncs) its files into the yielded directory. On any exception the
    temporary directory is removed and ``path`` is left untouched.
    """
    parent = os.path.dirname(os.path.abspath(path))
    os.makedirs(parent, exist_ok=True)
    while True:
        tmp = _sibling(path)
        try:
            os.mkdir(tmp)  # not mkdtemp: that would give the checkpoint mode 0700
            break
        except FileExistsError:
            continue
    try:
        yield tmp
        fsync_dir(tmp)
        _rename_dir(tmp, path)
        fsync_dir(parent)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def _rename_dir(tmp: str, path: str) -> None:
    try:
        # POSIX rename atomically replaces an empty directory and fails on a non-empty one,
        # so a checkpoint that appeared meanwhile is never clobbered.
        os.rename(tmp, path)
    except OSError as exc:
        if exc.errno in (errno.ENOTEMPTY, errno.EEXIST, errno.ENOTDIR, errno.EISDIR):
            if os.path.isdir(path) and not os.listdir(path):
                os.rmdir(path)  # platforms whose rename refuses any existing directory
                os.rename(tmp, path)
                return
            ensure_free(path)
        raise


@contextlib.contextmanager
def atomic_file(path: str) -> Iterator[BinaryIO]:
    """Yields a binary file object; on success it is fsynced and renamed to ``path``."""
    parent = os.path.dirname(os.path.abspath(path))
    os.makedirs(parent, exist_ok=True)
    tmp = _sibling(path)
    f = open(tmp, "xb")
    try:
        with f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
        fsync_dir(parent)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
