"""``flow.data`` OneRec reader and decoder for job bodies (OneFlow v0.4.0 signatures):
feed ops like the OFRecord ones (``_ofrecord_ops.py``)."""

from __future__ import annotations

import functools
import os
from collections.abc import Sequence
from typing import Any

from .. import _dtypes
from ..graph import Blob, add_feed_op
from ._modes import ShuffleMode
from ._op_args import _fail, _mode, _name_and_seed
from ._stream import RecordStream


def onerec_reader(
    files: Sequence[str],
    batch_size: int = 1,
    random_shuffle: bool = False,
    shuffle_mode: str = "instance",
    shuffle_buffer_size: int = 1024,
    shuffle_after_epoch: bool = False,
    verify_example: bool = True,
    name: str | None = None,
    *,
    seed: int | None = None,
    epochs: int | None = None,
) -> Blob:
    """A batch of OneRec Examples per call from ``files`` (read in order, forever, as
    :func:`ofrecord_reader`); ``shuffle_mode="batch"`` shuffles whole batches."""
    from ._onerec import iter_frames, parse_example

    op = "onerec_reader"
    if not isinstance(files, (list, tuple)) or not files:
        raise _fail(op, f"files must be a non-empty list of paths, got {files!r}")
    mode = _mode(op, ShuffleMode, shuffle_mode, "shuffle_mode")
    missing = [f for f in files if not os.path.isfile(f)]
    if missing:
        raise _fail(op, f"{len(missing)} of {len(files)} file(s) not found: {missing[:3]}")
    name, seed = _name_and_seed(name, "OneRecReader", seed)
    parse = functools.partial(_parse_onerec, parse=parse_example, verify=verify_example)
    stream = functools.partial(
        RecordStream,
        [os.fspath(f) for f in files],
        batch_size,
        random_shuffle=random_shuffle,
        shuffle_buffer_size=shuffle_buffer_size,
        shuffle_after_epoch=shuffle_after_epoch,
        seed=seed,
        epochs=epochs,
        read=iter_frames,
        parse=parse,
        shuffle_batches=random_shuffle and mode is ShuffleMode.BATCH,
    )
    return add_feed_op(
        "OneRecReader",
        [],
        stream,
        source=True,
        name=name,
        outputs=[((batch_size,), _dtypes.record, False)],
        attrs={
            "files": list(files),
            "batch_size": batch_size,
            "random_shuffle": random_shuffle,
            "shuffle_mode": shuffle_mode,
        },
    )


def _parse_onerec(data: bytes, path: str, offset: int, parse, verify: bool) -> dict:
    return parse(data, path, offset, verify)


def onerec_decoder(
    input_blob: Blob,
    key: str,
    dtype: Any,
    shape: Sequence[int],
    is_dynamic: bool = False,
    reshape: Sequence[int] | None = None,
    batch_padding: Sequence[int] | None = None,
    name: str | None = None,
) -> Blob:
    """Tensor ``key`` of each Example as ``(batch, *shape)`` of ``dtype`` (the tensor must be
    stored with that type). ``is_dynamic`` or ``batch_padding`` accept a shorter first axis,
    zero-padded to ``shape[0]``; ``reshape`` reinterprets each tensor first."""
    from ._onerec import decode

    op = "onerec_decoder"
    if not isinstance(input_blob, Blob) or input_blob.op.op_type != "OneRecReader":
        raise _fail(op, "input must be the blob of flow.data.onerec_reader")
    batch = input_blob.shape[0]
    shape = tuple(int(d) for d in shape)
    dt = _dtypes.as_dtype(dtype)
    if batch_padding is not None and any(int(d) != 0 for d in list(batch_padding)[1:]):
        raise _fail(op, "batch_padding may pad only the first axis (OneFlow)")
    fn = functools.partial(
        decode,
        key=key,
        dtype=dt.np_dtype,
        shape=shape,
        pad_dim0=is_dynamic or batch_padding is not None,
        reshape=None if reshape is None else tuple(int(d) for d in reshape),
    )
    return add_feed_op(
        "onerec_decoder",
        [input_blob],
        fn,
        name=name,
        prefix="OneRecDecoder",
        outputs=[((batch, *shape), dt, False)],
        attrs={"key": key, "data_type": dt.name, "static_shape": shape},
    )
