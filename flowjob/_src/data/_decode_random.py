"""``flow.data.decode_random``: synthetic data for job bodies."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .. import _dtypes
from ..graph import Blob, apply_op
from ._op_args import _fail


def decode_random(
    shape: Sequence[int],
    dtype: Any,
    batch_size: int = 1,
    initializer: Any = None,
    tick: Blob | None = None,
    name: str | None = None,
) -> Blob:
    """A ``(batch_size, *shape)`` blob of fresh values from ``initializer`` on every call
    (default ``random_uniform_initializer()``): synthetic data. ``tick`` is ignored."""
    from ..ops.initializers import random_uniform_initializer

    del tick  # OneFlow's scheduling hint; calls are ordered anyway
    init = initializer if initializer is not None else random_uniform_initializer()
    if not callable(init):
        raise _fail(
            "decode_random", f"initializer must be a flow.*_initializer(...), got {initializer!r}"
        )
    dt = _dtypes.as_dtype(dtype)
    full = (int(batch_size), *(int(d) for d in shape))

    def lowering(*, key, shape, data_type):
        return init(key, full, dt.np_dtype)

    return apply_op(
        "decode_random",
        lowering,
        [],
        name=name,
        prefix="DecodeRandom",
        rng=True,
        attrs={"shape": full, "data_type": dt.name},
    )
