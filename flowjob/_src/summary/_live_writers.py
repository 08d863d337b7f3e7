"""One live event file per run directory: the open ``SummaryWriter`` of each directory.

TensorBoard shows every directory holding event files as a run, and its Python loader
follows only the newest event file of a run (unless ``--reload_multifile``). So the graph,
the anomaly summaries and the job ops all log into the run's one live writer: every open
``SummaryWriter`` registers itself here, and :func:`acquire_writer` hands out the open writer
of a directory, or opens one that the last :func:`release_writer` closes. A writer the user
opened is only borrowed: releasing it never closes it.
"""

from __future__ import annotations

import os
import threading
import weakref

__all__ = ["register", "unregister", "acquire_writer", "release_writer"]

_lock = threading.RLock()
_open: dict[str, list[weakref.ref]] = {}  # realpath -> open writers, oldest first
_owned: dict[int, int] = {}  # id(writer opened by acquire_writer) -> users


def _key(directory: str | os.PathLike) -> str:
    return os.path.realpath(os.fspath(directory))


def register(writer) -> None:
    """Called by ``SummaryWriter.__init__``."""
    with _lock:
        _open.setdefault(_key(writer.logdir), []).append(weakref.ref(writer))


def unregister(writer) -> None:
    """Called by ``SummaryWriter.close``."""
    with _lock:
        refs = _open.get(_key(writer.logdir), [])
        refs[:] = [r for r in refs if r() is not None and r() is not writer]
        _owned.pop(id(writer), None)


def live_writer(directory: str | os.PathLike):
    """The oldest open writer of ``directory``, or None."""
    with _lock:
        for ref in _open.get(_key(directory), []):
            w = ref()
            if w is not None and not w.closed:
                return w
    return None


def acquire_writer(directory: str | os.PathLike):
    """The open ``SummaryWriter`` of ``directory``; opens one if there is none."""
    from ._writer import SummaryWriter

    with _lock:
        w = live_writer(directory)
        if w is None:
            w = SummaryWriter(directory)
            _owned[id(w)] = 0
        if id(w) in _owned:
            _owned[id(w)] += 1
        return w


def release_writer(writer) -> None:
    """Gives back a writer from :func:`acquire_writer`; the last user of a writer that
    :func:`acquire_writer` opened closes it."""
    with _lock:
        users = _owned.get(id(writer))
        if users is None:
            return
        if users > 1:
            _owned[id(writer)] = users - 1
            return
    writer.close()
