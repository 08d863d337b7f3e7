"""The one place flowjob asks JAX which devices of a kind exist (tests replace
``local_devices`` to play a machine with GPUs)."""

from __future__ import annotations

import functools
import importlib.metadata
import importlib.util
import os
from typing import Any


def local_devices(platform: str) -> list[Any]:
    """JAX's devices of ``platform`` (``"cpu"``, ``"gpu"``), all processes' (``[]`` where JAX
    has no such backend). Starts JAX's backend: call it when devices are being chosen, never
    at import."""
    if platform == "gpu" and host_only():  # no backend started to learn that
        return []
    import jax

    try:
        return list(jax.devices(platform))
    except RuntimeError:  # "Unknown backend" / "no visible GPU devices"
        return []


@functools.cache  # asked for every placed op's tag (eager calls: every call); JAX's devices
def gpu_available() -> bool:  # do not change once it started
    return bool(local_devices("gpu"))


def host_only() -> bool:
    """Whether JAX can start no backend but the CPU's, told without starting it: its
    platforms are set to ``cpu``, or no accelerator plugin (``jax_plugins``) or TPU library
    is installed.

    >>> host_only() in (True, False)
    True
    """
    import jax

    platforms = jax.config.jax_platforms or os.environ.get("JAX_PLATFORMS", "")
    if platforms:
        return {p.strip() for p in platforms.split(",")} <= {"cpu", ""}
    return not _accelerator_installed()


@functools.cache  # installed packages do not change while the process runs
def _accelerator_installed() -> bool:
    if importlib.util.find_spec("jax_plugins") is not None:  # the plugins' namespace package
        return True
    if importlib.util.find_spec("libtpu") is not None:
        return True
    return bool(importlib.metadata.entry_points(group="jax_plugins"))


def backends_started() -> bool:
    """Whether JAX's backends started already (a program ran, or devices were asked for).

    >>> backends_started() in (True, False)
    True
    """
    import sys

    if "jax" not in sys.modules:  # nothing imported JAX yet: it cannot have started
        return False
    from jax._src import xla_bridge  # no public way to ask without starting them

    return bool(getattr(xla_bridge, "backends_are_initialized", lambda: True)())
