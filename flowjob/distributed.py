"""``flow.distributed``: this process's rank among the machines training together
(``flow.env.machine``), as ``jax.distributed`` numbers them."""

from ._src.distributed import (
    current_machine_id,
    get_rank,
    get_world_size,
)
