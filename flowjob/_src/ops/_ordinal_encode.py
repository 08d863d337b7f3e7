"""``flow.categorical_ordinal_encode`` and ``flow.layers.categorical_ordinal_encoder``: a hash
table held in variables that gives each distinct key a small integer, 1, 2, 3... in the order
keys are first seen (``0`` stays ``0``).

The table is OneFlow's layout: ``capacity`` slots of (key, value) pairs, open addressing from
slot ``key mod capacity`` (the key is its own hash, ``hash_precomputed``) with linear probing,
and a ``(1,)`` variable counting the keys. OneFlow's CPU kernel inserts one key after the
other; here every distinct key of a call probes at once, an empty slot going to the key seen
first, so the numbers are the same as the CPU kernel's. The job writes both variables back
after the call (predict jobs too). A full table leaves the keys it cannot insert at ``0``
(OneFlow's kernel aborts).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from ..graph import Blob, apply_op, current_graph, get_variable, namespace
from ._unique import first_occurrence_unique
from ._util import check_name, fail, require_blob
from .initializers import constant_initializer


def _probe(keys, home, active, stored, capacity):
    """Finds or claims a slot for every active key in the table's keys ``stored``: (probes
    made, slot of each key, which were inserted, the keys after)."""
    n = keys.shape[0]
    order = jnp.arange(n, dtype=jnp.int32)

    def pending(st):
        return jnp.any(active & ~st[3])

    def step(st):
        probe, slot, new, done, table = st
        idx = ((home + probe.astype(jnp.uint64)) % jnp.uint64(capacity)).astype(jnp.int64)
        seen = table[idx]
        live = active & ~done
        hit = live & (seen == keys)
        empty = live & (seen == 0)
        # an empty slot goes to the first-seen key that wants it; the others look again
        claim = jnp.full((capacity,), n, jnp.int32)
        claim = claim.at[jnp.where(empty, idx, capacity)].min(order, mode="drop")
        won = empty & (claim[idx] == order)
        table = table.at[jnp.where(won, idx, capacity)].set(keys, mode="drop")
        probe = probe + (live & ~hit & ~empty)
        full = probe >= capacity
        return probe, jnp.where(hit | won, idx, slot), new | won, done | hit | won | full, table

    zeros = jnp.zeros((n,), jnp.int64)
    flags = jnp.zeros((n,), bool)
    probe, slot, new, _, stored = jax.lax.while_loop(
        pending, step, (zeros, zeros, flags, flags, stored)
    )
    return probe, slot, new, stored


def _lower_encode(x, table, size):
    capacity = table.shape[0] // 2
    pairs = table.reshape(capacity, 2)
    flat = x.reshape(-1).astype(table.dtype)
    keys, index, _, count = first_occurrence_unique(flat)
    active = (jnp.arange(keys.shape[0]) < count) & (keys != 0)
    home = keys.astype(jnp.int64).astype(jnp.uint64) % jnp.uint64(capacity)  # C++'s size_t
    probe, slot, new, stored = _probe(keys, home, active, pairs[:, 0], capacity)
    found = active & (probe < capacity)
    # new keys are numbered in the order they were first seen, after the ones stored already
    numbers = size[0] + jnp.cumsum(new).astype(table.dtype)
    value = jnp.where(new, numbers, pairs[:, 1][slot])
    value = jnp.where(found, value, jnp.zeros((), table.dtype))
    values = pairs[:, 1].at[jnp.where(new, slot, capacity)].set(numbers, mode="drop")
    out = value[index].reshape(x.shape).astype(x.dtype)
    new_size = (size[0] + jnp.sum(new).astype(table.dtype)).reshape(1)
    return out, jnp.stack([stored, values], axis=1).reshape(-1), new_size


def categorical_ordinal_encode(
    table: Blob,
    size: Blob,
    input_tensor: Blob,
    hash_precomputed: bool = True,
    name: str | None = None,
) -> Blob:
    """Each element of ``input_tensor`` as the number of its key in the hash table ``table``
    (a variable of ``2 * capacity`` elements), inserting new keys; ``size`` (a ``(1,)``
    variable) counts the keys. All three share one integer dtype."""
    public = "flow.categorical_ordinal_encode"
    name = check_name(public, name)
    for blob, what in ((table, "table"), (size, "size"), (input_tensor, "input_tensor")):
        require_blob(public, blob, what, name)
    if hash_precomputed is not True:
        fail(public, "only hash_precomputed=True is supported (as in OneFlow)", name)
    for blob, what in ((table, "table"), (size, "size")):
        if blob.op.kind != "variable":
            fail(public, f"{what} must be a variable (flow.get_variable), got {blob.lbn}", name)
    if input_tensor.dtype.np_dtype.kind not in "iu":
        fail(public, f"input_tensor must be integers, got {input_tensor.dtype.name}", name)
    if table.dtype != input_tensor.dtype or size.dtype != input_tensor.dtype:
        fail(
            public,
            f"table, size and input_tensor must share one dtype, got {table.dtype.name}, "
            f"{size.dtype.name} and {input_tensor.dtype.name}",
            name,
        )
    if table.ndim != 1 or table.shape[0] % 2 or not table.shape[0]:
        fail(public, f"table must be 1-D of an even size, got shape {table.shape}", name)
    if size.shape != (1,):
        fail(public, f"size must have shape (1,), got {size.shape}", name)
    out, new_table, new_size = apply_op(
        "CategoricalOrdinalEncode",
        _lower_encode,
        [input_tensor, table, size],
        name=name,
        prefix="CategoricalOrdinalEncode",
    )
    graph = current_graph()
    graph.assign(table, new_table)
    graph.assign(size, new_size)
    return out


def categorical_ordinal_encoder(
    input_tensor: Blob,
    capacity: int,
    hash_precomputed: bool = True,
    name: str = "CategoricalOrdinalEncoder",
) -> Blob:
    """``categorical_ordinal_encode`` with its table (``capacity`` keys) and size in the
    variables ``<name>-Table`` and ``<name>-Size``."""
    public = "flow.layers.categorical_ordinal_encoder"
    require_blob(public, input_tensor, "input_tensor", name)
    if isinstance(capacity, bool) or not isinstance(capacity, int) or capacity < 1:
        fail(public, f"capacity must be a positive int, got {capacity!r}", name)
    dtype = input_tensor.dtype
    with namespace(name):
        table = get_variable(
            "Table",
            shape=(capacity * 2,),
            dtype=dtype,
            initializer=constant_initializer(0, dtype=dtype),
            trainable=False,
            reuse=False,
        )
        size = get_variable(
            "Size",
            shape=(1,),
            dtype=dtype,
            initializer=constant_initializer(0, dtype=dtype),
            trainable=False,
            reuse=False,
        )
        return categorical_ordinal_encode(table, size, input_tensor, hash_precomputed, "Encode")
