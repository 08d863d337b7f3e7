"""``flow.train.CheckPoint`` and ``flow.train.SimpleCheckPointManager`` over the new API."""

from __future__ import annotations

import datetime
import os

from .. import checkpoint
from .._deprecation import warn_once

_CHECKPOINT_HINT = (
    "'flow.train.CheckPoint' is deprecated. Please use the new API:\n"
    "flow.train.CheckPoint().save(path) => flow.checkpoint.save(path)\n"
    "flow.train.CheckPoint().load(path) => flow.load_variables(flow.checkpoint.get(path))\n"
    "flow.train.CheckPoint().init() is not needed any more."
)


class CheckPoint:
    """Deprecated checkpoint object; its methods delegate to the new functions."""

    def __init__(self) -> None:
        warn_once("train.CheckPoint", _CHECKPOINT_HINT)

    def init(self) -> None:
        """No-op: variables are initialised from their initializers automatically."""

    def save(self, path: str | os.PathLike) -> None:
        """Same as ``flow.checkpoint.save(path)``."""
        checkpoint.save(path)

    def load(self, path: str | os.PathLike, strict: bool | None = None) -> None:
        """Loads the variables ``path`` has, as OneFlow v0.4 did; the others keep their
        values, named in a warning (``strict=True`` or ``flow.checkpoint.strict()``: a
        ``CheckpointError``, nothing loaded)."""
        checkpoint.restore(path, strict)


class SimpleCheckPointManager:
    """Keeps timestamped snapshots ``<root_path>/<prefix><YYYYmmdd_HHMMSS_ffffff>``."""

    def __init__(self, root_path: str | os.PathLike, prefix: str = "snapshot_") -> None:
        root_path = os.fspath(root_path)
        if os.path.lexists(root_path) and not os.path.isdir(root_path):
            raise NotADirectoryError(
                f"SimpleCheckPointManager: root_path {root_path} exists and is not a directory"
            )
        os.makedirs(root_path, exist_ok=True)
        self._root_path = root_path
        self._prefix = prefix

    def list_checkpoints(self) -> list[str]:
        """Sorted names of complete snapshots (those with ``snapshot_done``)."""
        return sorted(
            name
            for name in os.listdir(self._root_path)
            if name.startswith(self._prefix)
            and os.path.isfile(os.path.join(self._root_path, name, checkpoint.SNAPSHOT_DONE))
        )

    def latest_checkpoint(self) -> str | None:
        """The newest snapshot's name, or None when there is none."""
        names = self.list_checkpoints()
        return names[-1] if names else None

    def initialize_or_restore(self) -> None:
        """Loads the newest snapshot, or saves the initial values as the first one."""
        name = self.latest_checkpoint()
        if name is None:
            self.save()
        else:
            checkpoint.restore(os.path.join(self._root_path, name))

    def save(self) -> str:
        """Saves all variables as a new snapshot and returns its path."""
        while True:
            stamp = datetime.datetime.now().strftime("%Y%m%d_%H%M%S_%f")
            path = os.path.join(self._root_path, self._prefix + stamp)
            if not os.path.lexists(path):  # two saves within one microsecond
                break
        checkpoint.save(path)
        return path
