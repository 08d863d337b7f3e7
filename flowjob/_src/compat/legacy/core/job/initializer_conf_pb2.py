"""``oneflow.core.job.initializer_conf_pb2``: ``InitializerConf`` built field by field, usable
wherever an initializer is (``flow.get_variable(initializer=conf)``)."""

from __future__ import annotations

from typing import Any

from flowjob._src.ops import initializers

from .._message import Message


class InitializerConf(Message):
    """``InitializerConf()`` with one ``<kind>_conf`` set, e.g. ``truncated_normal_conf.std``."""

    @property
    def conf(self) -> dict[str, Any]:
        return self.to_dict()

    def __call__(self, key, shape, np_dtype):
        return initializers.from_conf(self.to_dict())(key, shape, np_dtype)
