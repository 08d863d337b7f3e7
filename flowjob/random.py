"""``flow.random``: random sources of the host data pipeline."""

from .data._image_ops import CoinFlip

coin_flip = CoinFlip

__all__ = ["CoinFlip", "coin_flip"]
