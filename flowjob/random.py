"""``flow.random``: random sources of the host data pipeline."""

from .data import CoinFlip

coin_flip = CoinFlip

__all__ = ["CoinFlip", "coin_flip"]
