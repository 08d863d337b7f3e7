"""``flow.tensorrt``: TensorRT int8 calibration, which needs OneFlow's TensorRT build.

flowjob compiles jobs with XLA only; both calls raise ``NativeBuildError`` rather than
pretending a calibration table was written.
"""

from ._src._namespace import namespace_attributes as _namespace_attributes
from ._src.tensorrt import (
    NativeBuildError,
    cache_int8_calibration,
    write_int8_calibration,
)

_deprecations: dict = {}
__getattr__, __dir__ = _namespace_attributes(__name__, _deprecations)
