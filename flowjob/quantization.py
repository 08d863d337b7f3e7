"""``flow.quantization``: observers and fake quantization for quantization-aware training."""

from ._src._namespace import namespace_attributes as _namespace_attributes
from ._src.ops import fake_quantization, min_max_observer, moving_average_min_max_observer

__all__ = ["fake_quantization", "min_max_observer", "moving_average_min_max_observer"]


_deprecations: dict = {}
__getattr__, __dir__ = _namespace_attributes(__name__, _deprecations)
