"""``flow.distributed_partial_fc_sample``: the classes a partial-FC (margin softmax) layer
computes this step.

As OneFlow's op, the weight's classes are split evenly over the placement's ``P`` devices and
each device keeps ``num_sample / P`` of its own classes: first the classes of this batch's
labels (ascending), then others drawn at random without repetition. ``sampled_label`` lists the
kept classes device after device, ``sampled_weight`` their weight rows and ``mapped_label``
each label's position in ``sampled_label``.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from ..graph import Blob, apply_op, current_placement
from ._util import check_name, fail, require_blob, require_int_blob


def _lower_sample(weight, label, *, num_sample, parallel_num, key):
    classes = weight.shape[0]
    per_class, per_sample = classes // parallel_num, num_sample // parallel_num
    positive = jnp.zeros((classes,), bool).at[label.reshape(-1)].set(True, mode="drop")
    # labels first (by class, negative scores), then the other classes in random order
    order = jnp.arange(classes, dtype=jnp.float32) - classes
    score = jnp.where(positive, order, jax.random.uniform(key, (classes,)))
    local = jnp.argsort(score.reshape(parallel_num, per_class), axis=1)[:, :per_sample]
    sampled = (local + jnp.arange(parallel_num)[:, None] * per_class).reshape(-1)
    position = (
        jnp.zeros((classes,), label.dtype)
        .at[sampled]
        .set(jnp.arange(num_sample, dtype=label.dtype))
    )
    return position[label], sampled.astype(label.dtype), weight[sampled]


def distributed_partial_fc_sample(
    weight: Blob, label: Blob, num_sample: int, name: str | None = None
) -> tuple[Blob, Blob, Blob]:
    """``(mapped_label, sampled_label, sampled_weight)``: ``num_sample`` classes kept from
    ``weight``'s rows (every labelled class first, per device), the labels mapped to their
    position among them, and the kept rows."""
    public = "flow.distributed_partial_fc_sample"
    name = check_name(public, name)
    require_blob(public, weight, "weight", name)
    require_int_blob(public, label, "label", name)
    placement = current_placement()
    parallel_num = len(placement.device_ids()) if placement is not None else 1
    if isinstance(num_sample, bool) or not isinstance(num_sample, int) or num_sample < 1:
        fail(public, f"num_sample must be a positive int, got {num_sample!r}", name)
    if weight.ndim != 2 or num_sample > weight.shape[0]:
        fail(
            public,
            f"weight must be 2-D with at least num_sample={num_sample} rows, got {weight.shape}",
            name,
        )
    if num_sample % parallel_num or weight.shape[0] % parallel_num:
        fail(
            public,
            f"num_sample {num_sample} and the {weight.shape[0]} classes must divide evenly "
            f"over the placement's {parallel_num} devices",
            name,
        )
    return apply_op(
        "distributed_partial_fc_sample",
        _lower_sample,
        [weight, label],
        attrs={"num_sample": num_sample, "parallel_num": parallel_num},
        name=name,
        prefix="DistributedPartialFcSample",
        rng=True,
    )
