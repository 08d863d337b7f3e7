"""``oneflow.core.framework.user_op_attr_pb2``: the ``AttrValue`` message of a user op
attribute."""

from flowjob._src.export._oneflow_job_pb2 import (
    AttrValue,
)

__all__ = [
    "AttrValue",
]
