"""``flow.tensorrt``: TensorRT int8 calibration, which needs OneFlow's TensorRT build.

flowjob compiles jobs with XLA only; as in OneFlow built without TensorRT, both calls print
the error saying so and return (no calibration table is written).
"""

from ._src._namespace import namespace_attributes as _namespace_attributes
from ._src.tensorrt import (
    cache_int8_calibration,
    write_int8_calibration,
)

_deprecations: dict = {}
__getattr__, __dir__ = _namespace_attributes(__name__, _deprecations)
