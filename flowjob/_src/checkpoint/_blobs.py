"""Values held by checkpoints: in-memory variable snapshots and file-backed variables."""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Iterator

import numpy as np

from flowjob._src._dtypes import DType, as_dtype
from flowjob._src._files import check_regular, open_regular, read_bounded
from flowjob._src.checkpoint._meta import CheckpointError, parse_meta

DATA_FILENAME = "out"
META_FILENAME = "meta"
SNAPSHOT_DONE = "snapshot_done"
# OneFlow writes variables in <= 32 MiB slices; we stream the same way to bound peak memory.
CHUNK_BYTES = 32 << 20
# A meta file is a shape and a dtype in text; even thousands of dims take a few kB.
META_LIMIT = 1 << 20


def _little_endian(arr: np.ndarray) -> np.ndarray:
    arr = np.ascontiguousarray(arr)
    if sys.byteorder == "big" and arr.dtype.itemsize > 1:
        arr = arr.byteswap()
    return arr


def array_chunks(arr: np.ndarray) -> Iterator[memoryview]:
    """The array's C-order little-endian bytes in slices of at most ``CHUNK_BYTES``."""
    flat = _little_endian(arr).reshape(-1).view(np.uint8)
    for start in range(0, flat.size, CHUNK_BYTES):
        yield memoryview(flat[start : start + CHUNK_BYTES])


def from_little_endian(
    buffer: bytes | bytearray, dtype: DType, shape: tuple[int, ...]
) -> np.ndarray:
    """A writable array of ``shape`` from raw little-endian element bytes."""
    arr = np.frombuffer(buffer, dtype=dtype.np_dtype).reshape(shape)
    if sys.byteorder == "big" and dtype.itemsize > 1:
        arr = arr.byteswap()
    return arr if arr.flags.writeable else arr.copy()


class VariableBlob:
    """A host copy of one variable's value: ``.numpy()``, ``.shape``, ``.dtype``.

    ``flow.get_all_variables()`` returns these; the value is the one the variable had when the
    dict was made (the session is synced first), not a live view.
    """

    def __init__(self, name: str, value: np.ndarray, dtype: DType | None = None) -> None:
        self.name = name
        self._value = np.asarray(value)
        self._dtype = as_dtype(self._value.dtype) if dtype is None else as_dtype(dtype)

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self._value.shape)

    @property
    def dtype(self) -> DType:
        return self._dtype

    def numpy(self) -> np.ndarray:
        """A copy of the value as a NumPy array."""
        return self._value.copy()

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        if dtype is not None or copy:
            return self._value.astype(dtype or self._value.dtype)
        view = self._value.view()
        view.setflags(write=False)  # zero-copy for saving, but the snapshot stays as taken
        return view

    def __repr__(self) -> str:
        return f"VariableBlob(name={self.name!r}, shape={self.shape}, dtype={self._dtype!r})"


class FileBackendVariableBlob:
    """One variable stored in OneFlow's layout: ``<var_dir>/out`` (+ ``<var_dir>/meta``).

    Without a ``meta`` file (legacy snapshots) ``shape`` and ``dtype`` are ``None`` until the
    value is interpreted for a target variable (``with_spec``), which ``load_variables`` does.
    """

    def __init__(
        self, var_dir: str | os.PathLike, dtype: object = None, shape: tuple[int, ...] | None = None
    ) -> None:
        self.var_dir = os.fspath(var_dir)
        data_path = os.path.join(self.var_dir, DATA_FILENAME)
        check_regular(data_path, what="variable data file", error=CheckpointError)
        if (dtype is None) != (shape is None):
            raise ValueError("FileBackendVariableBlob: give both shape and dtype, or neither")
        meta_path = os.path.join(self.var_dir, META_FILENAME)
        # lexists, not isfile: a FIFO or device named meta is an error, not a legacy snapshot
        self._has_meta = os.path.lexists(meta_path)
        self._shape: tuple[int, ...] | None = None
        self._dtype: DType | None = None
        if self._has_meta:
            raw = read_bounded(meta_path, META_LIMIT, what="meta file", error=CheckpointError)
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise CheckpointError(f"{meta_path}: cannot read meta file: {exc}") from exc
            self._shape, self._dtype = parse_meta(text, meta_path)
            if shape is not None and (tuple(shape), as_dtype(dtype)) != (self._shape, self._dtype):
                raise CheckpointError(
                    f"{meta_path}: records shape {self._shape} and {self._dtype.name}, "
                    f"not the requested {tuple(shape)} and {as_dtype(dtype).name}"
                )
        elif shape is not None:
            self._shape, self._dtype = tuple(int(d) for d in shape), as_dtype(dtype)
        if self._dtype is not None:
            self._check_size()

    def _check_size(self) -> None:
        expected = math.prod(self._shape) * self._dtype.itemsize
        actual = check_regular(
            self.file_path, what="variable data file", error=CheckpointError
        ).st_size
        if actual != expected:
            raise CheckpointError(
                f"{self.file_path}: holds {actual} bytes but shape {self._shape} of "
                f"{self._dtype.name} needs {expected} bytes (truncated or corrupt checkpoint)"
            )

    @property
    def file_path(self) -> str:
        return os.path.join(self.var_dir, DATA_FILENAME)

    @property
    def has_meta_info(self) -> bool:
        """True when shape and dtype are known (from ``meta`` or given explicitly)."""
        return self._dtype is not None

    @property
    def shape(self) -> tuple[int, ...] | None:
        return self._shape

    @property
    def dtype(self) -> DType | None:
        return self._dtype

    def with_spec(self, shape: tuple[int, ...], dtype: DType) -> FileBackendVariableBlob:
        """This blob if it has meta info, else the legacy data read as ``shape``/``dtype``."""
        if self.has_meta_info:
            return self
        return FileBackendVariableBlob(self.var_dir, dtype=dtype, shape=shape)

    def numpy(self) -> np.ndarray:
        """Reads the value (needs meta info; see ``with_spec`` for legacy snapshots)."""
        if not self.has_meta_info:
            raise CheckpointError(
                f"{self.var_dir}: this variable does not have meta info (legacy snapshot "
                "without a 'meta' file); load it with flow.load_variables, which reads it with "
                "the target variable's shape and dtype"
            )
        expected = math.prod(self._shape) * self._dtype.itemsize
        with self._open(expected) as f:
            data = bytearray(f.read(expected + 1))
        if len(data) != expected:
            self._check_size()  # the file changed while we read it
        return from_little_endian(data, self._dtype, self._shape)

    def _open(self, expected: int):  # noqa: ANN202 - a context manager of a binary file
        self._check_size()
        return open_regular(
            self.file_path, what="variable data file", limit=expected, error=CheckpointError
        )

    def chunks(self) -> Iterator[bytes]:
        """The raw data file in slices (used to copy checkpoints without decoding them)."""
        with self._open(math.prod(self._shape) * self._dtype.itemsize) as f:
            while chunk := f.read(CHUNK_BYTES):
                yield chunk

    def __repr__(self) -> str:
        return (
            f"FileBackendVariableBlob({self.var_dir!r}, shape={self._shape}, dtype={self._dtype!r})"
        )


def value_spec(name: str, value: object) -> tuple[tuple[int, ...], DType]:
    """Shape and dtype of a checkpoint value, with a clear error for unusable ones."""
    if isinstance(value, FileBackendVariableBlob):
        if not value.has_meta_info:
            raise CheckpointError(
                f'variable "{name}": {value.var_dir} has no meta file, so its shape and dtype '
                "are unknown; load it into a variable first (flow.load_variables)"
            )
        return value.shape, value.dtype
    if isinstance(value, VariableBlob):
        return value.shape, value.dtype
    if isinstance(value, np.ndarray) or (hasattr(value, "__array__") and hasattr(value, "dtype")):
        arr = np.asarray(value)
        try:
            return tuple(arr.shape), as_dtype(arr.dtype)
        except TypeError as exc:
            raise CheckpointError(f'variable "{name}": {exc}') from None
    raise TypeError(
        f'variable "{name}": expected a VariableBlob, FileBackendVariableBlob or NumPy array, '
        f"got {type(value).__name__}"
    )


def value_chunks(value: object) -> Iterator[bytes | memoryview]:
    """Raw little-endian bytes of a value accepted by ``value_spec``."""
    if isinstance(value, FileBackendVariableBlob):
        return value.chunks()
    return array_chunks(np.asarray(value))


def value_array(value: object, shape: tuple[int, ...], dtype: DType) -> np.ndarray:
    """The value as an array, legacy file blobs read as ``shape``/``dtype``."""
    if isinstance(value, FileBackendVariableBlob):
        return value.with_spec(shape, dtype).numpy()
    if isinstance(value, VariableBlob):
        return value.numpy()
    return np.array(value, copy=True)
