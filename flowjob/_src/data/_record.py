"""OFRecord: protobuf classes of OneFlow's ``record.proto`` and the file framing.

The message classes are built at import from a ``FileDescriptorProto`` written here with the
facts of OneFlow v0.4.0's OFRecord schema (proto2, package ``oneflow``, the message and field
names, numbers and types, packed numeric lists), so records are parsed and serialized by the
protobuf library itself, on any protobuf runtime version.

File framing (OneFlow's ``OFRecordDataset::ReadSample``): each record is an int64 byte count
in little-endian order followed by that many bytes of a serialized ``OFRecord``; a file is
records back to back with nothing else.
"""

from __future__ import annotations

import os
import struct
from collections.abc import Iterator
from typing import Any

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

from .._files import open_regular
from ..errors import FlowJobError

_HEADER = struct.Struct("<q")
# A serialized OFRecord larger than this is not a record: the length field is garbage.
_MAX_RECORD_BYTES = 1 << 31


class RecordError(FlowJobError, ValueError):
    """An OFRecord file or data set is damaged or incomplete (the message names the file and
    byte offset), or cannot be written as asked."""


def _file_descriptor() -> descriptor_pb2.FileDescriptorProto:
    fdp = descriptor_pb2.FileDescriptorProto(
        name="oneflow/core/record/record.proto", package="oneflow", syntax="proto2"
    )
    field = descriptor_pb2.FieldDescriptorProto
    lists = (
        ("BytesList", field.TYPE_BYTES),
        ("FloatList", field.TYPE_FLOAT),
        ("DoubleList", field.TYPE_DOUBLE),
        ("Int32List", field.TYPE_INT32),
        ("Int64List", field.TYPE_INT64),
    )
    for name, kind in lists:
        msg = fdp.message_type.add(name=name)
        value = msg.field.add(name="value", number=1, label=field.LABEL_REPEATED, type=kind)
        if kind != field.TYPE_BYTES:
            value.options.packed = True
    feature = fdp.message_type.add(name="Feature")
    feature.oneof_decl.add(name="kind")
    for number, (list_name, _) in enumerate(lists, start=1):
        snake = list_name[:-4].lower() + "_list"
        feature.field.add(
            name=snake,
            number=number,
            label=field.LABEL_OPTIONAL,
            type=field.TYPE_MESSAGE,
            type_name=f".oneflow.{list_name}",
            oneof_index=0,
        )
    record = fdp.message_type.add(name="OFRecord")
    entry = record.nested_type.add(name="FeatureEntry")
    entry.options.map_entry = True
    entry.field.add(name="key", number=1, label=field.LABEL_OPTIONAL, type=field.TYPE_STRING)
    entry.field.add(
        name="value",
        number=2,
        label=field.LABEL_OPTIONAL,
        type=field.TYPE_MESSAGE,
        type_name=".oneflow.Feature",
    )
    record.field.add(
        name="feature",
        number=1,
        label=field.LABEL_REPEATED,
        type=field.TYPE_MESSAGE,
        type_name=".oneflow.OFRecord.FeatureEntry",
    )
    return fdp


def _message_classes() -> dict[str, type]:
    pool = descriptor_pool.DescriptorPool()  # private: never clashes with another record.proto
    pool.AddSerializedFile(_file_descriptor().SerializeToString())
    names = (
        "BytesList",
        "FloatList",
        "DoubleList",
        "Int32List",
        "Int64List",
        "Feature",
        "OFRecord",
    )
    get = getattr(message_factory, "GetMessageClass", None)
    if get is None:  # protobuf < 4.21
        factory = message_factory.MessageFactory(pool)
        return {n: factory.GetPrototype(pool.FindMessageTypeByName(f"oneflow.{n}")) for n in names}
    return {n: get(pool.FindMessageTypeByName(f"oneflow.{n}")) for n in names}


_CLASSES = _message_classes()
BytesList = _CLASSES["BytesList"]
FloatList = _CLASSES["FloatList"]
DoubleList = _CLASSES["DoubleList"]
Int32List = _CLASSES["Int32List"]
Int64List = _CLASSES["Int64List"]
Feature = _CLASSES["Feature"]
OFRecord = _CLASSES["OFRecord"]


class RecordBatch(list):
    """A reader's batch of parsed records that remembers where each came from, so that a
    decoder can name the record it cannot decode."""

    def __init__(self, records: list[Any], origins: list[tuple[str, int, int]]):
        super().__init__(records)
        self.origins = origins  # (file, record index in the file, byte offset) per record

    def describe(self, i: int) -> str:
        path, index, offset = self.origins[i]
        return f"record {index} of {path} (byte offset {offset})"


def describe_record(records: Any, i: int) -> str:
    """Where record ``i`` of a batch came from, as precisely as the batch knows."""
    if isinstance(records, RecordBatch):
        return records.describe(i)
    return f"record {i} of the batch"


def file_descriptor_proto() -> descriptor_pb2.FileDescriptorProto:
    """The schema the classes are built from (a copy), e.g. to compare with protoc's."""
    return _file_descriptor()


def parse_record(data: bytes, path: str = "<bytes>", offset: int = 0) -> Any:
    """An ``OFRecord`` message from its serialized bytes; ``RecordError`` names the place."""
    record = OFRecord()
    try:
        record.ParseFromString(data)
    except Exception as exc:  # DecodeError, or RuntimeWarning-derived errors of upb
        raise RecordError(
            f"{path}: record at byte offset {offset} is not a valid OFRecord "
            f"({len(data)} bytes): {exc}"
        ) from None
    return record


def frame(record: Any) -> bytes:
    """One record as it is stored in a file: length then serialized bytes."""
    data = record if isinstance(record, bytes) else record.SerializeToString()
    return _HEADER.pack(len(data)) + data


def iter_raw_records(path: str | os.PathLike) -> Iterator[tuple[int, bytes]]:
    """``(byte offset, serialized record)`` for each record of one file, in order.

    A file that ends inside a length field or a record, or a length that cannot be one,
    raises ``RecordError`` naming the file and the offset of the broken record.
    """
    path = os.fspath(path)
    # a FIFO, a device or a directory is refused by what it is (opened without blocking)
    with open_regular(path, what="OFRecord file", error=RecordError) as handle:
        size = os.fstat(handle.fileno()).st_size
        offset = 0
        while True:
            header = handle.read(_HEADER.size)
            if not header:
                return
            if len(header) < _HEADER.size:
                raise RecordError(
                    f"{path}: truncated record at byte offset {offset}: the file "
                    f"ends inside the 8-byte length field ({len(header)} bytes "
                    "left)"
                )
            (length,) = _HEADER.unpack(header)
            if length <= 0 or length > _MAX_RECORD_BYTES:
                raise RecordError(
                    f"{path}: bad record at byte offset {offset}: length field "
                    f"{length} is not a record size (is this an OFRecord file?)"
                )
            body_start = offset + _HEADER.size
            if body_start + length > size:
                raise RecordError(
                    f"{path}: truncated record at byte offset {offset}: it needs "
                    f"{length} bytes but the file has {size - body_start} left"
                )
            data = handle.read(length)
            if len(data) < length:  # the file shrank while being read
                raise RecordError(f"{path}: truncated record at byte offset {offset}")
            yield offset, data
            offset = body_start + length


def read_records(path: str | os.PathLike) -> list[Any]:
    """Every record of one file as ``OFRecord`` messages."""
    path = os.fspath(path)
    return [parse_record(data, path, offset) for offset, data in iter_raw_records(path)]
