"""``flow.tensorrt``: TensorRT int8 calibration, which needs OneFlow's TensorRT build.

flowjob compiles jobs with XLA only; both calls raise ``NativeBuildError`` rather than
pretending a calibration table was written.
"""

from __future__ import annotations

from .errors import NativeBuildError

__all__ = ["cache_int8_calibration", "write_int8_calibration"]


def _no_tensorrt(api: str) -> NativeBuildError:
    return NativeBuildError(
        f"flow.tensorrt.{api}(): flowjob has no TensorRT integration "
        "(jobs are compiled by XLA); no calibration table exists"
    )


def write_int8_calibration(path: str) -> None:
    """Raises ``NativeBuildError`` (no TensorRT build); ``path`` would be the table's file."""
    raise _no_tensorrt("write_int8_calibration")


def cache_int8_calibration() -> None:
    """Raises ``NativeBuildError`` (no TensorRT build)."""
    raise _no_tensorrt("cache_int8_calibration")
