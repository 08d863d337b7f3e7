"""The one place flowjob asks JAX which devices of a kind exist (tests replace
``local_devices`` to play a machine with GPUs)."""

from __future__ import annotations

import functools
from typing import Any


def local_devices(platform: str) -> list[Any]:
    """JAX's devices of ``platform`` (``"cpu"``, ``"gpu"``), all processes' (``[]`` where JAX
    has no such backend). Starts JAX's backend: call it when devices are being chosen, never
    at import."""
    import jax

    try:
        return list(jax.devices(platform))
    except RuntimeError:  # "Unknown backend" / "no visible GPU devices"
        return []


@functools.cache  # asked for every placed op's tag (eager calls: every call); JAX's devices
def gpu_available() -> bool:  # do not change once it started
    return bool(local_devices("gpu"))
