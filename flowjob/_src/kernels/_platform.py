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


_UNSET = object()


@contextlib.contextmanager
def _thread_settings(**values: object) -> Iterator[None]:
    """This thread's settings take ``values`` inside, and what they were (or nothing) after."""
    saved = {name: getattr(_local, name, _UNSET) for name in values}
    for name, value in values.items():
        setattr(_local, name, value)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is _UNSET:
                delattr(_local, name)
            else:
                setattr(_local, name, value)


def lowering_for(
    platform: str | None, differentiated: bool = True
) -> contextlib.AbstractContextManager[None]:
    """Lowerings traced inside choose their kernels for ``platform`` (``None``: JAX's
    default backend) and for a program that differentiates them or runs them forward only."""
    return _thread_settings(platform=platform, differentiated=differentiated)


def shapes_only() -> bool:
    """Whether lowerings on this thread are traced for their output shapes alone (a job
    recording an op): a kernel choice then measures nothing."""
    return getattr(_local, "shapes_only", False)


def tracing_shapes() -> contextlib.AbstractContextManager[None]:
    """Lowerings traced inside run for their output shapes only (``jax.eval_shape``)."""
    return _thread_settings(shapes_only=True)
