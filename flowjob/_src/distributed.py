"""``flow.distributed``: this process's rank among the machines training together
(``flow.env.machine``), as ``jax.distributed`` numbers them."""

from __future__ import annotations

__all__ = ["current_machine_id", "get_rank", "get_world_size"]


def get_rank() -> int:
    """This process's index (0 on one machine)."""
    import jax

    return jax.process_index()


def get_world_size() -> int:
    """How many processes train together (1 on one machine)."""
    import jax

    return jax.process_count()


def current_machine_id() -> int:
    """OneFlow's ``flow.current_machine_id()``: the index of this machine, i.e. ``get_rank()``."""
    return get_rank()
