"""``flowjob doctor``'s checks of what flowjob writes: checkpoints (OneFlow directories, roots of
snapshots, safetensors files), saved models, and the staging leftovers of killed writers."""

from __future__ import annotations

import os
import warnings

from flowjob._src._files import is_staging, stale_staging

from ._report import Report


# --- checkpoints ------------------------------------------------------------------------
def _is_snapshot(path: str) -> bool:
    from flowjob._src.checkpoint import DATA_FILENAME, SNAPSHOT_DONE

    if os.path.lexists(os.path.join(path, SNAPSHOT_DONE)):  # a FIFO marker is checked too
        return True
    return any(
        os.path.isfile(os.path.join(path, name, DATA_FILENAME))
        for name in _listdir(path)
        if os.path.isdir(os.path.join(path, name))
    )


def _listdir(path: str) -> list[str]:
    try:
        return sorted(os.listdir(path))
    except OSError:
        return []


_LEFTOVER = "left by an interrupted save (never read; safe to delete)"


def report_leftovers(folder: str, report: Report, base: str | None = None) -> None:
    """Warns about staging entries of killed writers in ``folder`` (of target ``base``)."""
    for name in stale_staging(folder, base):
        path = os.path.join(folder, name)
        kind = "directory" if os.path.isdir(path) else "file"
        report.warn(path, f"temporary {kind} {_LEFTOVER}")


def _check_variable(var_dir: str, report: Report) -> bool:
    from flowjob._src.checkpoint import CheckpointError, FileBackendVariableBlob

    try:
        blob = FileBackendVariableBlob(var_dir)
    except (CheckpointError, OSError, ValueError) as exc:
        report.damage(var_dir, str(exc))
        return False
    if not blob.has_meta_info:
        report.warn(
            var_dir,
            "no meta file (legacy snapshot): shape and dtype unknown, so the "
            "size of 'out' cannot be checked",
        )
    return True


def _check_snapshot(path: str, report: Report) -> None:
    from flowjob._src.checkpoint import DATA_FILENAME, META_FILENAME, SNAPSHOT_DONE
    from flowjob._src.checkpoint._meta import CheckpointError
    from flowjob._src.checkpoint._oneflow_dir import has_marker

    if os.path.lexists(os.path.join(path, DATA_FILENAME)):  # a single variable's directory
        if _check_variable(path, report):
            report.ok(path, "1 variable")
        return
    variables = 0
    bad = report.damaged
    for name in _listdir(path):
        sub = os.path.join(path, name)
        if name == SNAPSHOT_DONE or is_staging(name):
            continue
        if not os.path.isdir(sub):
            report.warn(sub, "unexpected file in a checkpoint directory")
        elif os.path.lexists(os.path.join(sub, DATA_FILENAME)):  # a FIFO 'out' is damage
            variables += 1
            _check_variable(sub, report)
        elif os.path.isfile(os.path.join(sub, META_FILENAME)):
            report.damage(sub, f"has a meta file but no '{DATA_FILENAME}' data file")
        else:
            report.warn(sub, "directory without a variable ('out') in a checkpoint")
    try:
        marker = has_marker(path)  # the loader's own test: both say the same
    except CheckpointError as exc:
        report.damage(path, str(exc))
        return
    if not marker:
        report.damage(path, f"no '{SNAPSHOT_DONE}' file: the save did not complete")
    elif report.damaged == bad:
        report.ok(path, f"{variables} variable(s), {SNAPSHOT_DONE} present")


def check_checkpoint(path: str, report: Report) -> None:
    """Checks a OneFlow checkpoint directory, a directory of snapshots, a safetensors file or
    a saved model (each version's files against its manifest), and reports staging leftovers
    beside ``path`` and in it."""
    parent, base = os.path.split(os.path.abspath(path))
    report_leftovers(parent, report, base)
    if os.path.isdir(path) and _is_saved_model(path):
        check_saved_model(path, report)
        return
    if os.path.lexists(path) and not os.path.isdir(path):
        _check_safetensors(path, report)
        return
    if not os.path.isdir(path):
        report.damage(path, "checkpoint does not exist")
        return
    if _is_snapshot(path):
        _check_snapshot(path, report)
        return
    report_leftovers(path, report)
    found = False
    for name in _listdir(path):
        sub = os.path.join(path, name)
        if is_staging(name):
            continue
        if os.path.isdir(sub) and _is_snapshot(sub):
            found = True
            _check_snapshot(sub, report)
        elif os.path.isfile(sub) and name.endswith(".safetensors"):
            found = True
            _check_safetensors(sub, report)
    if not found:
        report.damage(
            path,
            "no checkpoint found (no variable directories with an 'out' file, "
            "no snapshots, no .safetensors files)",
        )


def _check_safetensors(path: str, report: Report) -> None:
    """The header against the file size; no tensor is read (bounded memory)."""
    from .. import checkpoint as ckpt

    try:
        count = ckpt.check_safetensors(path)
    except (ckpt.CheckpointError, OSError, ValueError) as exc:
        report.damage(path, str(exc))
    else:
        report.ok(path, f"safetensors, {count} tensor(s)")


# --- saved models -----------------------------------------------------------------------
_META = "saved_model.json"


def _is_saved_model(path: str) -> bool:
    if os.path.lexists(os.path.join(path, _META)):
        return True
    return any(
        name.isdigit() and os.path.lexists(os.path.join(path, name, _META))
        for name in _listdir(path)
    )


def check_saved_model(path: str, report: Report) -> None:
    """Each version folder: complete, metadata fields and paths valid, every file's size
    and CRC-32C as its manifest lists them (streamed: bounded memory)."""
    from ..export import ExportError, SavedModel
    from ..export._loader import UncheckedModelWarning

    if os.path.lexists(os.path.join(path, _META)):
        versions = [path]
    else:
        report_leftovers(path, report)
        versions = [
            os.path.join(path, n) for n in _listdir(path) if n.isdigit() and not is_staging(n)
        ]
    for version in versions:
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", UncheckedModelWarning)
                model = SavedModel(version)
            if caught:  # no manifest: nothing can be checked (load warns the same)
                report.warn(version, str(caught[0].message))
                continue
            files = model.verify()
        except (ExportError, OSError, ValueError) as exc:
            report.damage(version, str(exc))
        else:
            report.ok(version, f"saved model, {files} file(s) match the manifest")
