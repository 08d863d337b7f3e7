"""Random masks: ``flow.nn.dropout`` and ``random_mask_like`` (keyed by the step and the op).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp

from ..graph import Blob, apply_op, current_graph
from ._util import check_name, fail, require_blob


def _lower_dropout(x, *, key, rate, noise_shape, seed):
    keep = jax.random.bernoulli(key, 1.0 - rate, noise_shape or x.shape)
    return jnp.where(keep, x * jnp.asarray(1.0 / (1.0 - rate), x.dtype), jnp.zeros((), x.dtype))


def dropout(x: Blob, rate: float, noise_shape: Any = None, seed: int | None = None,
            name: str | None = None) -> Blob:
    """Zeroes each element with probability ``rate`` and scales the rest by ``1/(1-rate)``.

    Active only in train jobs; predict jobs and ``rate == 0`` return ``x`` itself. Each call of
    the job draws a fresh mask. ``noise_shape`` (broadcastable to ``x``) shares one keep/drop
    decision along its size-1 axes. Dropouts given the same ``seed`` draw the same masks (a
    stream of the session's seed and the train step, as OneFlow's seeded generators).
    """
    public = "flow.nn.dropout"
    name = check_name(public, name)
    require_blob(public, x, "x", name)
    if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not 0.0 <= rate < 1.0:
        fail(public, f"rate must be a float in [0, 1), got {rate!r}", name)
    if not x.dtype.is_floating:
        fail(public, f"needs a floating point input, got {x.dtype.name}", name)
    if seed is not None and name is None:
        fail(public, "a seed requires a name (as in OneFlow)")
    shape = None
    if noise_shape is not None:
        if not isinstance(noise_shape, (list, tuple)) or len(noise_shape) != x.ndim or any(
                n not in (1, d) for n, d in zip(noise_shape, x.shape)):
            fail(public, f"noise_shape must have one entry per axis of {x.shape}, each 1 or the "
                         f"axis size, got {noise_shape!r}", name)
        shape = tuple(int(n) for n in noise_shape)
    if not current_graph().is_train or rate == 0.0:
        return x
    return apply_op("dropout", _lower_dropout, [x],
                    attrs={"rate": float(rate), "noise_shape": shape, "seed": seed}, name=name,
                    prefix="Dropout", rng=True)


def _lower_random_mask(like, *, key, rate, seed):
    # the draw flow.nn.dropout makes: one seed gives both the same mask
    return jax.random.bernoulli(key, 1.0 - rate, like.shape).astype(jnp.int8)


def random_mask_like(like: Blob, rate: float, seed: int | None = None,
                     noise_shape: Sequence[int] | None = None,
                     name: str | None = None) -> Blob:
    """An int8 mask shaped like ``like``: 1 with probability ``1 - rate`` (dropout's keep
    mask), a new draw per call."""
    public = "flow.nn.random_mask_like"
    name = check_name(public, name)
    require_blob(public, like, "like", name)
    if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not 0 <= rate < 1:
        fail(public, f"rate must be in [0, 1), got {rate!r}", name)
    if noise_shape is not None:
        fail(public, "noise_shape is not supported (as in OneFlow v0.4)", name)
    return apply_op("random_mask_like", _lower_random_mask, [like],
                    attrs={"rate": float(rate), "seed": seed}, name=name,
                    prefix="RandomMaskLike", rng=True)
