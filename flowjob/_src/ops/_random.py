"""Random ops keyed by the step and the op: ``flow.nn.dropout``, ``random_mask_like``,
``flow.random.bernoulli``, ``shuffle`` and ``generate_random_batch_permutation_indices``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp

from .._dtypes import as_dtype
from ..graph import Blob, apply_op, current_graph
from . import _threefry
from ._indexing import gather
from ._util import check_name, fail, require_blob


def _lower_dropout(x, *, key, rate, noise_shape, seed):
    keep = _threefry.bernoulli(key, 1.0 - rate, noise_shape or x.shape)
    return jnp.where(keep, x * jnp.asarray(1.0 / (1.0 - rate), x.dtype), jnp.zeros((), x.dtype))


def dropout(
    x: Blob, rate: float, noise_shape: Any = None, seed: int | None = None, name: str | None = None
) -> Blob:
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
        if (
            not isinstance(noise_shape, (list, tuple))
            or len(noise_shape) != x.ndim
            or any(n not in (1, d) for n, d in zip(noise_shape, x.shape))
        ):
            fail(
                public,
                f"noise_shape must have one entry per axis of {x.shape}, each 1 or the "
                f"axis size, got {noise_shape!r}",
                name,
            )
        shape = tuple(int(n) for n in noise_shape)
    if not current_graph().is_trainable or rate == 0.0:
        return x
    return apply_op(
        "dropout",
        _lower_dropout,
        [x],
        attrs={"rate": float(rate), "noise_shape": shape, "seed": seed},
        name=name,
        prefix="Dropout",
        rng=True,
        elementwise=shape is None,  # a mask per element; a shared noise_shape refuses
    )


def _lower_random_mask(like, *, key, rate, seed):
    # the draw flow.nn.dropout makes: one seed gives both the same mask
    return _threefry.bernoulli(key, 1.0 - rate, like.shape).astype(jnp.int8)


def random_mask_like(
    like: Blob,
    rate: float,
    seed: int | None = None,
    noise_shape: Sequence[int] | None = None,
    name: str | None = None,
) -> Blob:
    """An int8 mask shaped like ``like``: 1 with probability ``1 - rate`` (dropout's keep
    mask), a new draw per call."""
    public = "flow.nn.random_mask_like"
    name = check_name(public, name)
    require_blob(public, like, "like", name)
    if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not 0 <= rate < 1:
        fail(public, f"rate must be in [0, 1), got {rate!r}", name)
    if noise_shape is not None:
        fail(public, "noise_shape is not supported (as in OneFlow v0.4)", name)
    return apply_op(
        "random_mask_like",
        _lower_random_mask,
        [like],
        attrs={"rate": float(rate), "seed": seed},
        name=name,
        prefix="RandomMaskLike",
        rng=True,
    )


def _lower_bernoulli(x, *, key, dtype, seed):
    return (jax.random.uniform(key, x.shape) < x).astype(dtype)


def bernoulli(x: Blob, seed: int | None = None, dtype: Any = None, name: str = "Bernoulli") -> Blob:
    """``flow.random.bernoulli``: 1 with probability ``x`` (elementwise), else 0, in ``dtype``
    (default ``x``'s), a new draw per call; a ``seed`` gives a reproducible stream."""
    public = "flow.random.bernoulli"
    check_name(public, name)
    require_blob(public, x, "x", name)
    if not x.dtype.is_floating:
        fail(public, f"needs floating point probabilities, got {x.dtype.name}", name)
    dt = x.dtype if dtype is None else as_dtype(dtype)
    return apply_op(
        "bernoulli",
        _lower_bernoulli,
        [x],
        attrs={"dtype": dt.np_dtype, "seed": seed},
        name=None if name == "Bernoulli" else name,
        prefix="Bernoulli",
        rng=True,
    )


def _lower_permutation(value, *, key, seed):
    return jax.random.permutation(key, value.shape[0]).astype(jnp.int32)


def generate_random_batch_permutation_indices(
    value: Blob, seed: int | None = None, name: str | None = None
) -> Blob:
    """A random permutation of ``range(value.shape[0])`` (int32), a new one per call."""
    public = "flow.random.generate_random_batch_permutation_indices"
    name = check_name(public, name)
    require_blob(public, value, "value", name)
    if value.ndim < 1:
        fail(public, f"value needs a batch axis, got shape {value.shape}", name)
    return apply_op(
        "generate_random_batch_permutation_indices",
        _lower_permutation,
        [value],
        attrs={"seed": seed},
        name=name,
        prefix="GenerateRandomBatchPermutationIndices",
        rng=True,
    )


def shuffle(value: Blob, seed: int | None = None, name: str | None = None) -> Blob:
    """``value`` with its rows (axis 0) in a random order, a new one per call."""
    return gather(value, generate_random_batch_permutation_indices(value, seed, name))
