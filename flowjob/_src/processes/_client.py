"""JAX's coordination client, made on flowjob's terms.

``jax.distributed.initialize`` makes a client whose destruction waits in the shutdown
barrier, which ranks that leave early never reach. While ``initialize`` runs, the factory it
calls is swapped for one that makes a client without that wait; a rank leaves through
:func:`forget` when the others do not all come to the barrier (processes/_ranks.py). (Errors
the coordination service would otherwise send every client, which JAX answers with a fatal
abort, are not sent: the service runs its tasks as recoverable, processes/_service.py.)
The same factory serves a rank that failed before it joined and joins just long enough to
say so (processes/_early.py).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any


def _library() -> Any:
    from jax._src import distributed

    return getattr(distributed, "_jax", None)


def make(address: str, rank: int, **options: Any) -> Any:
    """A client of the coordination service at ``address`` made on flowjob's terms."""
    create = _library().get_distributed_runtime_client
    return _ours(create)(address, rank, **options)


def _ours(create: Callable[..., Any]) -> Callable[..., Any]:
    def create_ours(address: str, node_id: int, **options: Any) -> Any:
        options.setdefault("shutdown_on_destruction", False)
        return create(address, node_id, **options)

    create_ours.flowjob_original = create  # type: ignore[attr-defined]
    return create_ours


@contextlib.contextmanager
def on_flowjobs_terms() -> Iterator[None]:
    """While ``jax.distributed.initialize`` runs, its client is made by :func:`make`'s
    rules. A JAX whose layout differs keeps its own client."""
    library = _library()
    create = getattr(library, "get_distributed_runtime_client", None)
    if create is None:
        yield
        return
    library.get_distributed_runtime_client = _ours(create)
    try:
        yield
    finally:
        library.get_distributed_runtime_client = create


def forget() -> None:
    """JAX's exit hook (``jax.distributed.shutdown``) then shuts nothing down: this rank
    leaves without the shutdown barrier, which the other ranks never reach."""
    from jax._src import distributed

    state = distributed.global_state
    state.preemption_sync_manager = None
    state.client = None
    state.service = None


def shut_down() -> None:
    """``jax.distributed.shutdown()`` now (a rank other than 0 at a normal end: its client
    disconnects before rank 0's service goes); an error is the service's, already gone."""
    from jax._src import distributed

    client = distributed.global_state.client
    forget()
    if client is not None:
        with contextlib.suppress(Exception):
            client.shutdown()
