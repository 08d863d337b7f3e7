"""Event files on disk: the run directory and a new, never shared event file in it.

File name ``events.out.tfevents.%010d.<host>.<pid>.<seq><suffix>``: sorts by creation time,
and the pid plus a process-wide sequence number (bumped again if the name exists) keep two
writers from ever sharing a file. Used by ``_event_writer.py``.
"""

from __future__ import annotations

import errno
import itertools
import os
import socket
import time

_file_seq = itertools.count()


def make_logdir(logdir: str | os.PathLike) -> str:
    """Creates the run directory; a clear error when a file is in the way."""
    path = os.fspath(logdir)
    if os.path.lexists(path) and not os.path.isdir(path):
        raise NotADirectoryError(
            errno.ENOTDIR,
            f"summary logdir {path!r} exists and is not a directory; the logdir "
            "must be a directory (event files are created inside it)",
            path,
        )
    try:
        os.makedirs(path, exist_ok=True)
    except (FileExistsError, NotADirectoryError) as exc:
        raise NotADirectoryError(
            errno.ENOTDIR,
            f"summary logdir {path!r} cannot be created: a file is in the way "
            f"({exc.strerror}); the logdir must be a directory",
            path,
        ) from exc
    return path


def _create_file(logdir: str, suffix: str):
    host = socket.gethostname() or "localhost"
    while True:
        name = (
            f"events.out.tfevents.{int(time.time()):010d}.{host}.{os.getpid()}."
            f"{next(_file_seq)}{suffix}"
        )
        path = os.path.join(logdir, name)
        try:
            # "x": never truncate an existing file (e.g. a recycled pid on a shared logdir).
            # Unbuffered: RecordFile buffers whole records and needs to see every write.
            return open(path, "xb", buffering=0), path  # noqa: SIM115
        except FileExistsError:
            continue
