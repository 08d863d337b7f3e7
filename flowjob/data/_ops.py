"""``flow.data`` readers and decoders for job bodies (OneFlow v0.4.0 signatures).

They record feed ops (graph/_feed.py): the reader and decoders run on a host thread ahead of
the job's calls, and each call of the job takes the next batch. No job argument is needed.
"""

from __future__ import annotations

import functools
import os
import warnings
import zlib
from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import _dtypes
from .._deprecation import warn_once
from ..errors import OpError, describe_frame, user_frame
from ..graph import Blob, add_feed_op, apply_op, current_context
from . import _decode
from ._dataset import check_parts
from ._modes import ColorSpace, Mode, ModeError, ShuffleMode
from ._record import RecordError
from ._stream import RecordStream, part_paths


def _fail(op: str, message: str) -> OpError:
    return OpError(f"{op}: {message}\n  at {describe_frame(user_frame())}")


def _batch(blob: Blob, op: str, kinds: tuple[_dtypes.DType, ...]) -> int:
    if not isinstance(blob, Blob) or blob.dtype not in kinds:
        shown = getattr(blob, "dtype", type(blob).__name__)
        want = " or ".join(k.name for k in kinds)
        raise _fail(op, f"input must be a {want} blob of the data pipeline, got {shown}")
    return blob.shape[0]


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


def ofrecord_loader(
    ofrecord_dir: str,
    batch_size: int = 1,
    data_part_num: int = 1,
    part_name_prefix: str = "part-",
    part_name_suffix_length: int = -1,
    shuffle: bool = False,
    shuffle_buffer_size: int = 1024,
    name: str | None = None,
) -> Blob:
    """Deprecated spelling of :func:`ofrecord_reader` (``shuffle`` = ``random_shuffle``)."""
    warn_once(
        "data.ofrecord_loader",
        "oneflow.data.ofrecord_loader is deprecated, please use oneflow.data.ofrecord_reader(...)",
    )
    return ofrecord_reader(
        ofrecord_dir,
        batch_size,
        data_part_num,
        part_name_prefix,
        part_name_suffix_length,
        shuffle,
        shuffle_buffer_size,
        name=name,
    )


def OFRecordRawDecoder(
    input_blob: Blob,
    blob_name: str,
    shape: Sequence[int],  # noqa: N802
    dtype: Any,
    dim1_varying_length: bool = False,
    truncate: bool = False,
    auto_zero_padding: bool = False,
    name: str | None = None,
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
    fn = functools.partial(_decode.images, name=blob_name, color_space=space)
    return add_feed_op(
        "ofrecord_image_decoder",
        [input_blob],
        fn,
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
    fn = functools.partial(_decode.images, name=blob_name, color_space=space, crop=crop)
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
        fn,
        name=op_name,
        attrs=attrs,
        outputs=[((batch,), _dtypes.tensor_buffer, False)],
    )


def ImageDecoderRandomCropResize(  # noqa: N802
    input_blob: Blob,
    target_width: int,
    target_height: int,
    num_attempts: int | None = None,
    seed: int | None = None,
    random_area: Sequence[float] | None = None,
    random_aspect_ratio: Sequence[float] | None = None,
    num_workers: int | None = None,
    warmup_size: int | None = None,
    max_num_pixels: int | None = None,
    name: str | None = None,
) -> Blob:
    """Encoded images (from :func:`OFRecordBytesDecoder`) decoded to RGB, randomly cropped and
    resized: a ``(batch, target_height, target_width, 3)`` uint8 batch. ``num_workers``,
    ``warmup_size`` and ``max_num_pixels`` tune OneFlow's GPU decoder and are ignored."""
    from ._image import resize_one
    from ._parallel import parallel_map

    op = "ImageDecoderRandomCropResize"
    batch = _batch(input_blob, op, (_dtypes.tensor_buffer,))
    area = random_area or (0.08, 1.0)
    ratio = random_aspect_ratio or (0.75, 1.333333)
    _check_range(op, "random_area", area)
    _check_range(op, "random_aspect_ratio", ratio)
    name, seed = _name_and_seed(name, op, seed)
    crop = _decode.RandomCrop(seed, num_attempts or 10, area, ratio)

    def decode(encoded: list[np.ndarray]) -> np.ndarray:
        cropped = _decode.decode_batch(encoded, ColorSpace.RGB, crop)
        resized = parallel_map(lambda im: resize_one(im, target_width, target_height), cropped)
        return (
            np.stack(resized)
            if resized
            else np.empty((0, target_height, target_width, 3), np.uint8)
        )

    attrs = {
        "target_width": target_width,
        "target_height": target_height,
        "random_area": list(area),
        "random_aspect_ratio": list(ratio),
    }
    return add_feed_op(
        "image_decoder_random_crop_resize",
        [input_blob],
        decode,
        name=name,
        attrs=attrs,
        outputs=[((batch, target_height, target_width, 3), _dtypes.uint8, False)],
    )


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


# -- helpers --------------------------------------------------------------------------------
def _name_and_seed(name: str | None, prefix: str, seed: int | None) -> tuple[str, int]:
    """The op's name (OneFlow's automatic one when None) and its random seed: ``seed``, or
    one derived from ``flow.config.seed`` and the job and op names, so that runs repeat."""
    ctx = current_context()
    name = name if name is not None else ctx.graph.unique_name(prefix)
    if seed is None:
        seed = ctx.variables.seed ^ zlib.crc32(f"{ctx.graph.name}/{name}".encode())
    return name, int(seed)


def _module_name(name: str, default: str) -> str | None:
    """OneFlow's module ops keep their default name for the first use and number the rest;
    here every use of the default name gets a fresh ``<default>_<n>``."""
    return None if name == default else name


def _mode(op: str, kind: type[Mode], value: object, what: str) -> Any:
    """A mode argument parsed to its enum; an ``OpError`` at the user's line otherwise."""
    try:
        return kind.parse(value, what)
    except ModeError as exc:
        raise _fail(op, str(exc)) from None


def _check_range(op: str, what: str, value: Sequence[float]) -> None:
    if len(value) != 2 or not 0 < value[0] <= value[1]:
        raise _fail(op, f"{what} must be [low, high] with 0 < low <= high, got {list(value)}")


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
