"""``oneflow.core.job.job_conf_pb2``: the job conf messages (flowjob's schema with OneFlow's
field numbers)."""

from flowjob._src.export._oneflow_job_pb2 import (
    JobConfigProto,
    OptimizerConf,
    PredictConf,
    TrainConf,
)

__all__ = [
    "JobConfigProto",
    "TrainConf",
    "PredictConf",
    "OptimizerConf",
]
