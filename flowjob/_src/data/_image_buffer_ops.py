"""``flow.image.decode/flip/normalize/random_crop/target_resize/batch_align`` for job bodies
(OneFlow v0.4.0 signatures): data pipeline ops on tensor buffers of HWC images."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from .. import _dtypes
from ..graph import Blob, add_feed_op
from . import _decode, _image_buffers
from ._image_ops import Resize
from ._modes import ColorSpace
from ._op_args import _batch, _check_range, _fail, _mode, _module_name, _name_and_seed

_BUFFER = (_dtypes.tensor_buffer,)


def flip_code_inputs(op: str, blob: Blob, flip_code: int | Blob) -> tuple[list[Blob], Any]:
    """The extra inputs and the host function's ``codes`` argument for a flip code given as
    an int (same for every instance) or as a pipeline blob of one int8 code per instance."""
    count = blob.numel()
    if isinstance(flip_code, Blob):
        if flip_code.numel() != count:
            raise _fail(
                op,
                f"flip_code {flip_code.lbn} has shape {flip_code.shape}, expected "
                f"{count} code(s), one per instance of {blob.lbn}",
            )
        return [flip_code], None
    if not isinstance(flip_code, int) or flip_code not in _image_buffers.FLIP_CODES:
        raise _fail(
            op,
            f"flip_code must be 0, 1 (left-right), 16 (top-bottom), 17 (both) or an int8 "
            f"blob, got {flip_code!r}",
        )
    return [], flip_code


def decode(
    images_bytes_buffer: Blob,
    dtype: Any = _dtypes.uint8,
    color_space: str = "BGR",
    name: str | None = None,
) -> Blob:
    """Encoded images (tensor buffers of bytes) decoded (Pillow) to HWC images of ``dtype``
    (uint8 or float32) in ``color_space``."""
    op = "image.decode"
    _batch(images_bytes_buffer, op, _BUFFER)
    space = _mode(op, ColorSpace, color_space, "color_space")
    dt = _dtypes.as_dtype(dtype)
    if dt not in (_dtypes.uint8, _dtypes.float32):
        raise _fail(op, f"dtype must be uint8 or float32, got {dt.name}")
    fn = functools.partial(_image_buffers.decode, color_space=space, dtype=dt.np_dtype)
    return add_feed_op(
        "image_decode",
        [images_bytes_buffer],
        fn,
        name=name,
        prefix="ImageDecode",
        attrs={"color_space": space.value, "data_type": dt.name},
        outputs=[(images_bytes_buffer.shape, _dtypes.tensor_buffer, False)],
    )


def flip(image: Blob, flip_code: int | Blob, name: str | None = None) -> Blob:
    """Each image flipped by its code: 0 none, 1 left-right, 16 top-bottom, 17 both."""
    op = "image.flip"
    _batch(image, op, _BUFFER)
    extra, code = flip_code_inputs(op, image, flip_code)
    fn = _image_buffers.flip if code is None else functools.partial(_flip_all, code=code)
    return add_feed_op(
        "image_flip",
        [image, *extra],
        fn,
        name=name,
        prefix="ImageFlip",
        outputs=[(image.shape, _dtypes.tensor_buffer, False)],
    )


def normalize(
    image: Blob, std: Sequence[float], mean: Sequence[float], name: str | None = None
) -> Blob:
    """``(x - mean) / std`` per channel of floating-point images (one value per channel)."""
    op = "image.normalize"
    _batch(image, op, _BUFFER)
    if not isinstance(std, (list, tuple)) or not isinstance(mean, (list, tuple)):
        raise _fail(op, f"std and mean must be lists, got {std!r} and {mean!r}")
    if any(float(s) == 0.0 for s in std):
        raise _fail(op, f"std must not hold zeros, got {list(std)}")
    std_v, mean_v = [float(v) for v in std], [float(v) for v in mean]
    fn = functools.partial(_image_buffers.normalize, std=std_v, mean=mean_v)
    return add_feed_op(
        "image_normalize",
        [image],
        fn,
        name=name,
        prefix="ImageNormalize",
        attrs={"std": std_v, "mean": mean_v},
        outputs=[(image.shape, _dtypes.tensor_buffer, False)],
    )


def random_crop(
    input_blob: Blob,
    num_attempts: int = 10,
    seed: int | None = None,
    random_area: Sequence[float] | None = None,
    random_aspect_ratio: Sequence[float] | None = None,
    name: str = "ImageRandomCrop",
) -> Blob:
    """A random window of each image: area fraction in ``random_area`` (default
    [0.08, 1.0]), width/height in ``random_aspect_ratio`` (default [0.75, 1.333333])."""
    op = "image.random_crop"
    _batch(input_blob, op, _BUFFER)
    area = list(random_area) if random_area is not None else [0.08, 1.0]
    ratio = list(random_aspect_ratio) if random_aspect_ratio is not None else [0.75, 1.333333]
    _check_range(op, "random_area", area)
    _check_range(op, "random_aspect_ratio", ratio)
    if not isinstance(num_attempts, int) or num_attempts < 1:
        raise _fail(op, f"num_attempts must be a positive int, got {num_attempts!r}")
    op_name, seed = _name_and_seed(_module_name(name, "ImageRandomCrop"), "ImageRandomCrop", seed)
    crop = _decode.RandomCrop(seed, num_attempts, area, ratio)
    return add_feed_op(
        "image_random_crop",
        [input_blob],
        functools.partial(_image_buffers.random_crop, crop=crop),
        name=op_name,
        attrs={"num_attempts": num_attempts, "random_area": area, "random_aspect_ratio": ratio},
        outputs=[(input_blob.shape, _dtypes.tensor_buffer, False)],
    )


def target_resize(
    images: Blob,
    target_size: int,
    min_size: int | None = None,
    max_size: int | None = None,
    resize_side: str = "shorter",
    interpolation_type: str = "auto",
    name: str | None = None,
) -> tuple[Blob, Blob, Blob]:
    """Aspect-keeping resize of ``resize_side`` to ``target_size``: returns
    ``(images, new (w, h) int32, scale (w, h) float32)`` (note: size before scale, unlike
    ``image.resize``)."""
    res, scale, size = Resize(
        images,
        target_size=target_size,
        min_size=min_size,
        max_size=max_size,
        keep_aspect_ratio=True,
        resize_side=resize_side,
        interpolation_type=interpolation_type,
        name=name,
    )
    return res, size, scale


def batch_align(
    images: Blob, shape: Sequence[int], dtype: Any, alignment: int, name: str | None = None
) -> Blob:
    """The images as one zero-padded ``(N, H, W, C)`` batch, a dynamic blob of declared shape
    ``(N, *shape)``: its real height and width are the largest image's, rounded up to a
    multiple of ``alignment`` (0 or a power of two)."""
    op = "image.batch_align"
    batch = _batch(images, op, _BUFFER)
    shape = tuple(int(d) for d in shape)
    if len(shape) != 3:
        raise _fail(op, f"shape must be (height, width, channels), got {shape}")
    dt = _dtypes.as_dtype(dtype)
    if dt not in (_dtypes.uint8, _dtypes.float32):
        raise _fail(op, f"dtype must be uint8 or float32, got {dt.name}")
    if not isinstance(alignment, int) or alignment < 0 or alignment & (alignment - 1):
        raise _fail(op, f"alignment must be 0 or a power of two, got {alignment!r}")
    fn = functools.partial(
        _image_buffers.batch_align, shape=shape, dtype=dt.np_dtype, alignment=alignment
    )
    return add_feed_op(
        "image_batch_align",
        [images],
        fn,
        name=name,
        prefix="ImageBatchAlign",
        attrs={"shape": shape, "data_type": dt.name, "alignment": alignment},
        outputs=[((batch, *shape), dt, True)],
    )


def _flip_all(images: Any, *, code: int) -> Any:
    return _image_buffers.flip(images, code)
