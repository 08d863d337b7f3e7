"""``oneflow.core.common.shape_pb2``: the ``ShapeProto`` message."""

from flowjob._src.export._oneflow_job_pb2 import (
    ShapeProto,
)

__all__ = [
    "ShapeProto",
]
