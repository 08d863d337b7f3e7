"""The platform a program is being traced for, which picks the op lowerings' kernels.

``jax.default_backend()`` names where JAX puts arrays by default, not where the program being
traced will run: on a machine with a GPU, a job placed on ``"cpu"`` is compiled for the host,
and one placed on ``"gpu"`` must never carry the oneDNN custom call (a CPU-only FFI target).
The runtime traces each job under ``lowering_for(<its devices' platform>)``; code traced
outside a job (plain ``jax.jit`` of an op lowering) falls back to JAX's default backend.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

import jax

_local = threading.local()


def lowering_platform() -> str:
    """``"cpu"``, ``"gpu"``, ...: the platform of the program being traced on this thread.

    >>> from flowjob._src.kernels import lowering_for, lowering_platform
    >>> with lowering_for("gpu"):
    ...     lowering_platform()
    'gpu'
    """
    platform = getattr(_local, "platform", None)
    return platform if platform is not None else jax.default_backend()


def lowering_differentiated() -> bool:
    """Whether the program being traced on this thread may differentiate the ops it lowers
    (a train step, or code outside a job); ``False`` in a forward-only (predict) program.

    >>> from flowjob._src.kernels import lowering_differentiated, lowering_for
    >>> with lowering_for("cpu", differentiated=False):
    ...     lowering_differentiated()
    False
    """
    return getattr(_local, "differentiated", True)


@contextlib.contextmanager
def lowering_for(platform: str | None, differentiated: bool = True) -> Iterator[None]:
    """Lowerings traced inside choose their kernels for ``platform`` (``None``: JAX's
    default backend) and for a program that differentiates them or runs them forward only."""
    saved = getattr(_local, "platform", None), lowering_differentiated()
    _local.platform, _local.differentiated = platform, differentiated
    try:
        yield
    finally:
        _local.platform, _local.differentiated = saved


def shapes_only() -> bool:
    """Whether lowerings on this thread are traced for their output shapes alone (a job
    recording an op): a kernel choice then measures nothing."""
    return getattr(_local, "shapes_only", False)


@contextlib.contextmanager
def tracing_shapes() -> Iterator[None]:
    """Lowerings traced inside run for their output shapes only (``jax.eval_shape``)."""
    saved = shapes_only()
    _local.shapes_only = True
    try:
        yield
    finally:
        _local.shapes_only = saved
