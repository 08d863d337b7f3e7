"""The storage behind tensors: a cell that tensors share and in-place methods rebind, the
PRNG keys of random fills, and device names as JAX devices."""

from __future__ import annotations

import functools
import itertools
import threading
from typing import Any

import jax
import jax.numpy as jnp

from ..runtime import config as _runtime_config


class device:  # noqa: N801 - OneFlow's spelling (flow.device)
    """``flow.device("cpu")``, ``flow.device("cuda:1")``, ``flow.device("cuda", 1)``: where a
    tensor lives, as OneFlow names it. On a machine without a GPU a ``"cuda"`` tensor's values
    live on the CPU and it still reports ``device(type='cuda', index=0)``, so programs written
    for GPUs run unchanged.

    Examples:
        >>> import flowjob as flow
        >>> assert flow.device("cuda:1") == flow.device("cuda", 1)
        >>> assert flow.device("cpu").type == "cpu" and flow.device("cpu").index == 0
    """

    __slots__ = ("type", "index")

    def __init__(self, type: Any, index: int | None = None):  # noqa: A002 - OneFlow's name
        if isinstance(type, device):
            type, index = type.type, type.index if index is None else index
        kind, _, at = str(type).partition(":")
        if kind == "gpu":
            kind = "cuda"
        if kind not in ("cpu", "cuda"):
            raise ValueError(f"flow.device: expected 'cpu' or 'cuda[:i]', got {type!r}")
        if at and index is not None:
            raise ValueError(f"flow.device: {type!r} names an index already; got index={index}")
        self.type = kind
        self.index = int(at) if at else int(index or 0)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, str):
            other = device(other)
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self) -> int:
        return hash((self.type, self.index))

    def __repr__(self) -> str:
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self) -> str:
        return f"{self.type}:{self.index}"


CPU = device("cpu")


class Cell:
    """The storage several tensors share: ``array`` (rebound by in-place methods) and the
    ``device`` it belongs to.

    ``zero()`` makes the values all zeros without making the array until it is read: every
    ``zero_grad`` zeros each gradient, and the next backward replaces it (``is_zero``) rather
    than adding to zeros, so a training loop never makes those arrays (two dispatches per
    parameter per step)."""

    __slots__ = ("_array", "device", "_zero")

    def __init__(self, array: jax.Array, where: device = CPU):
        self._array = array
        self.device = where
        self._zero = False

    @property
    def array(self) -> jax.Array:
        if self._zero:
            self._array, self._zero = filled(self._array, 0), False
        return self._array

    @array.setter
    def array(self, value: jax.Array) -> None:
        self._array, self._zero = value, False

    def zero(self) -> None:
        """All zeros, made when first read (the shape and dtype stay)."""
        self._zero = True

    @property
    def is_zero(self) -> bool:
        """Whether ``zero()`` was the last write (the values are zeros not made yet)."""
        return self._zero


@functools.lru_cache(maxsize=1024)
def _filler(shape: tuple[int, ...], dtype: Any) -> Any:
    """A compiled ``full(shape, value)``: one dispatch, where ``jnp.full`` ran two eager
    primitives (``fill_`` and zeroed gradients)."""
    return jax.jit(lambda value: jnp.full(shape, value, dtype))


def filled(like: jax.Array, value: Any) -> jax.Array:
    """An array of ``like``'s shape, dtype and JAX device holding ``value`` everywhere."""
    array = _filler(tuple(like.shape), like.dtype)(value)
    if array.devices() != like.devices():
        array = jax.device_put(array, next(iter(like.devices())))
    return array


_draws = itertools.count()
_draw_lock = threading.Lock()


def next_key() -> jax.Array:
    """A fresh PRNG key for an in-place random fill: ``flow.config.seed`` folded with a
    process-wide draw counter (the same program draws the same values)."""
    with _draw_lock:
        n = next(_draws)
    return jax.random.fold_in(jax.random.PRNGKey(_runtime_config.process.seed), n)


def jax_device(spec: Any) -> jax.Device:
    """``"cpu"``, ``"cuda"``/``"gpu"`` (optionally ``":index"``) or a ``device`` as a JAX
    device. A GPU name on a machine without one gives the CPU, as ``"gpu"`` placements do in
    flowjob."""
    where = device(spec)
    on_gpu = where.type == "cuda" and jax.devices()[0].platform == "gpu"
    devices = jax.devices("gpu" if on_gpu else "cpu")
    # a cuda tensor on a machine without GPUs lives on the first CPU device
    i = where.index if on_gpu or where.type == "cpu" else 0
    if not 0 <= i < len(devices):
        raise ValueError(f"flow.Tensor: device {spec!r}: only {len(devices)} such device(s)")
    return devices[i]
