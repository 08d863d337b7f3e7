"""Which processes log into a run directory: each holds an ``flock`` on its own event file.

TensorBoard shows all event files of a directory as one run, so two processes logging into one
directory (two ranks, a restarted job while the old one still runs) have their series merged
point by point. Each process's event file has its own name (``_event_files.py``: time, host,
pid, sequence) and its writer holds an exclusive ``flock`` on it while it is open. A process
opening its first writer in a directory tries each event file of another process there: one
that is still locked belongs to a live writer, and this process is warned once, naming the
directory and that process (its host and pid, from the file name); it still logs, to its own
file. Nothing is added to the directory, and the kernel drops a lock when its holder exits, so
a killed writer never warns a later one.
"""

from __future__ import annotations

import errno
import os
import re
import socket
import threading
import warnings

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no warning about a second process
    fcntl = None  # type: ignore[assignment]

__all__ = ["SharedRunWarning", "hold", "release"]

# events.out.tfevents.<time>.<host>.<pid>.<seq><suffix> (hosts may hold dots)
_NAME = re.compile(r"events\.out\.tfevents\.\d+\.(?P<host>.+)\.(?P<pid>\d+)\.\d+")
_lock = threading.Lock()
_users: dict[str, int] = {}  # realpath of a run directory -> this process's open writers


class SharedRunWarning(UserWarning):
    """Another process is logging into the same run directory."""


def _locked(path: str) -> bool:
    """Whether a live writer holds ``path`` (never blocks: O_NONBLOCK, LOCK_NB)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError as exc:
        return exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES)
    finally:
        os.close(fd)  # closing drops the probe's own lock
    return False


def _other_writer(directory: str, own: str) -> str | None:
    """``pid P on HOST`` of a live writer of another process in ``directory``, or None."""
    try:
        names = sorted(os.listdir(directory))
    except OSError:
        return None
    for name in names:
        match = _NAME.match(name)
        if match is None or f"{match['host']}.{match['pid']}" == own:
            continue
        host, pid = match["host"], match["pid"]
        if _locked(os.path.join(directory, name)):
            return f"pid {pid} on {host}"
    return None


def hold(logdir: str, fd: int) -> None:
    """Called when this process opens an event file ``fd`` in ``logdir``: locks it and, for
    this process's first open writer there, warns if another process is logging there too."""
    if fcntl is None:
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        pass  # a file system without locks: no warnings either way
    key = os.path.realpath(logdir)
    with _lock:
        _users[key] = _users.get(key, 0) + 1
        if _users[key] > 1:
            return
    own = f"{socket.gethostname() or 'localhost'}.{os.getpid()}"
    other = _other_writer(key, own)
    if other is not None:
        warnings.warn(
            f"another process ({other}) is logging into {key}; TensorBoard shows every event "
            "file of a directory as one run, so both processes' series are merged point by "
            "point there. This process writes its own event file; give each process its own "
            "log directory (for example one per rank) to keep them apart",
            SharedRunWarning,
            stacklevel=4,
        )


def release(logdir: str) -> None:
    """Called when an event writer of ``logdir`` closes (its file's lock goes with it)."""
    key = os.path.realpath(logdir)
    with _lock:
        users = _users.get(key, 0) - 1
        if users > 0:
            _users[key] = users
        else:
            _users.pop(key, None)
