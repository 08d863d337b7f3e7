"""``oneflow.core.register.blob_desc_pb2``: the ``BlobDescProto`` message (shape, data type,
dynamic flag of a blob)."""

from flowjob._src.export._oneflow_job_pb2 import (
    BlobDescProto,
)

__all__ = [
    "BlobDescProto",
]
