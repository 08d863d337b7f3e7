"""``oneflow.core.record.record_pb2``: the OFRecord message classes, as programs that write
their own datasets import them (``ofrecord.OFRecord(feature={...})``)."""

from flowjob._src.data import (
    BytesList,
    DoubleList,
    Feature,
    FloatList,
    Int32List,
    Int64List,
    OFRecord,
)

__all__ = ["BytesList", "DoubleList", "Feature", "FloatList", "Int32List", "Int64List", "OFRecord"]
