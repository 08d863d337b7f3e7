"""``flow.quantization``: observers and fake quantization for quantization-aware training."""

from ._src.ops import fake_quantization, min_max_observer, moving_average_min_max_observer

__all__ = ["fake_quantization", "min_max_observer", "moving_average_min_max_observer"]
