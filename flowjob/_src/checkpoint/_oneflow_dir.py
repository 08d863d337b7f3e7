"""OneFlow's checkpoint directory: ``<path>/<var>/{out,meta}`` and ``<path>/snapshot_done``."""

from __future__ import annotations

import os
import stat
import warnings
from collections.abc import Mapping

from flowjob._src._files import (
    atomic_directory,
    describe_kind,
    fsync_dir,
    is_staging,
    write_file,
)
from flowjob._src.checkpoint._blobs import (
    DATA_FILENAME,
    META_FILENAME,
    SNAPSHOT_DONE,
    FileBackendVariableBlob,
    value_chunks,
    value_spec,
)
from flowjob._src.checkpoint._meta import CheckpointError, render_meta


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


def check_var_name(name: object) -> str:
    """Variable names become directory names; refuse ones that would escape or collide."""
    if not isinstance(name, str):
        raise TypeError(f"variable names must be str, got {type(name).__name__}: {name!r}")
    bad = (
        not name
        or name in (".", "..", SNAPSHOT_DONE)
        or "\0" in name
        or "/" in name
        or (os.altsep is not None and os.altsep in name)
        or os.sep in name
    )
    if bad:
        raise CheckpointError(
            f"variable name {name!r} cannot be stored as a checkpoint directory entry "
            "(it must be non-empty, contain no path separator and not be "
            f"'.', '..' or '{SNAPSHOT_DONE}')"
        )
    return name


def save_dir(path: str, values: Mapping[str, object]) -> None:
    """Writes ``values`` in OneFlow's layout, atomically; ``path`` must be new or empty."""
    specs = {check_var_name(name): value_spec(name, value) for name, value in values.items()}
    ensure_free(path)
    with atomic_directory(path) as tmp:
        for name, value in values.items():
            var_dir = os.path.join(tmp, name)
            os.mkdir(var_dir)
            write_file(os.path.join(var_dir, DATA_FILENAME), value_chunks(value))
            shape, dtype = specs[name]
            write_file(os.path.join(var_dir, META_FILENAME), [render_meta(shape, dtype).encode()])
            fsync_dir(var_dir)
        # Written last: its presence is what marks a snapshot complete.
        write_file(os.path.join(tmp, SNAPSHOT_DONE), [])


class Checkpoint(dict):
    """``{name: value}`` of one whole checkpoint, as ``flow.checkpoint.get`` read it.

    A plain dict for every use; ``path`` lets ``load_variables`` say which variables of the
    model the checkpoint lacks (a plain dict may hold any subset, for fine-tuning).
    """

    def __init__(self, path: str, values: Mapping[str, object]) -> None:
        super().__init__(values)
        self.path = path


def load_dir(path: str, allow_incomplete: bool = False) -> FileBackendVariableBlob | Checkpoint:
    """One variable if ``path/out`` exists, else every variable directory of the checkpoint.

    A variable directory with a ``meta`` but no ``out`` file, a truncated ``out`` or a broken
    ``meta`` raises ``CheckpointError`` naming it (``allow_incomplete``: a missing ``out`` is
    skipped with a warning instead). A folder without ``snapshot_done`` is read as OneFlow v0.4
    read it (it never looked for the marker; tools wrote checkpoints without it), with a
    warning naming the folder once (``flowjob doctor`` still reports it); such a folder with
    no variable at all is refused. Directories with neither file are not variables and are
    skipped, as in OneFlow.
    """
    if os.path.isfile(os.path.join(path, DATA_FILENAME)):
        return FileBackendVariableBlob(path)
    found = {}
    missing = []
    for name in sorted(os.listdir(path)):
        var_dir = os.path.join(path, name)
        if name == SNAPSHOT_DONE or is_staging(name) or not os.path.isdir(var_dir):
            continue
        if os.path.lexists(os.path.join(var_dir, DATA_FILENAME)):  # a FIFO 'out' is an error
            found[name] = FileBackendVariableBlob(var_dir)
        elif os.path.exists(os.path.join(var_dir, META_FILENAME)):
            missing.append(f"{var_dir}: has a meta file but no '{DATA_FILENAME}' data file")
        # else: not a variable (OneFlow ignores such directories; doctor warns)
    if missing:
        problems = "; ".join(missing)
        if not allow_incomplete:
            raise CheckpointError(
                f"checkpoint {path} is damaged or incomplete: {problems}. To read what is "
                "there anyway, use flow.checkpoint.get(path, allow_incomplete=True)"
            )
        warnings.warn(
            f"checkpoint {path} is incomplete, reading what is there: {problems}",
            UserWarning,
            stacklevel=3,
        )
    if not has_marker(path):
        if not found:  # e.g. the folder above the snapshots: reading nothing would hide that
            raise CheckpointError(
                f"{path} is not a checkpoint: it has no variable folder (<name>/"
                f"{DATA_FILENAME}) and no '{SNAPSHOT_DONE}' file"
            )
        _warn_no_marker(path)
    return Checkpoint(path, found)


def has_marker(path: str) -> bool:
    """Whether the checkpoint folder ``path`` has its ``snapshot_done`` marker; one that is
    not a regular file (a FIFO, a device, a directory) is damage, never "no marker" (which
    would read the folder as a v0.4 checkpoint that simply lacks it)."""
    marker = os.path.join(path, SNAPSHOT_DONE)
    try:
        mode = os.stat(marker).st_mode
    except FileNotFoundError:
        if not os.path.lexists(marker):
            return False
        raise CheckpointError(f"{marker} is a dangling symbolic link, not a regular file") from None
    except OSError as exc:
        raise CheckpointError(f"{marker}: cannot stat ({exc.strerror})") from None
    if not stat.S_ISREG(mode):
        raise CheckpointError(
            f"{marker} is {describe_kind(mode)}, not a regular file: the checkpoint's "
            "completion marker is damaged"
        )
    return True


_warned_no_marker: set[str] = set()


def _warn_no_marker(path: str) -> None:
    """Once per folder: every variable file was checked, only the completion marker is absent
    (an interrupted save, or a tool that never wrote it)."""
    key = os.path.realpath(path)
    if key in _warned_no_marker:
        return
    _warned_no_marker.add(key)
    warnings.warn(
        f"checkpoint {path} has no '{SNAPSHOT_DONE}' file: reading it as OneFlow v0.4 did "
        "(each variable's 'out' checked against its 'meta'); if a save may have been "
        "interrupted, check it with `flowjob doctor`",
        UserWarning,
        stacklevel=4,
    )
