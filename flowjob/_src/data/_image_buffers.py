"""Host implementations of OneFlow's image ops on tensor buffers (one HWC array per image):
decode, flip, normalize, random crop, batch align. ``_image_buffer_ops.py`` records them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from . import _buffers
from ._buffers import TensorBufferError
from ._decode import DecodeError, RandomCrop, decode_image
from ._modes import ColorSpace
from ._parallel import parallel_map

# OneFlow's flip codes: bit 0x01 flips left-right, bit 0x10 top-bottom.
HORIZONTAL, VERTICAL = 0x01, 0x10
FLIP_CODES = (0x00, HORIZONTAL, VERTICAL, HORIZONTAL | VERTICAL)


def flip_codes(codes: Any, count: int, op: str) -> np.ndarray:
    """One flip code per instance: an int for all, or a pipeline array of ``count`` codes."""
    if isinstance(codes, (int, np.integer)):
        return np.full(count, int(codes), np.int8)
    codes = np.asarray(codes).reshape(-1)
    if codes.shape[0] != count:
        raise TensorBufferError(f"{op}: {codes.shape[0]} flip code(s) for {count} instance(s)")
    return codes


def decode(encoded: Any, color_space: ColorSpace, dtype: np.dtype) -> np.ndarray:
    """``image_decode``: encoded bytes (int8/uint8 instances) to HWC images of ``dtype``."""
    parts = _buffers.items(encoded)

    def one(item: tuple[int, Any]) -> np.ndarray:
        i, data = item
        data = _buffers.check_instance("image.decode", i, np.asarray(data), dtype_kind="iu")
        if data.dtype.itemsize != 1:
            raise TensorBufferError(
                f"image.decode: instance {i} must hold bytes (int8/uint8), got {data.dtype}"
            )
        try:
            image = decode_image(data.view(np.uint8).reshape(-1), color_space)
        except DecodeError as exc:
            raise DecodeError(f"image.decode: instance {i}: {exc}") from None
        return image.astype(dtype, copy=False)

    return _buffers.make(parallel_map(one, enumerate(parts)), np.shape(encoded))


def flip(images: Any, codes: Any) -> np.ndarray:
    """``image_flip``: each HWC image flipped as its code says."""
    parts = _buffers.items(images)
    codes = flip_codes(codes, len(parts), "image.flip")
    out = []
    for i, (image, code) in enumerate(zip(parts, codes.tolist())):
        image = _buffers.check_instance("image.flip", i, np.asarray(image), ndim=3)
        if code not in FLIP_CODES:
            raise TensorBufferError(
                f"image.flip: flip code {code} of image {i} is not one of {list(FLIP_CODES)} "
                "(0x01 left-right, 0x10 top-bottom)"
            )
        if code & HORIZONTAL:
            image = image[:, ::-1]
        if code & VERTICAL:
            image = image[::-1]
        out.append(np.ascontiguousarray(image))
    return _buffers.make(out, np.shape(images))


def normalize(images: Any, std: Sequence[float], mean: Sequence[float]) -> np.ndarray:
    """``image_normalize``: ``(x - mean[c]) / std[c]`` per channel of floating-point images."""
    out = []
    for i, image in enumerate(_buffers.items(images)):
        image = _buffers.check_instance(
            "image.normalize", i, np.asarray(image), ndim=3, dtype_kind="f"
        )
        if image.shape[2] != len(std) or image.shape[2] != len(mean):
            raise TensorBufferError(
                f"image.normalize: image {i} has {image.shape[2]} channels, but std has "
                f"{len(std)} and mean {len(mean)} values"
            )
        m = np.asarray(mean, image.dtype)
        s = np.asarray(std, image.dtype)
        out.append((image - m) / s)
    return _buffers.make(out, np.shape(images))


def random_crop(images: Any, crop: RandomCrop) -> np.ndarray:
    """``image_random_crop``: a random window of each image (each place of the batch drawn
    by its own generator)."""
    out = []
    batch = crop.begin()
    for i, image in enumerate(_buffers.items(images)):
        image = _buffers.check_instance("image.random_crop", i, np.asarray(image), ndim=3)
        y, x, h, w = crop.window(image.shape[0], image.shape[1], i, batch)
        out.append(np.ascontiguousarray(image[y : y + h, x : x + w]))
    return _buffers.make(out, np.shape(images))


def batch_align(images: Any, shape: Sequence[int], dtype: np.dtype, alignment: int) -> np.ndarray:
    """``image_batch_align``: images zero-padded at the bottom and right into one batch of
    the largest height and width, each rounded up to a multiple of ``alignment``."""
    parts = _buffers.items(images)
    channels = shape[2]
    for i, image in enumerate(parts):
        _buffers.check_instance("image.batch_align", i, np.asarray(image), ndim=3, last=channels)
    height = max(p.shape[0] for p in parts)
    width = max(p.shape[1] for p in parts)
    if alignment > 0:
        height = -(-height // alignment) * alignment
        width = -(-width // alignment) * alignment
    if height > shape[0] or width > shape[1]:  # OneFlow compared areas; flowjob pads per axis
        raise TensorBufferError(
            f"image.batch_align: the aligned batch needs {height}x{width}, larger than the "
            f"declared shape {tuple(shape)}"
        )
    out = np.zeros((len(parts), height, width, channels), dtype)
    for i, image in enumerate(parts):
        out[i, : image.shape[0], : image.shape[1]] = image
    return out
