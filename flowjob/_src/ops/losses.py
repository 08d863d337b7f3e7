"""``flow.losses``: the legacy ``add_loss``."""

from ._losses import add_loss

__all__ = ["add_loss"]
