"""``oneflow.core.job.dlnet_conf_pb2``: the ``DLNetConf`` message, a job's list of ops."""

from flowjob._src.export._oneflow_job_pb2 import (
    DLNetConf,
)

__all__ = [
    "DLNetConf",
]
