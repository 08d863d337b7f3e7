"""``flow.losses``: the legacy ``add_loss``."""

from ._src.ops.losses import (
    add_loss,
)
