"""OneRec files: frames of FlatBuffers ``onerec.example.Example`` messages.

Frame layout (OneFlow v0.4.0 ``OneRecDataset``), little-endian: int64 magic ``^ONEREC$``,
int32 reserved (0), int32 payload size, 8-byte XXH64 (seed 0) of those 16 bytes, the payload,
zero padding to a multiple of 8 bytes, 8-byte XXH64 of the payload; both digests are stored
big-endian. Payloads are read and written with the classes flatc generated from
``onerec_example.fbs`` (``_onerec_generated.py``), never by hand.
"""

from __future__ import annotations

import os
import struct
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from ._decode import DecodeError
from ._record import RecordError, describe_record

MAGIC = 0x24434552454E4F5E  # '^ONEREC$' read as a little-endian int64
_HEADER = struct.Struct("<qii")
_IDENTIFIER = b"1REC"
_LISTS = {  # TensorData member -> (generated list class name, dtype)
    1: ("Int8List", np.int8),
    2: ("Int16List", np.int16),
    3: ("Int32List", np.int32),
    4: ("Int64List", np.int64),
    5: ("Float32List", np.float32),
    6: ("Float64List", np.float64),
}


_NEEDS = "OneRec files need the packages flatbuffers and xxhash (pip install 'flowjob[onerec]')"


def _xxh64(data: bytes) -> bytes:
    try:
        import xxhash
    except ImportError:
        raise ImportError(_NEEDS) from None
    return xxhash.xxh64_digest(data, seed=0)  # big-endian bytes, as OneFlow stores them


def _generated() -> Any:
    try:
        from . import _onerec_generated
    except ImportError:
        raise ImportError(_NEEDS) from None
    return _onerec_generated


def frame(payload: bytes) -> bytes:
    header = _HEADER.pack(MAGIC, 0, len(payload))
    padding = b"\0" * (-len(payload) % 8)
    return header + _xxh64(header) + payload + padding + _xxh64(payload)


def iter_frames(path: str | os.PathLike) -> Iterator[tuple[int, bytes]]:
    """``(byte offset, payload)`` of each frame; damage raises ``RecordError`` with the offset."""
    path = os.fspath(path)
    with open(path, "rb") as handle:
        data = handle.read()
    offset = 0
    while offset < len(data):
        if offset + 24 > len(data):
            raise RecordError(
                f"{path}: truncated OneRec frame at byte offset {offset} (the "
                "file ends inside its 24-byte header)"
            )
        head = data[offset : offset + 16]
        magic, reserved, size = _HEADER.unpack(head)
        if magic != MAGIC or reserved != 0 or size < 0:
            raise RecordError(
                f"{path}: bad OneRec frame at byte offset {offset}: no '^ONEREC$' "
                "header (is this a OneRec file?)"
            )
        if data[offset + 16 : offset + 24] != _xxh64(head):
            raise RecordError(
                f"{path}: OneRec frame at byte offset {offset}: header digest mismatch"
            )
        start = offset + 24
        end = start + size + (-size % 8) + 8
        if end > len(data):
            raise RecordError(
                f"{path}: truncated OneRec frame at byte offset {offset}: it needs "
                f"{end - offset} bytes but the file has {len(data) - offset} left"
            )
        payload = data[start : start + size]
        if data[end - 8 : end] != _xxh64(payload):
            raise RecordError(
                f"{path}: OneRec frame at byte offset {offset}: payload digest mismatch"
            )
        yield offset, payload
        offset = end


def parse_example(
    payload: bytes, path: str = "<bytes>", offset: int = 0, verify: bool = True
) -> dict[str, tuple[tuple[int, ...], np.ndarray]]:
    """An Example as ``{feature name: (shape, values)}`` (numeric tensors only)."""
    gen = _generated()
    if verify and payload[4:8] != _IDENTIFIER:
        raise RecordError(
            f"{path}: OneRec frame at byte offset {offset} does not hold an "
            "Example (file identifier '1REC' missing)"
        )
    example = gen.Example.GetRootAs(payload, 0)
    out = {}
    for i in range(example.FeaturesLength()):
        feature = example.Features(i)
        tensor = feature.Tensor()
        name = feature.Name().decode()
        if tensor is None or tensor.DataType() not in _LISTS:
            out[name] = ((), None)  # strings and binaries: not decodable to arrays
            continue
        cls, dtype = _LISTS[tensor.DataType()]
        table = tensor.Data()
        values = getattr(gen, cls)()
        values.Init(table.Bytes, table.Pos)
        array = values.ValuesAsNumpy()
        shape = tuple(int(d) for d in tensor.ShapeAsNumpy()) if tensor.ShapeLength() else ()
        out[name] = (shape, np.asarray(array if not isinstance(array, int) else [], dtype))
    return out


def make_example(features: Mapping[str, Any]) -> bytes:
    """One serialized Example from ``{name: array}`` (int8/16/32/64 or float32/64 arrays)."""
    gen = _generated()
    import flatbuffers

    kinds = {np.dtype(dt): (code, cls) for code, (cls, dt) in _LISTS.items()}
    builder = flatbuffers.Builder(256)
    offsets = []
    for name in sorted(features):  # Feature.name is the key: the vector is sorted by it
        array = np.asarray(features[name])
        if array.dtype not in kinds:
            raise TypeError(
                f"feature {name!r}: OneRec holds int8/16/32/64 and float32/64 "
                f"tensors, got {array.dtype}"
            )
        code, cls = kinds[array.dtype]
        values = builder.CreateNumpyVector(np.ascontiguousarray(array).reshape(-1))
        getattr(gen, f"{cls}Start")(builder)
        getattr(gen, f"{cls}AddValues")(builder, values)
        data = getattr(gen, f"{cls}End")(builder)
        shape = builder.CreateNumpyVector(np.asarray(array.shape, np.int32))
        gen.TensorStart(builder)
        gen.TensorAddShape(builder, shape)
        gen.TensorAddDataType(builder, code)
        gen.TensorAddData(builder, data)
        tensor = gen.TensorEnd(builder)
        text = builder.CreateString(name)
        gen.FeatureStart(builder)
        gen.FeatureAddName(builder, text)
        gen.FeatureAddTensor(builder, tensor)
        offsets.append(gen.FeatureEnd(builder))
    gen.ExampleStartFeaturesVector(builder, len(offsets))
    for feature in reversed(offsets):
        builder.PrependUOffsetTRelative(feature)
    vector = builder.EndVector()
    gen.ExampleStart(builder)
    gen.ExampleAddFeatures(builder, vector)
    builder.Finish(gen.ExampleEnd(builder), _IDENTIFIER)
    return bytes(builder.Output())


def write_onerec(path: str | os.PathLike, features: Mapping[str, Sequence[Any]]) -> str:
    """Writes one OneRec file, one Example per index of the feature arrays; returns the path."""
    counts = {len(v) for v in features.values()}
    if len(counts) != 1:
        raise ValueError("write_onerec: every feature needs one value per example")
    path = os.fspath(path)
    with open(path, "wb") as handle:
        for i in range(counts.pop()):
            handle.write(frame(make_example({n: v[i] for n, v in features.items()})))
    return path


def decode(
    examples: Sequence[dict],
    key: str,
    dtype: np.dtype,
    shape: tuple[int, ...],
    pad_dim0: bool = False,
    reshape: tuple[int, ...] | None = None,
) -> np.ndarray:
    """``onerec_decoder``: each example's tensor ``key`` (of ``dtype``'s list type), optionally
    reshaped, as ``(batch, *shape)``; ``pad_dim0`` zero-pads a shorter first axis."""
    out = np.zeros((len(examples), *shape), dtype)
    for i, example in enumerate(examples):
        where = f"onerec_decoder: feature {key!r} of {describe_record(examples, i)}"
        if key not in example:
            raise DecodeError(
                f"onerec_decoder: feature {key!r} not found in "
                f"{describe_record(examples, i)} (its features: "
                f"{', '.join(sorted(example))})"
            )
        dims, values = example[key]
        if values is None or values.dtype != dtype:
            have = "no numeric tensor" if values is None else values.dtype
            raise DecodeError(
                f"{where} holds {have}, the decoder's dtype is "
                f"{np.dtype(dtype)} (OneFlow does not convert)"
            )
        if reshape is not None:
            dims = tuple(
                values.size // max(1, -int(np.prod(reshape))) if d == -1 else d for d in reshape
            )
        if (
            len(dims) != len(shape)
            or dims[1:] != shape[1:]
            or (dims[:1] != shape[:1] and not (pad_dim0 and dims[0] <= shape[0]))
        ):
            raise DecodeError(
                f"{where} has shape {dims}, expected {shape}"
                + (" (or a shorter first axis)" if pad_dim0 else "")
            )
        if shape:
            out[i, : dims[0]] = values.reshape(dims)
        else:
            out[i] = values.reshape(())
    return out
