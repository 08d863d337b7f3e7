"""``flow.data`` OFRecord readers and decoders for job bodies (OneFlow v0.4.0 signatures).

They record feed ops (graph/_feed.py): the reader and decoders run on a host thread ahead of
the job's calls, and each call of the job takes the next batch. No job argument is needed.
"""

from __future__ import annotations

import functools
import os
import stat
import warnings
from collections.abc import Sequence
from typing import Any

from .. import _dtypes
from .._deprecation import warn_once
from .._files import describe_kind
from ..graph import Blob, add_feed_op
from . import _decode
from ._dataset import check_parts
from ._modes import ColorSpace
from ._op_args import _batch, _check_range, _fail, _mode, _module_name, _name_and_seed
from ._record import RecordError
from ._stages import single
from ._stream import RecordStream, part_paths


def ofrecord_reader(
    ofrecord_dir: str,
    batch_size: int = 1,
    data_part_num: int = 1,
    part_name_prefix: str = "part-",
    part_name_suffix_length: int = -1,
    random_shuffle: bool = False,
    shuffle_buffer_size: int = 1024,
    shuffle_after_epoch: bool = False,
    name: str | None = None,
    *,
    seed: int | None = None,
    epochs: int | None = None,
) -> Blob:
    """A batch of ``batch_size`` OFRecords per call, from ``<dir>/<prefix><n>`` part files.

    Reads forever, starting over after the last file (OneFlow); ``epochs=n`` (a flowjob
    extension) stops after n passes: the call after the last full batch raises
    ``flowjob.data.EndOfData``. ``seed`` (also an extension) fixes the shuffle order; by
    default it derives from ``flow.config.seed`` and the job and op names, so runs repeat
    (OneFlow drew a random seed).
    """
    op = "ofrecord_reader"
    if not isinstance(batch_size, int) or batch_size < 1:
        raise _fail(op, f"batch_size must be a positive int, got {batch_size!r}")
    if not isinstance(data_part_num, int) or data_part_num < 1:
        raise _fail(op, f"data_part_num must be a positive int, got {data_part_num!r}")
    if epochs is not None and (not isinstance(epochs, int) or epochs < 1):
        raise _fail(op, f"epochs must be None or a positive int, got {epochs!r}")
    paths = part_paths(
        os.fspath(ofrecord_dir), data_part_num, part_name_prefix, part_name_suffix_length
    )
    for p in paths:
        try:
            mode = os.stat(p).st_mode
        except OSError:
            continue  # missing: reported below with the others
        if not stat.S_ISREG(mode):
            raise _fail(
                op,
                f"part file {p} is {describe_kind(mode)}, not a regular file (an OFRecord "
                "part must be a file of records)",
            )
    missing = [p for p in paths if not os.path.isfile(p)]
    if missing:
        shown = ", ".join(missing[:3]) + (
            f" and {len(missing) - 3} more" if len(missing) > 3 else ""
        )
        raise _fail(
            op,
            f"{len(missing)} of {data_part_num} part file(s) not found: {shown} "
            f"(data_part_num={data_part_num}, part_name_prefix={part_name_prefix!r}, "
            f"part_name_suffix_length={part_name_suffix_length})",
        )
    try:
        notes = check_parts(os.fspath(ofrecord_dir), paths)
    except RecordError as exc:
        raise _fail(op, str(exc)) from None
    for note in notes:
        warnings.warn(f"{op}: {note}", stacklevel=2)
    name, seed = _name_and_seed(name, "OFRecord_Reader", seed)
    stream = functools.partial(
        RecordStream,
        paths,
        batch_size,
        random_shuffle=random_shuffle,
        shuffle_buffer_size=shuffle_buffer_size,
        shuffle_after_epoch=shuffle_after_epoch,
        seed=seed,
        epochs=epochs,
    )
    attrs = {
        "data_dir": os.fspath(ofrecord_dir),
        "data_part_num": data_part_num,
        "batch_size": batch_size,
        "part_name_prefix": part_name_prefix,
        "part_name_suffix_length": part_name_suffix_length,
        "random_shuffle": random_shuffle,
        "shuffle_buffer_size": shuffle_buffer_size,
        "shuffle_after_epoch": shuffle_after_epoch,
    }
    return add_feed_op(
        "OFRecordReader",
        [],
        stream,
        source=True,
        name=name,
        attrs=attrs,
        outputs=[((batch_size,), _dtypes.record, False)],
    )


def OFRecordRawDecoder(
    input_blob: Blob,
    blob_name: str,
    shape: Sequence[int],  # noqa: N802
    dtype: Any,
    dim1_varying_length: bool = False,
    auto_zero_padding: bool = False,
    name: str | None = None,
    truncate: bool = False,
) -> Blob:
    """Field ``blob_name`` of each record as an array of ``shape``: output ``(batch, *shape)``.

    ``truncate`` zero-pads short value lists and cuts long ones; ``dim1_varying_length``
    accepts short lists (zero-padded: flowjob's blobs keep a fixed shape).
    """
    op = "OFRecordRawDecoder"
    batch = _batch(input_blob, op, (_dtypes.record,))
    if auto_zero_padding:
        warn_once(
            "data.auto_zero_padding",
            "auto_zero_padding has been deprecated, Please use truncate instead.",
        )
    shape = tuple(int(d) for d in shape)
    dt = _dtypes.as_dtype(dtype)
    fn = functools.partial(
        _decode.raw,
        name=blob_name,
        shape=shape,
        dtype=dt.np_dtype,
        varying=dim1_varying_length,
        truncate=truncate or auto_zero_padding,
    )
    return add_feed_op(
        "ofrecord_raw_decoder",
        [input_blob],
        fn,
        name=name,
        prefix="OFRecordRawDecoder",
        outputs=[((batch, *shape), dt, False)],
        attrs={
            "name": blob_name,
            "shape": shape,
            "data_type": dt.name,
            "dim1_varying_length": dim1_varying_length,
            "truncate": truncate or auto_zero_padding,
        },
    )


def OFRecordBytesDecoder(
    input_blob: Blob,
    blob_name: str,  # noqa: N802
    name: str | None = None,
) -> Blob:
    """Field ``blob_name`` (one byte string per record) as uint8 tensor buffers."""
    batch = _batch(input_blob, "OFRecordBytesDecoder", (_dtypes.record,))
    fn = functools.partial(_decode.bytes_values, name=blob_name)
    return add_feed_op(
        "ofrecord_bytes_decoder",
        [input_blob],
        fn,
        name=name,
        prefix="OFRecordBytesDecoder",
        attrs={"name": blob_name},
        outputs=[((batch,), _dtypes.tensor_buffer, False)],
    )


def OFRecordImageDecoder(
    input_blob: Blob,
    blob_name: str,
    color_space: str = "BGR",  # noqa: N802
    name: str | None = None,
) -> Blob:
    """Encoded images of field ``blob_name`` decoded (Pillow) to HWC uint8 tensor buffers."""
    op = "OFRecordImageDecoder"
    batch = _batch(input_blob, op, (_dtypes.record,))
    space = _mode(op, ColorSpace, color_space, "color_space")
    stage = _decode.Decode(space, field=blob_name)
    return add_feed_op(
        "ofrecord_image_decoder",
        [input_blob],
        single(stage),
        stage=stage,
        name=name,
        prefix="OFRecordImageDecoder",
        attrs={"name": blob_name, "color_space": color_space},
        outputs=[((batch,), _dtypes.tensor_buffer, False)],
    )


def OFRecordImageDecoderRandomCrop(  # noqa: N802
    input_blob: Blob,
    blob_name: str,
    color_space: str = "BGR",
    num_attempts: int = 10,
    seed: int | None = None,
    random_area: Sequence[float] = (0.08, 1.0),
    random_aspect_ratio: Sequence[float] = (0.75, 1.333333),
    name: str = "OFRecordImageDecoderRandomCrop",
) -> Blob:
    """Decodes like :func:`OFRecordImageDecoder`, then crops a random window of each image
    (area fraction in ``random_area``, width/height ratio in ``random_aspect_ratio``)."""
    op = "OFRecordImageDecoderRandomCrop"
    batch = _batch(input_blob, op, (_dtypes.record,))
    space = _mode(op, ColorSpace, color_space, "color_space")
    _check_range(op, "random_area", random_area)
    _check_range(op, "random_aspect_ratio", random_aspect_ratio)
    op_name, seed = _name_and_seed(_module_name(name, op), op, seed)
    crop = _decode.RandomCrop(seed, num_attempts, random_area, random_aspect_ratio)
    stage = _decode.Decode(space, crop, blob_name)
    attrs = {
        "name": blob_name,
        "color_space": color_space,
        "num_attempts": num_attempts,
        "random_area": list(random_area),
        "random_aspect_ratio": list(random_aspect_ratio),
    }
    return add_feed_op(
        "ofrecord_image_decoder_random_crop",
        [input_blob],
        single(stage),
        stage=stage,
        name=op_name,
        attrs=attrs,
        outputs=[((batch,), _dtypes.tensor_buffer, False)],
    )
