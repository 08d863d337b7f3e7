"""Host implementations of OneFlow's image ops (Pillow resizes, NumPy crops and normalizes).

Images are HWC uint8 arrays, one per instance (OneFlow's TensorBuffer) or a stacked NHWC
batch. Pillow's filters differ from OpenCV's in the last bits (Pillow anti-aliases when it
shrinks with bilinear/bicubic), so resized pixels are close to OneFlow's, not identical.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from ._decode import DecodeError
from ._modes import Interpolation, Layout
from ._stages import Picture, Recycler, as_array


def _resample(kind: Interpolation, old_w: int, old_h: int, new_w: int, new_h: int) -> int:
    from PIL import Image

    if kind is Interpolation.AUTO:  # OneFlow: enlarge bilinearly, shrink by area averaging
        grows = new_w * new_h >= old_w * old_h
        kind = Interpolation.BILINEAR if grows else Interpolation.AREA
    return {
        Interpolation.BILINEAR: Image.BILINEAR,
        Interpolation.NEAREST: Image.NEAREST,
        Interpolation.BICUBIC: Image.BICUBIC,
        Interpolation.AREA: Image.BOX,
    }[kind]


def resize_one(
    image: np.ndarray, width: int, height: int, interpolation: Interpolation = Interpolation.AUTO
) -> np.ndarray:
    """One HWC image (uint8, or floating point channel by channel) resized to ``width`` x
    ``height`` (Pillow)."""
    from PIL import Image

    h, w, c = image.shape
    resample = _resample(interpolation, w, h, width, height)
    if image.dtype != np.uint8:  # float images: each channel as a 32-bit float plane ("F")
        planes = [
            np.asarray(
                Image.fromarray(np.ascontiguousarray(image[:, :, k], np.float32), "F").resize(
                    (width, height), resample
                )
            )
            for k in range(c)
        ]
        return np.stack(planes, axis=-1).astype(image.dtype, copy=False)
    mode = "L" if c == 1 else "RGB"
    if c not in (1, 3):
        raise DecodeError(f"image.Resize: images must have 1 or 3 channels, got {c}")
    pil = Image.fromarray(image[:, :, 0] if c == 1 else image, mode)
    out = np.asarray(pil.resize((width, height), resample))
    return out.reshape(height, width, c)


class ResizeFixed:
    """``image_resize_to_fixed``'s `Stage` (data/_stages.py): each image to ``width`` x
    ``height``; its value is an NHWC batch of ``dtype`` and each image's (w, h) scale."""

    def __init__(
        self,
        width: int,
        height: int,
        channels: int,
        dtype: np.dtype,
        interpolation: Interpolation = Interpolation.AUTO,
    ):
        self.size = (width, height)
        self.channels = channels
        self.dtype = dtype
        self.interpolation = interpolation
        self.batches = Recycler()

    def start(self, inputs: Sequence[Any], count: int | None, last: bool) -> _ResizePass:
        return _ResizePass(self, inputs[0], len(inputs[0]) if count is None else count, last)


class _ResizePass:
    def __init__(self, stage: ResizeFixed, images: Any, count: int, last: bool):
        self.stage, self.images, self.count, self.last = stage, images, count, last
        width, height = stage.size
        self.scale = np.empty((count, 2), np.float32)
        shape = (count, height, width, stage.channels)
        self.out = stage.batches.empty(shape, stage.dtype) if last else None

    def item(self, i: int) -> Any:
        return self.images[i]

    def one(self, i: int, item: Any) -> Any:
        stage = self.stage
        width, height = stage.size
        if isinstance(item, Picture):
            channels, (w, h) = item.channels, item.image.size
        else:
            h, w, channels = item.shape
        if channels != stage.channels:
            raise DecodeError(
                f"image.Resize: image {i} has {channels} channels, expected {stage.channels}"
            )
        self.scale[i] = (width / w, height / h)
        if isinstance(item, Picture):  # still in Pillow: no array in between
            resample = _resample(stage.interpolation, w, h, width, height)
            resized: Any = Picture(item.image.resize(stage.size, resample), item.bgr)
        else:
            resized = resize_one(item, width, height, stage.interpolation)
        if not self.last:
            return resized
        self.out[i] = as_array(resized, contiguous=False)
        return None

    def end(self, items: list[Any]) -> tuple[np.ndarray, np.ndarray]:
        return self.out, self.scale


def keep_aspect_size(
    height: int, width: int, target: int, min_size: int, max_size: int, longer: bool
) -> tuple[int, int]:
    """OneFlow's new (width, height) for an aspect-keeping resize (ties round to even)."""
    short, long = min(height, width), max(height, width)
    aspect = short / long
    if longer:
        new_long, new_short = float(target), round(target * aspect)
        if min_size > 0 and new_short < min_size:
            new_short, new_long = float(min_size), round(min_size / aspect)
    else:
        new_short, new_long = float(target), round(target / aspect)
        if max_size > 0 and new_long > max_size:
            new_long, new_short = float(max_size), round(max_size * aspect)
    if width < height:
        return int(new_short), int(new_long)
    return int(new_long), int(new_short)


class ResizeKeepAspect:
    """``image_resize_keep_aspect_ratio``'s `Stage` (data/_stages.py): the shorter (or
    longer) side of each image to ``target`` (bounded by ``min_size``/``max_size``); its
    value is the resized images, their (w, h) scales and new (w, h) sizes."""

    def __init__(
        self,
        target: int,
        min_size: int,
        max_size: int,
        longer: bool,
        interpolation: Interpolation = Interpolation.AUTO,
    ):
        self.sizes = (target, min_size, max_size, longer)
        self.interpolation = interpolation

    def start(self, inputs: Sequence[Any], count: int | None, last: bool) -> _AspectPass:
        return _AspectPass(self, inputs[0], len(inputs[0]) if count is None else count, last)


class _AspectPass:
    def __init__(self, stage: ResizeKeepAspect, images: Any, count: int, last: bool):
        self.stage, self.images, self.count, self.last = stage, images, count, last
        self.scale = np.empty((count, 2), np.float32)
        self.size = np.empty((count, 2), np.int32)

    def item(self, i: int) -> Any:
        return self.images[i]

    def one(self, i: int, item: Any) -> Any:
        picture = isinstance(item, Picture)
        w, h = item.image.size if picture else (item.shape[1], item.shape[0])
        new_w, new_h = keep_aspect_size(h, w, *self.stage.sizes)
        self.scale[i] = (new_w / w, new_h / h)
        self.size[i] = (new_w, new_h)
        interpolation = self.stage.interpolation
        if picture:  # still in Pillow: no array in between
            resample = _resample(interpolation, w, h, new_w, new_h)
            resized = Picture(item.image.resize((new_w, new_h), resample), item.bgr)
            return as_array(resized) if self.last else resized
        return resize_one(item, new_w, new_h, interpolation)

    def end(self, items: list[Any]) -> tuple[list[np.ndarray], np.ndarray, np.ndarray]:
        return items, self.scale, self.size


def crop_offset(size: int, crop: int, position: float) -> int:
    """OneFlow's crop offset: the float32 product truncated toward zero."""
    return int(np.float32(size - crop) * np.float32(position))


class CropMirrorNormalize:
    """OneFlow's ``crop_mirror_normalize`` as a `Stage` (data/_stages.py): crop at the
    relative position, flip the images whose ``mirror`` flag is set, ``(x - mean) / std``
    per channel, NCHW or NHWC. Its inputs: the images, then the flags if any.

    Each image is written straight into its place of the batch, a channel at a time (no
    stacked, float and transposed copies of the whole batch)."""

    def __init__(
        self,
        crop_h: int,
        crop_w: int,
        crop_pos_y: float,
        crop_pos_x: float,
        mean: np.ndarray,
        std: np.ndarray,
        layout: Layout,
        dtype: np.dtype,
    ):
        self.crop = (crop_h, crop_w)
        self.position = (crop_pos_y, crop_pos_x)
        self.mean = np.asarray(mean, np.float32)
        self.scale = np.float32(1) / np.asarray(std, np.float32)
        self.nchw = layout is Layout.NCHW
        self.dtype = np.dtype(dtype)
        self.batches = Recycler()

    def start(self, inputs: Sequence[Any], count: int | None, last: bool) -> _NormalizePass:
        images = inputs[0]
        mirror = inputs[1] if len(inputs) > 1 else None
        return _NormalizePass(self, images, mirror, len(images) if count is None else count)


class _NormalizePass:
    def __init__(self, stage: CropMirrorNormalize, images: Any, mirror: Any, count: int):
        self.stage, self.images, self.mirror, self.count = stage, images, mirror, count
        self.batch: np.ndarray | None = None  # made by the first image done: its shape
        self.lock = threading.Lock()

    def item(self, i: int) -> Any:
        return self.images[i]

    def one(self, i: int, item: Any) -> tuple[int, ...]:
        stage = self.stage
        planes = _planes(item)
        h, w = planes[0].shape
        out_h, out_w = stage.crop[0] or h, stage.crop[1] or w
        if out_h > h or out_w > w:
            raise DecodeError(
                f"image.CropMirrorNormalize: crop {out_h}x{out_w} is larger "
                f"than image {i} ({h}x{w})"
            )
        y = crop_offset(h, out_h, stage.position[0])
        x = crop_offset(w, out_w, stage.position[1])
        flip = self.mirror is not None and self.mirror[i]
        c = len(planes)
        shape = (c, out_h, out_w) if stage.nchw else (out_h, out_w, c)
        with self.lock:
            if self.batch is None:
                self.batch = stage.batches.empty((self.count, *shape), np.float32)
            batch = self.batch
        if batch.shape[1:] != shape:
            return (out_h, out_w, c)  # end() names the differing shapes
        mean = np.broadcast_to(stage.mean, (c,))
        scale = np.broadcast_to(stage.scale, (c,))
        for k, plane in enumerate(planes):
            piece = plane[y : y + out_h, x : x + out_w]
            place = batch[i, k] if stage.nchw else batch[i, ..., k]
            # the same float32 steps as (x - mean) * scale, without a float temporary
            place[...] = piece[:, ::-1] if flip else piece
            place -= mean[k]
            place *= scale[k]
        return (out_h, out_w, c)

    def end(self, items: list[Any]) -> np.ndarray:
        shapes = set(items)
        if len(shapes) > 1:
            raise DecodeError(f"image.CropMirrorNormalize: the crops differ in shape: {shapes}")
        batch = self.batch
        if batch is None:  # no images
            c, (h, w) = self.stage.mean.size, self.stage.crop
            batch = np.empty((0, c, h, w) if self.stage.nchw else (0, h, w, c), np.float32)
        return batch if self.stage.dtype == np.float32 else batch.astype(self.stage.dtype)


def _planes(item: Any) -> list[np.ndarray]:
    """An image's channels as 2-D arrays, in its order (a `Picture`'s split by Pillow:
    contiguous planes, which NumPy converts faster than an HWC array's strided ones)."""
    if isinstance(item, Picture):
        planes = [np.asarray(band) for band in item.image.split()]
        return planes[::-1] if item.bgr else planes
    image = item.reshape(*item.shape[:2], -1)
    return [image[..., k] for k in range(image.shape[2])]


class CoinFlip:
    """``coin_flip``: int8 flags, 1 with ``probability``, a fresh draw per call."""

    def __init__(self, batch_size: int, probability: float, seed: int | None):
        self.batch_size = batch_size
        self.probability = probability
        self.rng = np.random.default_rng(seed)

    def __call__(self) -> np.ndarray:
        return (self.rng.random(self.batch_size) < self.probability).astype(np.int8)
