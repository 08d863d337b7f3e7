"""``oneflow.core.job.job_set_pb2``: the ``JobSet`` message of
``flow.experimental.get_job_set()`` (flowjob's schema with OneFlow's field numbers)."""

from flowjob._src.export._oneflow_job_pb2 import (
    JobSet,
)

__all__ = [
    "JobSet",
]
