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


@contextlib.contextmanager
def lowering_for(platform: str | None) -> Iterator[None]:
    """Lowerings traced inside choose their kernels for ``platform`` (``None``: JAX's
    default backend)."""
    saved = getattr(_local, "platform", None)
    _local.platform = platform
    try:
        yield
    finally:
        _local.platform = saved
