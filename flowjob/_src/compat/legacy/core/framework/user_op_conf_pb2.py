"""``oneflow.core.framework.user_op_conf_pb2``: the ``UserOpConf`` message of a user op
(flowjob's schema with OneFlow's field numbers)."""

from flowjob._src.export._oneflow_job_pb2 import (
    UserOpConf,
)

__all__ = [
    "UserOpConf",
]
