"""Where the anomaly records of a log directory are, kept up to date without a full walk.

A log directory may hold tens of thousands of other files (checkpoints). The index lists each
directory once and afterwards only ``stat``s the directories it knows: a directory is listed
again only when its modification time changes (an entry was added, removed or replaced,
which is how the projector writes: ``os.replace`` of whole files). Runs are the directories
holding ``PROJECTOR_CONFIG``; their records are cached until that file is replaced (the
projector writes ``anomaly.json`` before it updates the config).
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass

from ..summary import (
    PROJECTOR_ASSET_DIR,
    PROJECTOR_CONFIG,
    AnomalyRecord,
    read_anomaly_records,
)
from ..summary._projector_files import CONFIG_LIMIT as PROJECTOR_CONFIG_LIMIT
from ._safe_logs import regular_or_warn, warn_once

__all__ = ["AnomalyIndex"]


@dataclass
class _Dir:
    mtime_ns: int
    subdirs: tuple[str, ...]
    is_run: bool


class AnomalyIndex:
    """Runs and records below ``logdir``; refreshed at most every ``max_age`` seconds (pages
    poll; requests in between share one refresh)."""

    def __init__(self, logdir: str, max_age: float = 1.0):
        self.logdir = os.path.abspath(logdir) if logdir else ""
        self.max_age = max_age
        self.listings = 0  # directories listed so far (a full walk lists every directory)
        self._dirs: dict[str, _Dir] = {}
        self._runs: dict[str, str] = {}
        self._records: dict[str, tuple[tuple[int, int, int], list[AnomalyRecord]]] = {}
        self._checked = -float("inf")
        self._lock = threading.Lock()

    # -- public ---------------------------------------------------------------------------
    def runs(self) -> dict[str, str]:
        """Run name (``.`` for the logdir itself, else its POSIX path) -> directory."""
        with self._lock:
            if time.monotonic() - self._checked >= self.max_age:
                self._refresh()
                self._checked = time.monotonic()
            return dict(self._runs)

    def records(self, run: str) -> list[AnomalyRecord]:
        """The records of ``run`` by tag then step (none for an unknown run)."""
        directory = self.runs().get(run)
        if directory is None:
            return []
        config = os.path.join(directory, PROJECTOR_CONFIG)
        # a FIFO config would hang the read, a huge one exhaust memory: named once, skipped
        if not regular_or_warn(config, "projector config", PROJECTOR_CONFIG_LIMIT):
            return []
        try:
            st = os.stat(config)
        except OSError:
            return []
        key = (st.st_ino, st.st_mtime_ns, st.st_size)
        with self._lock:
            cached = self._records.get(directory)
            if cached is not None and cached[0] == key:
                return cached[1]
        records = read_anomaly_records(directory, skipped=warn_once)
        with self._lock:
            self._records[directory] = (key, records)
        return records

    def record(self, run: str, tag: str, step: int) -> AnomalyRecord | None:
        return next((r for r in self.records(run) if r.tag == tag and r.step == step), None)

    # -- refresh --------------------------------------------------------------------------
    def _refresh(self) -> None:
        seen: set[str] = set()
        if self.logdir:
            self._visit(self.logdir, seen)
        for gone in set(self._dirs) - seen:
            del self._dirs[gone]
            self._records.pop(gone, None)
        runs = {}
        for directory in sorted(d for d, entry in self._dirs.items() if entry.is_run):
            rel = os.path.relpath(directory, self.logdir)
            runs["." if rel == "." else rel.replace(os.sep, "/")] = directory
        self._runs = runs

    def _visit(self, directory: str, seen: set[str]) -> None:
        stack = [directory]
        while stack:
            path = stack.pop()
            try:
                mtime = os.stat(path).st_mtime_ns
            except OSError:
                continue
            seen.add(path)
            entry = self._dirs.get(path)
            if entry is None or entry.mtime_ns != mtime:
                entry = self._list(path, mtime)
                if entry is None:
                    continue
                self._dirs[path] = entry
            stack.extend(os.path.join(path, name) for name in entry.subdirs)

    def _list(self, path: str, mtime: int) -> _Dir | None:
        self.listings += 1
        subdirs, is_run = [], False
        try:
            with os.scandir(path) as it:
                for e in it:
                    if e.name == PROJECTOR_CONFIG:
                        is_run = True
                    elif e.is_dir(follow_symlinks=False):
                        subdirs.append(e.name)
        except OSError:
            return None
        if is_run and PROJECTOR_ASSET_DIR in subdirs:
            subdirs.remove(PROJECTOR_ASSET_DIR)  # the projector's files, never a run
        return _Dir(mtime, tuple(sorted(subdirs)), is_run)
