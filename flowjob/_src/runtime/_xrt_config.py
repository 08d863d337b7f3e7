"""OneFlow's XRT settings of a job: ``config.use_xla_jit``, ``config.use_tensorrt`` and
``config.tensorrt.*`` (v0.4.0's ``XrtConfig``).

flowjob compiles every job with XLA and has no TensorRT, so these settings are kept (and read
back through ``config.function_desc``) but change nothing: a job marked for XLA or TensorRT
runs the same program as one that is not, which is what OneFlow's own XRT tests compare.
"""

from __future__ import annotations

from typing import Any

from ..errors import ConfigError

# OneFlow's defaults (job_conf.proto: XrtConfig and its TensorRTConfig).
XRT_DEFAULTS: dict[str, Any] = {"use_xla_jit": False, "use_tensorrt": False}


class TensorRTConfig:
    """``config.tensorrt.*``: TensorRT's precision settings. Each setter also turns on
    ``use_tensorrt``, as in OneFlow.

    Examples:
        >>> import flowjob as flow
        >>> config = flow.function_config()
        >>> config.tensorrt.use_int8()
        >>> config.tensorrt.int8_calibration("calibration/table")
        >>> config.tensorrt.int8, config.function_desc.use_tensorrt
        (True, True)
    """

    def __init__(self, flags: dict[str, Any]) -> None:
        self._flags = flags  # the owning FunctionConfig's flags (use_tensorrt lives there)
        self.fp16 = False
        self.int8 = False
        self.calibration = ""  # the path of an int8 calibration table

    def use_fp16(self, value: bool = True) -> None:
        self._flags["use_tensorrt"] = True
        self.fp16 = bool(value)

    def use_int8(self, value: bool = True) -> None:
        self._flags["use_tensorrt"] = True
        self.int8 = bool(value)

    def int8_calibration(self, value: str) -> None:
        if not self.int8:
            raise ConfigError(
                "config.tensorrt.int8_calibration(...) needs int8 mode: call "
                "config.tensorrt.use_int8() first"
            )
        self.calibration = str(value)


class XrtSettings:
    """The ``use_xla_jit``/``use_tensorrt`` switches and ``tensorrt`` of a FunctionConfig."""

    flags: dict[str, Any]

    def use_xla_jit(self, value: bool = True) -> None:
        """Marks the job for XLA (OneFlow's default: False); every flowjob job is compiled
        by XLA either way."""
        self.flags["use_xla_jit"] = bool(value)

    def use_tensorrt(self, value: bool = True) -> None:
        """Marks the job for TensorRT (OneFlow's default: False); flowjob has none, and the
        job runs as compiled by XLA."""
        self.flags["use_tensorrt"] = bool(value)
