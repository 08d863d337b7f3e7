"""``oneflow.core.job.job_pb2``: the ``Job`` message and its helper conf (flowjob's schema with
OneFlow's field numbers)."""

from flowjob._src.export._oneflow_job_pb2 import (
    Job,
    JobHelperConf,
)

__all__ = [
    "Job",
    "JobHelperConf",
]
