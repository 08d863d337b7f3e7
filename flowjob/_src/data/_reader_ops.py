"""``flow.data.coco_reader``, ``ofrecord_image_classification_reader`` and
``megatron_gpt_mmap_data_loader`` for job bodies (OneFlow v0.4.0 signatures): sources of the
host data pipeline."""

from __future__ import annotations

import functools
import os
from collections.abc import Sequence
from typing import Any

from .. import _dtypes
from ..graph import Blob, add_feed_op, current_placement
from . import _coco, _megatron
from ._decode import DecodeError
from ._ofrecord_ops import OFRecordImageDecoder, OFRecordRawDecoder, ofrecord_reader
from ._op_args import _fail, _name_and_seed


def _positive(op: str, what: str, value: Any) -> int:
    if not isinstance(value, int) or value < 1:
        raise _fail(op, f"{what} must be a positive int, got {value!r}")
    return value


def coco_reader(
    annotation_file: str,
    image_dir: str,
    batch_size: int,
    shuffle: bool = True,
    random_seed: int | None = None,
    group_by_aspect_ratio: bool = True,
    stride_partition: bool = True,
    remove_images_without_annotations: bool = True,
    name: str | None = None,
    *,
    epochs: int | None = None,
) -> tuple[Blob, ...]:
    """COCO images and their annotations, ``batch_size`` images per call:
    ``(image, image_id, image_size, gt_bbox, gt_label, gt_segm, gt_segm_index)``: encoded
    image bytes (tensor buffers), int64 ids, int32 ``(h, w)`` sizes (height first, as
    OneFlow's reader wrote them), then per-image tensor buffers: float ``(K, 4)`` boxes,
    int32 ``(K,)`` labels, float ``(P, 2)`` polygon points and their int32 ``(P, 3)`` index.
    On several devices (the placement's) each reads ``batch_size / n`` images of its own
    partition (``stride_partition``: every n-th image, else a contiguous block), concatenated
    in device order, as OneFlow's per-device readers. ``epochs`` (a flowjob extension) stops
    after n passes with ``EndOfData``."""
    op = "data.coco_reader"
    if name is None:
        raise _fail(op, "name is required (OneFlow asserts it)")
    _positive(op, "batch_size", batch_size)
    for what, path, check in (
        ("annotation_file", annotation_file, os.path.isfile),
        ("image_dir", image_dir, os.path.isdir),
    ):
        if not check(os.fspath(path)):
            raise _fail(op, f"{what} {os.fspath(path)!r} not found")
    try:
        meta = _coco.COCOMeta(
            os.fspath(annotation_file), os.fspath(image_dir), remove_images_without_annotations
        )
    except DecodeError as exc:
        raise _fail(op, str(exc)) from None
    name, seed = _name_and_seed(name, "COCOReader", random_seed)
    placement = current_placement()
    shards = len(placement.device_ids()) if placement is not None else 1
    if batch_size % shards:
        raise _fail(op, f"batch_size {batch_size} does not split among {shards} devices")
    stream = functools.partial(
        _coco.COCOStream,
        meta,
        batch_size,
        shuffle,
        seed,
        group_by_aspect_ratio,
        epochs,
        shards,
        stride_partition,
    )
    buffer = ((batch_size,), _dtypes.tensor_buffer, False)
    outputs = [
        buffer,
        ((batch_size,), _dtypes.int64, False),
        ((batch_size, 2), _dtypes.int32, False),
        buffer,
        buffer,
        buffer,
        buffer,
    ]
    attrs = {
        "annotation_file": os.fspath(annotation_file),
        "image_dir": os.fspath(image_dir),
        "batch_size": batch_size,
        "shuffle_after_epoch": shuffle,
        "random_seed": seed,
        "group_by_ratio": group_by_aspect_ratio,
        "stride_partition": stride_partition,
        "remove_images_without_annotations": remove_images_without_annotations,
    }
    return add_feed_op(
        "COCOReader", [], stream, source=True, name=name, attrs=attrs, outputs=outputs
    )


def ofrecord_image_classification_reader(
    ofrecord_dir: str,
    image_feature_name: str,
    label_feature_name: str,
    batch_size: int = 1,
    data_part_num: int = 1,
    part_name_prefix: str = "part-",
    part_name_suffix_length: int = -1,
    random_shuffle: bool = False,
    shuffle_buffer_size: int = 1024,
    shuffle_after_epoch: bool = False,
    color_space: str = "BGR",
    decode_buffer_size_per_thread: int = 32,
    num_decode_threads_per_machine: int | None = None,
    name: str | None = None,
) -> tuple[Blob, Blob]:
    """``(images, labels)``: decoded HWC uint8 images as tensor buffers and ``(batch,)``
    int32 labels (one int32 or int64 value per record). ``decode_buffer_size_per_thread`` and
    ``num_decode_threads_per_machine`` tune OneFlow's decoder threads and are ignored (images
    are decoded on flowjob's image pool)."""
    records = ofrecord_reader(
        ofrecord_dir,
        batch_size,
        data_part_num,
        part_name_prefix,
        part_name_suffix_length,
        random_shuffle,
        shuffle_buffer_size,
        shuffle_after_epoch,
        name=name,
    )
    image = OFRecordImageDecoder(
        records, image_feature_name, color_space, name=f"{name}_image" if name else None
    )
    label = OFRecordRawDecoder(
        records, label_feature_name, (), _dtypes.int32, name=f"{name}_label" if name else None
    )
    return image, label


def megatron_gpt_mmap_data_loader(
    data_file_prefix: str,
    seq_length: int,
    num_samples: int,
    batch_size: int,
    dtype: Any = _dtypes.int64,
    shuffle: bool = True,
    random_seed: int | None = None,
    split_sizes: Sequence[int] | None = None,
    split_index: int | None = None,
    parallel_distribution: Sequence[Any] | None = None,
    start_from_saved_progress: bool = False,
    name: str | None = None,
) -> Blob:
    """GPT training samples from Megatron's ``<prefix>.idx``/``.bin`` dataset:
    ``(batch_size, seq_length + 1)`` tokens per call (the last one is the next token's
    label), ``num_samples`` in all (then ``EndOfData``). The whole logical batch is read
    on the host (``parallel_distribution`` is recorded only: the placement splits it as it
    does any pipeline input); ``start_from_saved_progress`` is not supported."""
    op = "data.megatron_gpt_mmap_data_loader"
    _positive(op, "seq_length", seq_length)
    _positive(op, "num_samples", num_samples)
    _positive(op, "batch_size", batch_size)
    split_sizes = list(split_sizes) if split_sizes is not None else [1]
    split_index = 0 if split_index is None else split_index
    if not 0 <= split_index < len(split_sizes):
        raise _fail(op, f"split index {split_index} is out of range, split_sizes {split_sizes}")
    dt = _dtypes.as_dtype(dtype)
    if dt.np_dtype.kind not in "iu":
        raise _fail(op, f"dtype must be an integer type, got {dt.name}")
    prefix = os.fspath(data_file_prefix)
    name, seed = _name_and_seed(name, "gpt_data_loader", random_seed)
    try:
        data = _megatron.IndexedDataset(prefix)
        samples = _megatron.GPTSamples(
            data, seq_length, num_samples, split_sizes, split_index, shuffle, seed
        )
    except DecodeError as exc:
        raise _fail(op, str(exc)) from None
    if start_from_saved_progress:
        raise _fail(
            op,
            "start_from_saved_progress (resuming from a saved iteration variable) "
            "is not supported: every run starts at sample 0",
        )
    attrs = {
        "data_file_prefix": prefix,
        "seq_length": seq_length,
        "label_length": 1,
        "num_samples": num_samples,
        "batch_size": batch_size,
        "dtype": dt.name,
        "shuffle": shuffle,
        "random_seed": seed,
        "split_sizes": split_sizes,
        "split_index": split_index,
        "parallel_distribution": [str(d) for d in parallel_distribution or []],
    }
    return add_feed_op(
        "megatron_gpt_mmap_data_loader",
        [],
        functools.partial(_megatron.GPTStream, samples, batch_size, dt.np_dtype),
        source=True,
        name=name,
        attrs=attrs,
        outputs=[((batch_size, seq_length + 1), dt, False)],
    )
