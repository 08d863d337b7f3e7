"""``flow.get_all_variables``, ``flow.checkpoint.save/get``, ``flow.load_variables``."""

from __future__ import annotations

import errno
import os
import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np

from flowjob._src._enum import Mode
from flowjob._src._traceback import api_boundary
from flowjob._src.checkpoint import _oneflow_dir, _safetensors
from flowjob._src.checkpoint._blobs import (
    FileBackendVariableBlob,
    VariableBlob,
    value_array,
    value_spec,
)
from flowjob._src.checkpoint._meta import CheckpointError


class CheckpointFormat(Mode):
    """What ``save`` writes: OneFlow's directory layout or one safetensors file."""

    ONEFLOW = "oneflow"
    SAFETENSORS = "safetensors"


def _session() -> Any:
    """The default session (imported lazily; tests substitute a fake here)."""
    from flowjob._src.runtime import default_session

    return default_session()


@api_boundary
def get_all_variables() -> dict[str, VariableBlob]:
    """Every variable of every defined job, optimizer slots and train steps included.

    Traces all jobs first (so every variable exists) and waits for launched work, so the values
    are those after all calls made so far. Errors of handlers and callbacks are left for the
    next synchronisation point; a job whose body fails to trace is skipped with a warning.
    """
    sess = _session()
    sess.trace_all()
    sess.wait()
    specs = sess.variable_specs()
    arrays = sess.variable_arrays()
    return {name: VariableBlob(name, arrays[name], specs[name][1]) for name in sorted(arrays)}


_DISK_ERRORS = {errno.ENOSPC, errno.EFBIG, errno.EDQUOT, errno.EIO, errno.EROFS, errno.EACCES}


@api_boundary
def save(
    path: str | os.PathLike,
    var_dict: Mapping[str, object] | None = None,
    format: str | CheckpointFormat = "oneflow",
) -> None:
    """Saves ``var_dict`` (default: all variables) to ``path``, atomically.

    ``format="oneflow"`` writes OneFlow's directory layout (``<var>/out``, ``<var>/meta``,
    ``snapshot_done``); ``path`` must not be a file or a non-empty directory.
    ``format="safetensors"`` writes one safetensors file; ``path`` must not exist.
    Values may be ``VariableBlob``, ``FileBackendVariableBlob`` (with meta) or NumPy arrays.
    ``save(var_dict, path)`` (the argument order of OneFlow's ``flow.save``) is accepted too.
    In a multi-process job every process calls it; the first one writes, and it returns in
    every process once the checkpoint is complete.

    Args:
        path: the checkpoint's folder (OneFlow's layout) or file (safetensors).
        var_dict: name -> value to save; None saves every variable of the session.
        format: ``"oneflow"`` or ``"safetensors"``.

    Raises:
        ValueError: an unknown ``format``.
        OSError: the disk is full or not writable; the message names the checkpoint, nothing
            new is left behind and an earlier checkpoint is intact.

    Examples:
        >>> import os, tempfile, numpy as np, flowjob as flow
        >>> path = os.path.join(tempfile.mkdtemp(), "ckpt")
        >>> flow.checkpoint.save(path, {"w": np.arange(3, dtype=np.float32)})
        >>> sorted(os.listdir(path))
        ['snapshot_done', 'w']
        >>> flow.checkpoint.get(path)["w"].numpy()
        array([0., 1., 2.], dtype=float32)
    """
    if isinstance(path, Mapping) and isinstance(var_dict, (str, os.PathLike)):
        path, var_dict = var_dict, path  # flow.save(var_dict, save_dir), OneFlow's alias order
    kind = CheckpointFormat.lookup(format)
    if kind is None:
        raise ValueError(
            f"save: format must be one of "
            f"{tuple(f.value for f in CheckpointFormat)}, got {format!r}"
        )
    path = os.fspath(path)
    if var_dict is None:
        var_dict = get_all_variables()
    elif not isinstance(var_dict, Mapping):
        raise TypeError(
            f"save: var_dict must be a dict of name -> value, got {type(var_dict).__name__}"
        )
    primary = getattr(_session(), "primary", True)  # starts jax.distributed if configured

    def write() -> None:
        try:
            if kind == CheckpointFormat.ONEFLOW:
                _oneflow_dir.save_dir(path, var_dict)
            else:
                _safetensors.save_file(path, var_dict)
        except OSError as exc:
            if exc.errno not in _DISK_ERRORS:
                raise
            # The bare "No space left on device" names no file; the earlier checkpoint is intact.
            raise OSError(
                exc.errno, f"saving checkpoint {path} failed: {exc.strerror}", path
            ) from exc

    from flowjob._src.processes import first_process_does

    # Several processes: values are gathered everywhere, the first one writes, and every
    # process returns once the checkpoint is complete.
    first_process_does(f"checkpoint.save({path!r})", write, primary)


@api_boundary
def get(
    path: str | os.PathLike, *, allow_incomplete: bool = False
) -> FileBackendVariableBlob | dict[str, Any]:
    """Reads a checkpoint without touching any variable.

    A OneFlow directory gives one ``FileBackendVariableBlob`` when ``path/out`` exists, else
    ``{name: FileBackendVariableBlob}`` for each subdirectory holding an ``out`` file. A
    variable directory with a ``meta`` but no ``out`` file raises ``CheckpointError`` naming
    it (``allow_incomplete=True``: warn and read what is there), as do a truncated ``out`` and
    a broken ``meta``. A directory without ``snapshot_done`` is read as OneFlow read it, with a
    warning naming it (once). A safetensors file gives
    ``{name: VariableBlob}``.
    """
    path = os.fspath(path)
    if os.path.isdir(path):
        return _oneflow_dir.load_dir(path, allow_incomplete)
    if not os.path.lexists(path):
        raise FileNotFoundError(
            f"checkpoint.get: {path} does not exist (expected a OneFlow "
            "checkpoint directory or a safetensors file)"
        )
    # anything else is read as a safetensors file, which refuses FIFOs and devices by name
    return _oneflow_dir.Checkpoint(path, _safetensors.load_file(path))


# Whether a checkpoint lacking some of the job's variables is an error (``strict``); OneFlow
# v0.4 loaded the variables a folder had and kept the others (ignore_mismatch=True).
_strict = [False]


def save_object(obj: Mapping[str, object] | None, save_dir: str | os.PathLike) -> None:
    """``flow.save(obj, save_dir)``: OneFlow's top-level spelling of ``checkpoint.save``,
    the variables first (``save(save_dir, obj)``; flowjob's ``(path, var_dict)`` order is
    accepted too).

    Examples:
        >>> import os, tempfile, numpy as np, flowjob as flow
        >>> path = os.path.join(tempfile.mkdtemp(), "ckpt")
        >>> flow.save(obj={"w": np.zeros(2, np.float32)}, save_dir=path)
        >>> sorted(os.listdir(path))
        ['snapshot_done', 'w']
    """
    if isinstance(obj, (str, os.PathLike)) and not isinstance(save_dir, (str, os.PathLike)):
        obj, save_dir = save_dir, obj  # flowjob's own (path, var_dict) order
    save(save_dir, obj)


def strict(enabled: bool = True) -> None:
    """Makes every later checkpoint load of this process strict (``enabled``) or OneFlow's
    lenient default: strict, a checkpoint that lacks one of the job's variables is a
    ``CheckpointError`` and nothing is loaded; lenient, the variables it has are loaded, the
    others keep their values and one warning names how many and the first few.

    Examples:
        >>> import flowjob as flow
        >>> flow.checkpoint.strict(True)
        >>> flow.checkpoint.strict(False)
    """
    _strict[0] = bool(enabled)


def _strict_now(value: bool | None) -> bool:
    return _strict[0] if value is None else bool(value)


@api_boundary
def load_variables(
    value_dict: Mapping[str, object], ignore_mismatch: bool = True, *, strict: bool | None = None
) -> None:
    """Assigns ``value_dict``'s values to the variables of the same names.

    Shapes must be equal and dtypes identical (a float64 array does not go into a float32
    variable). Keys that name no variable are ignored unless ``ignore_mismatch=False``.
    Everything is checked before anything is assigned; variables not in the dict keep their
    values. When the dict is a whole checkpoint (``flow.checkpoint.get``), variables it lacks
    keep their values and one warning says how many (``ignore_mismatch=False``, ``strict=True``
    or ``flow.checkpoint.strict()``: a ``CheckpointError``, nothing loaded).
    """
    missing_raises = not ignore_mismatch or _strict_now(strict)
    _load(value_dict, ignore_extra=ignore_mismatch, missing_raises=missing_raises)


def restore(path: str | os.PathLike, strict: bool | None = None) -> None:
    """Loads a checkpoint as OneFlow v0.4's ``CheckPoint().load`` did
    (``train.CheckPoint().load``, ``SimpleCheckPointManager.initialize_or_restore``): the
    variables it has; the others keep their values, named in a warning (``strict``: an error,
    nothing loaded). Damaged files and shape or dtype mismatches are always errors."""
    _load(get(path), ignore_extra=True, missing_raises=_strict_now(strict))


_SHOWN = 5  # missing variables named in the warning


def _load(value_dict: Mapping[str, object], ignore_extra: bool, missing_raises: bool) -> None:
    """``missing_raises``: a variable the checkpoint lacks is an error (else a warning)."""
    if not isinstance(value_dict, Mapping):
        raise TypeError(
            "load_variables: value_dict must be a dict of name -> value (for one "
            f"variable use {{name: value}}), got {type(value_dict).__name__}"
        )
    sess = _session()
    sess.trace_all()
    sess.wait()
    specs = sess.variable_specs()
    new_values: dict[str, np.ndarray] = {}
    later: dict[str, np.ndarray] = {}  # for variables eager jobs have yet to define
    defers = sess.defers_variables()
    for name, value in value_dict.items():
        if name not in specs:
            legacy = isinstance(value, FileBackendVariableBlob) and not value.has_meta_info
            if defers and not legacy:  # a legacy file without meta has no shape to keep
                later[name] = value_array(value, *value_spec(name, value))
                continue
            if ignore_extra:
                continue
            raise CheckpointError(
                f'"{name}" is not a variable name (known variables: '
                f"{', '.join(sorted(specs)) or 'none'})"
            )
        shape, dtype = specs[name]
        shape = tuple(shape)
        if isinstance(value, FileBackendVariableBlob):
            value = value.with_spec(shape, dtype)  # legacy snapshots take the target's spec
        value_shape, value_dtype = value_spec(name, value)
        if value_shape != shape:
            raise CheckpointError(
                f'load_variables: shape mismatch for variable "{name}": {shape} vs '
                f"{value_shape} (variable vs value)"
            )
        if value_dtype.np_dtype != dtype.np_dtype:
            raise CheckpointError(
                f'load_variables: dtype mismatch for variable "{name}": {dtype.name} vs '
                f"{value_dtype.name} (variable vs value); convert the value explicitly"
            )
        new_values[name] = value_array(value, shape, dtype)
    lacking = sorted(set(specs) - set(value_dict))
    if lacking and isinstance(value_dict, _oneflow_dir.Checkpoint):
        shown = ", ".join(map(repr, lacking[:_SHOWN]))
        more = f" and {len(lacking) - _SHOWN} more" if len(lacking) > _SHOWN else ""
        text = (
            f"checkpoint {value_dict.path} has no value for {len(lacking)} of the "
            f"{len(specs)} variable(s): {shown}{more}"
        )
        if missing_raises:
            raise CheckpointError(
                f"{text}; nothing was loaded (strict mode; OneFlow's lenient load, the "
                "variables it has: strict=False or flow.checkpoint.strict(False))"
            )
        warnings.warn(f"{text}: they kept their current values", UserWarning, stacklevel=3)
    if later:
        sess.defer_variables(later)
    if new_values:
        sess.assign_variables(new_values)
