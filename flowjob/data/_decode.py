"""Host implementations of OneFlow's OFRecord decoders (NumPy on parsed records, Pillow for
images). Each takes a batch (list) of ``OFRecord`` messages."""

from __future__ import annotations

import io
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import FlowJobError
from ._parallel import parallel_map

_NUMERIC_LISTS = ("float_list", "double_list", "int32_list", "int64_list")


class DecodeError(FlowJobError, ValueError):
    """A record lacks a field, or a field does not fit what the decoder was told."""


def _feature(record: Any, name: str, op: str) -> Any:
    if name not in record.feature:
        have = ", ".join(sorted(record.feature)) or "none"
        raise DecodeError(f"{op}: field {name!r} not found in the record (its fields: {have})")
    return record.feature[name]


def raw(records: Sequence[Any], name: str, shape: tuple[int, ...], dtype: np.dtype,
        varying: bool = False, truncate: bool = False) -> np.ndarray:
    """``OFRecordRawDecoder``: one fixed-shape array per record, stacked.

    Numeric lists must hold exactly ``prod(shape)`` values; with ``truncate`` or
    ``dim1_varying_length`` shorter lists are zero-padded and (``truncate``) longer ones cut.
    A bytes list (one value) is read as int8 and cast, as OneFlow does; short values are
    zero-padded.
    """
    count = math.prod(shape)
    out = np.zeros((len(records), count), dtype)
    op = "OFRecordRawDecoder"
    for i, record in enumerate(records):
        feature = _feature(record, name, op)
        kind = feature.WhichOneof("kind")
        if kind == "bytes_list":
            if len(feature.bytes_list.value) != 1:
                raise DecodeError(f"{op}: field {name!r} holds {len(feature.bytes_list.value)} "
                                  "byte strings, expected exactly one")
            values = np.frombuffer(feature.bytes_list.value[0], np.int8)[:count]
        elif kind in _NUMERIC_LISTS:
            values = np.asarray(getattr(feature, kind).value)
            if len(values) > count and truncate:
                values = values[:count]
            elif len(values) > count or (len(values) < count and not (truncate or varying)):
                raise DecodeError(
                    f"{op}: field {name!r} holds {len(values)} values, but shape {shape} needs "
                    f"{count} (pass truncate=True to pad or cut)")
        else:
            raise DecodeError(f"{op}: field {name!r} is empty (no value list set)")
        out[i, :len(values)] = values.astype(dtype, copy=False)
    return out.reshape((len(records), *shape))


def bytes_values(records: Sequence[Any], name: str) -> list[np.ndarray]:
    """``OFRecordBytesDecoder``: each record's single byte string as a uint8 array."""
    out = []
    for record in records:
        feature = _feature(record, name, "OFRecordBytesDecoder")
        if feature.WhichOneof("kind") != "bytes_list" or len(feature.bytes_list.value) != 1:
            raise DecodeError(f"OFRecordBytesDecoder: field {name!r} must hold exactly one "
                              "byte string")
        out.append(np.frombuffer(feature.bytes_list.value[0], np.uint8))
    return out


def channels(color_space: str) -> int:
    space = color_space.upper()
    if space in ("RGB", "BGR"):
        return 3
    if space == "GRAY":
        return 1
    raise DecodeError(f"color_space must be 'RGB', 'BGR' or 'GRAY', got {color_space!r}")


def decode_image(data: bytes | np.ndarray, color_space: str = "BGR") -> np.ndarray:
    """An encoded image (JPEG, PNG...) as an HWC uint8 array in ``color_space`` (Pillow)."""
    from PIL import Image

    raw_bytes = data.tobytes() if isinstance(data, np.ndarray) else data
    try:
        with Image.open(io.BytesIO(raw_bytes)) as image:
            if channels(color_space) == 1:
                return np.asarray(image.convert("L"))[:, :, None]
            array = np.asarray(image.convert("RGB"))
    except (OSError, SyntaxError) as exc:  # PIL.UnidentifiedImageError is an OSError
        raise DecodeError(f"cannot decode image ({len(raw_bytes)} bytes): {exc}") from None
    return np.ascontiguousarray(array[:, :, ::-1]) if color_space.upper() == "BGR" else array


def image_size(data: bytes | np.ndarray) -> tuple[int, int]:
    """(height, width) of an encoded image, read from its header only."""
    from PIL import Image

    raw_bytes = data.tobytes() if isinstance(data, np.ndarray) else data
    try:
        with Image.open(io.BytesIO(raw_bytes)) as image:
            width, height = image.size
    except (OSError, SyntaxError) as exc:
        raise DecodeError(f"cannot decode image ({len(raw_bytes)} bytes): {exc}") from None
    return height, width


def decode_batch(encoded: Sequence[Any], color_space: str, crop: Any = None) -> list[np.ndarray]:
    """Decodes (and with a ``RandomCrop`` crops) a batch of encoded images on the image pool.
    Crop windows are drawn in batch order first, so a seed gives the same crops every run."""
    windows = ([crop.window(*image_size(data)) for data in encoded] if crop is not None
               else [None] * len(encoded))

    def one(item: tuple[Any, Any]) -> np.ndarray:
        data, window = item
        image = decode_image(data, color_space)
        if window is None:
            return image
        y, x, h, w = window
        return np.ascontiguousarray(image[y:y + h, x:x + w])

    return parallel_map(one, zip(encoded, windows))


def images(records: Sequence[Any], name: str, color_space: str = "BGR",
           crop: Any = None) -> list[np.ndarray]:
    """``OFRecordImageDecoder`` (``crop`` None) and ``...RandomCrop`` (a ``RandomCrop``)."""
    return decode_batch(bytes_values(records, name), color_space, crop)


class RandomCrop:
    """OneFlow's ``RandomCropGenerator``: crop windows of random area and aspect ratio."""

    def __init__(self, seed: int | None, num_attempts: int = 10,
                 random_area: Sequence[float] = (0.08, 1.0),
                 random_aspect_ratio: Sequence[float] = (0.75, 1.333333)):
        self.rng = np.random.default_rng(seed)
        self.attempts = num_attempts
        self.area = (float(random_area[0]), float(random_area[1]))
        self.ratio = (float(random_aspect_ratio[0]), float(random_aspect_ratio[1]))

    def window(self, height: int, width: int) -> tuple[int, int, int, int]:
        """``(y, x, h, w)`` of a crop of a ``height`` x ``width`` image."""
        h, w = self._shape(height, width)
        y = int(self.rng.integers(0, height - h + 1))
        x = int(self.rng.integers(0, width - w + 1))
        return y, x, h, w

    def _shape(self, H: int, W: int) -> tuple[int, int]:  # noqa: N803 - OneFlow's names
        min_ratio, max_ratio = self.ratio
        min_area = W * H * self.area[0]
        max_w = max(1, int(H * max_ratio))
        max_h = max(1, int(W / min_ratio))
        if H * max_w < min_area:
            return H, max_w
        if W * max_h < min_area:
            return max_h, W
        log_low, log_high = math.log(min_ratio), math.log(max_ratio)
        for _ in range(self.attempts):
            target = self.rng.uniform(*self.area) * H * W
            ratio = math.exp(self.rng.uniform(log_low, log_high))
            w = max(1, round(math.sqrt(target * ratio)))
            h = max(1, round(math.sqrt(target / ratio)))
            if w <= W and h <= H and min_ratio <= w / h <= max_ratio:
                return h, w
        # No attempt fitted: the whole image, clipped to the aspect and area limits.
        ratio = W / H
        h, w = (H, max_w) if ratio > max_ratio else (max_h, W) if ratio < min_ratio else (H, W)
        scale = min(1.0, self.area[1] * W * H / (h * w))
        return max(1, int(h * math.sqrt(scale))), max(1, int(w * math.sqrt(scale)))
