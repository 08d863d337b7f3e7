"""Single-file safetensors checkpoints, written and read without the ``safetensors`` package.

Layout: 8-byte little-endian header length N, N bytes of JSON
``{name: {"dtype": "F32", "shape": [...], "data_offsets": [begin, end]}, "__metadata__": {...}}``
(offsets relative to the byte buffer that follows), then the raw little-endian tensor bytes.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping
from typing import BinaryIO

import numpy as np

from flowjob._src import _dtypes
from flowjob._src._dtypes import DType
from flowjob._src._files import atomic_file, open_regular
from flowjob._src.checkpoint._blobs import (
    VariableBlob,
    from_little_endian,
    value_chunks,
    value_spec,
)
from flowjob._src.checkpoint._meta import CheckpointError

_CODES: dict[str, DType] = {
    "F32": _dtypes.float32,
    "F64": _dtypes.float64,
    "F16": _dtypes.float16,
    "BF16": _dtypes.bfloat16,
    "I8": _dtypes.int8,
    "I32": _dtypes.int32,
    "I64": _dtypes.int64,
    "U8": _dtypes.uint8,
}
# OneFlow's kChar is a signed byte; safetensors has no separate code for it.
_CODE_OF = {d.np_dtype: code for code, d in _CODES.items()}
# The reference implementation refuses larger headers; so do we (protects against garbage).
_MAX_HEADER = 100_000_000


def save_file(path: str, values: Mapping[str, object]) -> None:
    """Writes ``values`` to one safetensors file, atomically; ``path`` must not exist."""
    header: dict[str, object] = {}
    offset = 0
    for name, value in values.items():
        if not isinstance(name, str) or not name or name == "__metadata__":
            raise CheckpointError(f"variable name {name!r} cannot be a safetensors tensor name")
        shape, dtype = value_spec(name, value)
        nbytes = math.prod(shape) * dtype.itemsize
        header[name] = {
            "dtype": _CODE_OF[dtype.np_dtype],
            "shape": list(shape),
            "data_offsets": [offset, offset + nbytes],
        }
        offset += nbytes
    if os.path.lexists(path):
        raise FileExistsError(
            f"{path} already exists: flow.checkpoint.save never overwrites; choose a new path "
            "or remove the old file first"
        )
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)  # keep the tensor data 8-byte aligned, like the reference
    # replace=False: of two saves racing for one path, the second is refused (FileExistsError)
    # instead of silently replacing the first one's checkpoint.
    with atomic_file(path, replace=False) as f:
        f.write(len(text).to_bytes(8, "little"))
        f.write(text)
        for value in values.values():
            for chunk in value_chunks(value):
                f.write(chunk)


def _fail(path: str, why: str) -> CheckpointError:
    return CheckpointError(f"{path}: not a valid safetensors file: {why}")


_Entry = tuple[tuple[int, ...], DType, int, int]


def _entry(path: str, name: object, info: object, buffer_len: int) -> _Entry:
    if not isinstance(info, dict) or not {"dtype", "shape", "data_offsets"} <= info.keys():
        raise _fail(path, f"tensor {name!r} needs 'dtype', 'shape' and 'data_offsets'")
    code, shape, offsets = info["dtype"], info["shape"], info["data_offsets"]
    if code not in _CODES:
        raise CheckpointError(
            f"{path}: tensor {name!r} has dtype {code!r}, which flowjob does not support "
            f"(supported: {', '.join(_CODES)})"
        )
    if not isinstance(shape, list) or not all(type(d) is int and d >= 0 for d in shape):
        raise _fail(path, f"tensor {name!r} has shape {shape!r}")
    if (
        not isinstance(offsets, list)
        or len(offsets) != 2
        or not all(type(o) is int for o in offsets)
        or not 0 <= offsets[0] <= offsets[1] <= buffer_len
    ):
        raise _fail(
            path,
            f"tensor {name!r} has data_offsets {offsets!r} outside the "
            f"{buffer_len}-byte data section (truncated file?)",
        )
    dtype = _CODES[code]
    if offsets[1] - offsets[0] != math.prod(shape) * dtype.itemsize:
        raise _fail(
            path,
            f"tensor {name!r}: {offsets[1] - offsets[0]} bytes for shape {tuple(shape)} of {code}",
        )
    return tuple(shape), dtype, offsets[0], offsets[1]


def _header(path: str, f: BinaryIO, size: int) -> tuple[int, dict[str, _Entry]]:
    """The header length and the checked entries of an open safetensors file."""
    head = f.read(8)
    if len(head) != 8:
        raise _fail(path, f"only {size} bytes, shorter than the 8-byte header length")
    n = int.from_bytes(head, "little")
    if n > min(size - 8, _MAX_HEADER):
        raise _fail(path, f"header length {n} exceeds the file size {size} (truncated?)")
    try:
        header = json.loads(f.read(n).decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise _fail(path, f"header is not JSON ({exc})") from None
    if not isinstance(header, dict):
        raise _fail(path, "header is not a JSON object")
    header.pop("__metadata__", None)
    return n, {name: _entry(path, name, info, size - 8 - n) for name, info in header.items()}


def check_file(path: str) -> int:
    """Checks a safetensors file's header against its size without reading any tensor
    (``flowjob doctor``: bounded memory whatever the tensors' sizes); the tensor count."""
    with open_regular(path, what="safetensors file", error=CheckpointError) as f:
        size = os.fstat(f.fileno()).st_size
        return len(_header(path, f, size)[1])


class SafetensorsBlob(VariableBlob):
    """One tensor of a safetensors file, read from the file each time its value is asked for
    (``checkpoint.get`` of a file larger than memory reads only the tensors used). A file
    replaced or changed since ``get`` raises ``CheckpointError`` rather than mixing versions.

    Examples:
        >>> import os, tempfile, numpy as np
        >>> path = os.path.join(tempfile.mkdtemp(), "w.safetensors")
        >>> save_file(path, {"w": np.arange(3, dtype=np.float32)})
        >>> blob = load_file(path)["w"]
        >>> blob.shape, blob.numpy().tolist()
        ((3,), [0.0, 1.0, 2.0])
    """

    def __init__(self, name: str, path: str, stamp: tuple, entry: _Entry, data_start: int) -> None:
        self.name = name
        self._path, self._stamp = path, stamp
        self._shape, self._dtype, begin, end = entry
        self._begin, self._nbytes = data_start + begin, end - begin

    @property
    def shape(self) -> tuple[int, ...]:
        return self._shape

    @property
    def _value(self) -> np.ndarray:
        with open_regular(self._path, what="safetensors file", error=CheckpointError) as f:
            if _stamp(os.fstat(f.fileno())) != self._stamp:
                raise CheckpointError(
                    f"{self._path}: the file changed after flow.checkpoint.get read its "
                    f"header; tensor {self.name!r} is not read from a different file "
                    "(call checkpoint.get again)"
                )
            f.seek(self._begin)
            data = bytearray(f.read(self._nbytes))
        if len(data) != self._nbytes:
            raise _fail(self._path, f"tensor {self.name!r} is truncated")
        return from_little_endian(data, self._dtype, self._shape)

    def numpy(self) -> np.ndarray:
        """The value, read from the file (a fresh array each call)."""
        return self._value


def _stamp(st: os.stat_result) -> tuple:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def load_file(path: str) -> dict[str, VariableBlob]:
    """The tensors of a safetensors file (names in the file's order), each read on demand
    (:class:`SafetensorsBlob`): only the header is read here."""
    with open_regular(path, what="safetensors file", error=CheckpointError) as f:
        st = os.fstat(f.fileno())
        n, entries = _header(path, f, st.st_size)
    return {
        name: SafetensorsBlob(name, path, _stamp(st), entry, 8 + n)
        for name, entry in entries.items()
    }
