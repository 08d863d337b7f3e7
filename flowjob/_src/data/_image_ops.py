"""``flow.image.Resize``, ``flow.image.CropMirrorNormalize``, ``flow.random.CoinFlip`` and
``flow.data.ImageDecoderRandomCropResize`` for job bodies: data pipeline ops, run on the host
ahead of the job's calls (``CropMirrorNormalize`` of a batch made in the job body runs in the
job's program instead)."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import _dtypes
from .._deprecation import warn_once
from ..graph import Blob, add_feed_op, apply_op, is_pipeline_value
from . import _decode, _image, _image_lowerings
from ._modes import ColorSpace, Interpolation, Layout, ResizeSide
from ._op_args import _batch, _check_range, _fail, _mode, _module_name, _name_and_seed
from ._stages import run_chain, single

_IMAGES = (_dtypes.tensor_buffer, _dtypes.uint8)


def Resize(
    image: Blob,
    target_size: int | Sequence[int] | None = None,  # noqa: N802
    min_size: int | None = None,
    max_size: int | None = None,
    keep_aspect_ratio: bool = False,
    resize_side: str = "shorter",
    channels: int = 3,
    dtype: Any = None,
    interpolation_type: str = "auto",
    name: str | None = None,
    color_space: str | None = None,
    interp_type: str | None = None,
    resize_shorter: int = 0,
    resize_x: int = 0,
    resize_y: int = 0,
) -> Any:
    """Resizes decoded images (Pillow), as OneFlow's ``image.Resize``.

    ``keep_aspect_ratio=False``: every image to ``target_size=(width, height)``; returns
    ``(images (N, h, w, channels) of dtype (uint8), scale (N, 2) float32 (w, h factors),
    None)``. ``keep_aspect_ratio=True``: the ``resize_side`` ("shorter"/"longer") side to
    the int ``target_size`` (bounded by ``max_size``/``min_size``); returns ``(images as
    tensor buffers, scale, new (w, h) int32)``. With the deprecated ``resize_x``/``resize_y``,
    ``resize_shorter``, ``color_space`` or ``interp_type`` only the images are returned.
    """
    op = "image.Resize"
    batch = _batch(image, op, (_dtypes.tensor_buffer,))
    deprecated = False
    if color_space is not None:
        warn_once(
            "image.Resize.color_space",
            "color_space has been deprecated. Please use channels instead.",
        )
        deprecated = True
        channels = _mode(op, ColorSpace, color_space, "color_space").channels
    if interp_type is not None:
        warn_once(
            "image.Resize.interp_type",
            "interp_type has been deprecated. Please use interpolation_type instead.",
        )
        kinds = {"Linear": "bilinear", "NN": "nearest_neighbor", "Cubic": "bicubic"}
        if interp_type not in kinds:
            raise _fail(op, f"invalid interp_type {interp_type!r}; use one of {list(kinds)}")
        deprecated, interpolation_type = True, kinds[interp_type]
    if resize_x > 0 and resize_y > 0:
        warn_once(
            "image.Resize.resize_xy",
            "resize_x and resize_y has been deprecated. Please use target_size instead.",
        )
        deprecated, target_size, keep_aspect_ratio = True, (resize_x, resize_y), False
    if resize_shorter > 0:
        warn_once(
            "image.Resize.resize_shorter",
            "resize_shorter has been deprecated. Please use target_size instead.",
        )
        deprecated, target_size = True, resize_shorter
        keep_aspect_ratio, resize_side = True, "shorter"
    interpolation = _mode(op, Interpolation, interpolation_type, "interpolation_type")
    if keep_aspect_ratio:
        if not isinstance(target_size, int):
            raise _fail(
                op,
                f"target_size must be an int when keep_aspect_ratio is True, got {target_size!r}",
            )
        side = _mode(op, ResizeSide, resize_side, "resize_side")
        stage = _image.ResizeKeepAspect(
            target_size, min_size or 0, max_size or 0, side is ResizeSide.LONGER, interpolation
        )
        outputs = [
            ((batch,), _dtypes.tensor_buffer, False),
            ((batch, 2), _dtypes.float32, False),
            ((batch, 2), _dtypes.int32, False),
        ]
        res, scale, size = add_feed_op(
            "image_resize_keep_aspect_ratio",
            [image],
            single(stage),
            stage=stage,
            name=name,
            prefix="ImageResize",
            outputs=outputs,
            attrs={"target_size": target_size, "resize_side": resize_side},
        )
        return res if deprecated else (res, scale, size)
    if (
        not isinstance(target_size, (list, tuple))
        or len(target_size) != 2
        or not all(isinstance(v, int) and v > 0 for v in target_size)
    ):
        raise _fail(
            op,
            "target_size must be (width, height) when keep_aspect_ratio is False, "
            f"got {target_size!r}",
        )
    width, height = target_size
    dt = _dtypes.as_dtype(dtype if dtype is not None else _dtypes.uint8)
    stage = _image.ResizeFixed(width, height, channels, dt.np_dtype, interpolation)
    res, scale = add_feed_op(
        "image_resize_to_fixed",
        [image],
        single(stage),
        stage=stage,
        name=name,
        prefix="ImageResize",
        outputs=[
            ((batch, height, width, channels), dt, False),
            ((batch, 2), _dtypes.float32, False),
        ],
        attrs={
            "target_width": width,
            "target_height": height,
            "channels": channels,
            "data_type": dt.name,
            "interpolation_type": interpolation_type,
        },
    )
    return res if deprecated else (res, scale, None)


def CropMirrorNormalize(
    input_blob: Blob,
    mirror_blob: Blob | None = None,  # noqa: N802
    color_space: str = "BGR",
    output_layout: str = "NCHW",
    crop_h: int = 0,
    crop_w: int = 0,
    crop_pos_y: float = 0.5,
    crop_pos_x: float = 0.5,
    mean: Sequence[float] = (0.0,),
    std: Sequence[float] = (1.0,),
    output_dtype: Any = _dtypes.float32,
    name: str | None = None,
) -> Blob:
    """Crops each image at ``crop_pos`` (a fraction of the free space), flips those whose
    ``mirror_blob`` flag is set, and normalizes ``(x - mean) / std`` per channel; the input is
    a uint8 NHWC batch or tensor buffers (then ``crop_h``/``crop_w`` are required).

    Like the other image ops it runs in the host data pipeline, unless a uint8 input (or the
    mirror flags) is computed in the job body: then it runs inside the job's program."""
    op = "image.CropMirrorNormalize"
    batch = _batch(input_blob, op, _IMAGES)
    c = _mode(op, ColorSpace, color_space, "color_space").channels
    layout = _mode(op, Layout, output_layout, "output_layout")
    if input_blob.dtype is _dtypes.uint8:
        if input_blob.ndim != 4 or input_blob.shape[3] != c:
            raise _fail(
                op,
                f"a uint8 input must be (N, H, W, {c}) for color_space "
                f"{color_space!r}, got {input_blob.shape}",
            )
        h, w = crop_h or input_blob.shape[1], crop_w or input_blob.shape[2]
        if h > input_blob.shape[1] or w > input_blob.shape[2]:
            raise _fail(op, f"crop {h}x{w} is larger than the images {input_blob.shape[1:3]}")
    else:
        if crop_h <= 0 or crop_w <= 0:
            raise _fail(op, "images of differing sizes (tensor buffers) need crop_h and crop_w")
        h, w = crop_h, crop_w
    mean_v, std_v = _per_channel(op, "mean", mean, c), _per_channel(op, "std", std, c)
    dt = _dtypes.as_dtype(output_dtype)
    if not dt.is_floating:
        raise _fail(op, f"output_dtype must be floating point, got {dt.name}")
    inputs = [input_blob]
    if mirror_blob is not None:
        if _batch(mirror_blob, op, (_dtypes.int8,)) != batch or mirror_blob.numel() != batch:
            raise _fail(
                op,
                f"mirror_blob must hold one int8 flag per image ({batch}), got shape "
                f"{mirror_blob.shape}",
            )
        inputs.append(mirror_blob)
    if input_blob.dtype is _dtypes.uint8 and not all(map(is_pipeline_value, inputs)):
        # A uint8 batch (or mirror flags) computed in the job body: the op runs in the program.
        return apply_op(
            "crop_mirror_normalize_from_uint8",
            _image_lowerings.crop_mirror_normalize,
            inputs,
            name=name,
            prefix="CropMirrorNormalize",
            attrs={
                "crop_h": h,
                "crop_w": w,
                "crop_pos_y": float(crop_pos_y),
                "crop_pos_x": float(crop_pos_x),
                "mean": tuple(mean_v.tolist()),
                "std": tuple(std_v.tolist()),
                "nchw": layout is Layout.NCHW,
                "dtype": dt.np_dtype.name,
            },
        )
    stage = _image.CropMirrorNormalize(
        h, w, crop_pos_y, crop_pos_x, mean_v, std_v, layout, dt.np_dtype
    )
    shape = (batch, c, h, w) if layout is Layout.NCHW else (batch, h, w, c)
    kind = "tensorbuffer" if input_blob.dtype is _dtypes.tensor_buffer else "uint8"
    return add_feed_op(
        f"crop_mirror_normalize_from_{kind}",
        inputs,
        single(stage),
        stage=stage,
        name=name,
        prefix="CropMirrorNormalize",
        outputs=[(shape, dt, False)],
        attrs={
            "color_space": color_space,
            "output_layout": output_layout,
            "crop_h": h,
            "crop_w": w,
            "crop_pos_y": crop_pos_y,
            "crop_pos_x": crop_pos_x,
            "mean": list(mean_v),
            "std": list(std_v),
        },
    )


def CoinFlip(
    batch_size: int = 1,
    seed: int | None = None,  # noqa: N802
    probability: float = 0.5,
    name: str = "CoinFlip",
) -> Blob:
    """``(batch_size,)`` int8 flags, each 1 with ``probability``, drawn anew for every call
    (the ``mirror_blob`` of :func:`CropMirrorNormalize`); seeded like the readers."""
    if not 0.0 <= probability <= 1.0:
        raise _fail("random.CoinFlip", f"probability must be in [0, 1], got {probability!r}")
    name, seed = _name_and_seed(_module_name(name, "CoinFlip"), "CoinFlip", seed)
    factory = functools.partial(_image.CoinFlip, batch_size, probability, seed)
    return add_feed_op(
        "coin_flip",
        [],
        factory,
        source=True,
        name=name,
        attrs={"batch_size": batch_size, "probability": probability},
        outputs=[((batch_size,), _dtypes.int8, False)],
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
    op = "ImageDecoderRandomCropResize"
    batch = _batch(input_blob, op, (_dtypes.tensor_buffer,))
    area = random_area or (0.08, 1.0)
    ratio = random_aspect_ratio or (0.75, 1.333333)
    _check_range(op, "random_area", area)
    _check_range(op, "random_aspect_ratio", ratio)
    name, seed = _name_and_seed(name, op, seed)
    crop = _decode.RandomCrop(seed, num_attempts or 10, area, ratio)

    stages = [
        _decode.Decode(ColorSpace.RGB, crop),
        _image.ResizeFixed(target_width, target_height, 3, np.dtype(np.uint8)),
    ]

    def decode(encoded: list[np.ndarray]) -> np.ndarray:
        return run_chain(stages, [[encoded], [None]])[0]

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


def _per_channel(op: str, what: str, values: Sequence[float], c: int) -> np.ndarray:
    values = [float(v) for v in (values if isinstance(values, (list, tuple)) else [values])]
    if len(values) not in (1, c):
        raise _fail(op, f"{what} must have 1 or {c} values, got {values}")
    return np.asarray(values * (c // len(values)), np.float32)
