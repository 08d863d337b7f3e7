"""``flow.tensorrt``: TensorRT int8 calibration, which needs OneFlow's TensorRT build.

flowjob compiles jobs with XLA and has no TensorRT. Both calls behave as in a OneFlow build
without TensorRT (its CPU and XLA builds, where OneFlow's XRT tests ran): they print the error
saying so to standard error and return, so the program goes on; no calibration table is
written or cached.
"""

from __future__ import annotations

import sys

from .errors import NativeBuildError

__all__ = ["cache_int8_calibration", "write_int8_calibration"]


def _report_no_tensorrt(api: str) -> None:
    error = NativeBuildError(
        f"flow.tensorrt.{api}(): flowjob has no TensorRT integration "
        "(jobs are compiled by XLA); no calibration table exists"
    )
    print(f"{type(error).__name__}: {error}", file=sys.stderr)


def write_int8_calibration(path: str) -> None:
    """Would write TensorRT's int8 calibration table to ``path``; without TensorRT it prints
    that there is none (as OneFlow built without TensorRT did) and returns.

    Examples:
        >>> import flowjob as flow
        >>> flow.tensorrt.write_int8_calibration("table") is None
        True
    """
    _report_no_tensorrt("write_int8_calibration")


def cache_int8_calibration() -> None:
    """Would cache TensorRT's int8 calibration; without TensorRT it prints that there is
    none (as OneFlow built without TensorRT did) and returns.

    Examples:
        >>> import flowjob as flow
        >>> flow.tensorrt.cache_int8_calibration() is None
        True
    """
    _report_no_tensorrt("cache_int8_calibration")
