"""``flow.experimental``: of OneFlow v0.4's experimental namespace, flowjob has the
Python-kernel custom op modules (``custom_op_module``); the rest of it (the eager
``nn.Module`` API of OneFlow 0.5) is not part of the legacy API flowjob re-creates."""

from __future__ import annotations

from .userop import CustomOpModule, custom_op_module

__all__ = ["CustomOpModule", "custom_op_module"]
