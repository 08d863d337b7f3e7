"""The storage behind tensors: a cell that tensors share and in-place methods rebind, the
PRNG keys of random fills, and device names as JAX devices."""

from __future__ import annotations

import itertools
import threading
from typing import Any

import jax

from ..runtime import config as _runtime_config


class Cell:
    """The storage several tensors share; ``array`` is rebound by in-place methods."""

    __slots__ = ("array",)

    def __init__(self, array: jax.Array):
        self.array = array


_draws = itertools.count()
_draw_lock = threading.Lock()


def next_key() -> jax.Array:
    """A fresh PRNG key for an in-place random fill: ``flow.config.seed`` folded with a
    process-wide draw counter (the same program draws the same values)."""
    with _draw_lock:
        n = next(_draws)
    return jax.random.fold_in(jax.random.PRNGKey(_runtime_config.process.seed), n)


def jax_device(spec: Any) -> jax.Device:
    """``"cpu"``, ``"cuda"``/``"gpu"`` (optionally ``":index"``) as a JAX device. A GPU name on
    a machine without one gives the CPU, as ``"gpu"`` placements do in flowjob."""
    kind, _, index = str(spec).partition(":")
    if kind not in ("cpu", "cuda", "gpu"):
        raise ValueError(f"flow.Tensor: device must be 'cpu' or 'cuda[:i]', got {spec!r}")
    platform = "cpu" if kind == "cpu" or jax.devices()[0].platform != "gpu" else "gpu"
    devices = jax.devices(platform)
    i = int(index) if index else 0
    if not 0 <= i < len(devices):
        raise ValueError(f"flow.Tensor: device {spec!r}: only {len(devices)} such device(s)")
    return devices[i]
