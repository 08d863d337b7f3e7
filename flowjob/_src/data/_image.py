"""Host implementations of OneFlow's image ops (Pillow resizes, NumPy crops and normalizes).

Images are HWC uint8 arrays, one per instance (OneFlow's TensorBuffer) or a stacked NHWC
batch. Pillow's filters differ from OpenCV's in the last bits (Pillow anti-aliases when it
shrinks with bilinear/bicubic), so resized pixels are close to OneFlow's, not identical.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ._decode import DecodeError
from ._modes import Interpolation, Layout
from ._parallel import parallel_map


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


def resize_fixed(
    images: Sequence[np.ndarray],
    width: int,
    height: int,
    channels: int,
    dtype: np.dtype,
    interpolation: Interpolation = Interpolation.AUTO,
) -> tuple[np.ndarray, np.ndarray]:
    """``image_resize_to_fixed``: an NHWC batch of ``dtype`` and each image's (w, h) scale."""
    out = np.empty((len(images), height, width, channels), dtype)
    scale = np.empty((len(images), 2), np.float32)
    for i, image in enumerate(images):
        if image.shape[2] != channels:
            raise DecodeError(
                f"image.Resize: image {i} has {image.shape[2]} channels, expected {channels}"
            )
        scale[i] = (width / image.shape[1], height / image.shape[0])
    resized = parallel_map(lambda im: resize_one(im, width, height, interpolation), images)
    for i, image in enumerate(resized):
        out[i] = image
    return out, scale


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


def resize_keep_aspect(
    images: Sequence[np.ndarray],
    target: int,
    min_size: int,
    max_size: int,
    longer: bool,
    interpolation: Interpolation = Interpolation.AUTO,
) -> tuple[list[np.ndarray], np.ndarray, np.ndarray]:
    """``image_resize_keep_aspect_ratio``: resized images, (w, h) scales and new (w, h)."""
    out, scale = [], np.empty((len(images), 2), np.float32)
    size = np.empty((len(images), 2), np.int32)
    for i, image in enumerate(images):
        h, w = image.shape[:2]
        new_w, new_h = keep_aspect_size(h, w, target, min_size, max_size, longer)
        scale[i] = (new_w / w, new_h / h)
        size[i] = (new_w, new_h)
    out = parallel_map(
        lambda item: resize_one(item[0], *item[1], interpolation), zip(images, size.tolist())
    )
    return out, scale, size


def crop_offset(size: int, crop: int, position: float) -> int:
    """OneFlow's crop offset: the float32 product truncated toward zero."""
    return int(np.float32(size - crop) * np.float32(position))


def crop_mirror_normalize(
    images: np.ndarray | Sequence[np.ndarray],
    mirror: np.ndarray | None,
    crop_h: int,
    crop_w: int,
    crop_pos_y: float,
    crop_pos_x: float,
    mean: np.ndarray,
    std: np.ndarray,
    layout: Layout,
    dtype: np.dtype,
) -> np.ndarray:
    """OneFlow's ``crop_mirror_normalize``: crop at the relative position, flip the images
    whose ``mirror`` flag is set, ``(x - mean) / std`` per channel, NCHW or NHWC.

    Each image is written straight into its place of the batch, a channel at a time (no
    stacked, float and transposed copies of the whole batch), on the image pool."""
    pieces = []
    for i, image in enumerate(images):
        h, w = image.shape[:2]
        out_h, out_w = crop_h or h, crop_w or w
        if out_h > h or out_w > w:
            raise DecodeError(
                f"image.CropMirrorNormalize: crop {out_h}x{out_w} is larger "
                f"than image {i} ({h}x{w})"
            )
        y, x = crop_offset(h, out_h, crop_pos_y), crop_offset(w, out_w, crop_pos_x)
        piece = image[y : y + out_h, x : x + out_w]
        if mirror is not None and mirror[i]:
            piece = piece[:, ::-1]
        pieces.append(piece.reshape(*piece.shape[:2], -1))
    shapes = {p.shape for p in pieces}
    if len(shapes) > 1:
        raise DecodeError(f"image.CropMirrorNormalize: the crops differ in shape: {shapes}")
    ((out_h, out_w, c),) = shapes
    nchw = layout is Layout.NCHW
    batch = np.empty(
        (len(pieces), c, out_h, out_w) if nchw else (len(pieces), out_h, out_w, c), np.float32
    )
    mean = np.broadcast_to(np.asarray(mean, np.float32), (c,))
    scale = np.broadcast_to(np.float32(1) / np.asarray(std, np.float32), (c,))

    def normalize(i: int) -> None:
        for k in range(c):
            place = batch[i, k] if nchw else batch[i, ..., k]
            np.subtract(pieces[i][..., k], mean[k], out=place, dtype=np.float32)
            np.multiply(place, scale[k], out=place)

    parallel_map(normalize, range(len(pieces)))
    return batch if np.dtype(dtype) == np.float32 else batch.astype(dtype)


class CoinFlip:
    """``coin_flip``: int8 flags, 1 with ``probability``, a fresh draw per call."""

    def __init__(self, batch_size: int, probability: float, seed: int | None):
        self.batch_size = batch_size
        self.probability = probability
        self.rng = np.random.default_rng(seed)

    def __call__(self) -> np.ndarray:
        return (self.rng.random(self.batch_size) < self.probability).astype(np.int8)
