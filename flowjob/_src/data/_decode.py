"""Host implementations of OneFlow's OFRecord decoders (NumPy on parsed records, Pillow for
images). Each takes a batch (list) of ``OFRecord`` messages."""

from __future__ import annotations

import io
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import FlowJobError
from ._modes import ColorSpace
from ._record import describe_record
from ._stages import Picture, as_array

# Each numeric list's values in their stored type: the range check starts from these.
_NUMERIC_LISTS = {
    "float_list": np.float32,
    "double_list": np.float64,
    "int32_list": np.int32,
    "int64_list": np.int64,
}


class DecodeError(FlowJobError, ValueError):
    """A record lacks a field, or a field does not fit what the decoder was told; the
    message names the file, the record's index in it and the field."""


def _feature(records: Sequence[Any], i: int, name: str, op: str) -> Any:
    record = records[i]
    if name not in record.feature:
        have = ", ".join(sorted(record.feature)) or "none"
        raise DecodeError(
            f"{op}: field {name!r} not found in {describe_record(records, i)} (its fields: {have})"
        )
    return record.feature[name]


def check_range(values: np.ndarray, dtype: np.dtype, what: str) -> None:
    """The rule job inputs follow: integers must fit the target's range (no wrap-around) and
    finite floats must stay finite. Floats going to integers are truncated toward zero as in
    OneFlow, so they must be finite and lie within the range."""
    dtype = np.dtype(dtype)
    if not values.size or np.can_cast(values.dtype, dtype, "safe"):
        return
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        if values.dtype.kind == "f":
            whole = np.trunc(values)
            high = 2.0 ** (info.bits - (dtype.kind == "i"))  # exact in floating point
            low = -high if dtype.kind == "i" else 0.0
            with np.errstate(invalid="ignore"):
                bad = ~np.isfinite(values) | (whole < low) | (whole >= high)
        else:  # bounds clipped to the source type, so the comparison stays in it
            source = np.iinfo(values.dtype)
            bad = (values < max(info.min, source.min)) | (values > min(info.max, source.max))
        want = f"{dtype.name} ({info.min}..{info.max})"
    elif dtype.kind == "f" and values.dtype.kind in "iuf":
        with np.errstate(over="ignore"):
            bad = np.isinf(values.astype(dtype)) & np.isfinite(values)
        want = f"{dtype.name} (finite, |x| <= {np.finfo(dtype).max:.6g})"
    else:
        return
    if bad.any():
        first = int(np.flatnonzero(bad)[0])
        more = (
            f" ({int(bad.sum())} of the {values.size} values do not; the first is value {first})"
            if values.size > 1
            else ""
        )
        raise DecodeError(f"{what}: value {values[first]!s} does not fit dtype {want}{more}")


def raw(
    records: Sequence[Any],
    name: str,
    shape: tuple[int, ...],
    dtype: np.dtype,
    varying: bool = False,
    truncate: bool = False,
) -> np.ndarray:
    """``OFRecordRawDecoder``: one fixed-shape array per record, stacked.

    Numeric lists must hold exactly ``prod(shape)`` values; with ``truncate`` or
    ``dim1_varying_length`` shorter lists are zero-padded and (``truncate``) longer ones cut.
    Values must fit ``dtype`` (:func:`check_range`). A bytes list (one value) is read as int8
    and cast, as OneFlow does; short values are zero-padded.
    """
    count = math.prod(shape)
    out = np.zeros((len(records), count), dtype)
    op = "OFRecordRawDecoder"
    for i in range(len(records)):
        feature = _feature(records, i, name, op)
        kind = feature.WhichOneof("kind")
        where = f"{op}: field {name!r} of {describe_record(records, i)}"
        if kind == "bytes_list":
            if len(feature.bytes_list.value) != 1:
                raise DecodeError(
                    f"{where} holds {len(feature.bytes_list.value)} byte strings, "
                    "expected exactly one"
                )
            values = np.frombuffer(feature.bytes_list.value[0], np.int8)[:count]
        elif kind in _NUMERIC_LISTS:
            values = np.asarray(getattr(feature, kind).value, _NUMERIC_LISTS[kind])
            if len(values) > count and truncate:
                values = values[:count]
            elif len(values) > count or (len(values) < count and not (truncate or varying)):
                raise DecodeError(
                    f"{where} holds {len(values)} values, but shape {shape} needs {count} "
                    "(pass truncate=True to pad or cut)"
                )
            check_range(values, dtype, where)
        else:
            raise DecodeError(f"{where} is empty (no value list set)")
        out[i, : len(values)] = values.astype(dtype, copy=False)
    return out.reshape((len(records), *shape))


def bytes_values(records: Sequence[Any], name: str) -> list[np.ndarray]:
    """``OFRecordBytesDecoder``: each record's single byte string as a uint8 array."""
    out = []
    op = "OFRecordBytesDecoder"
    for i in range(len(records)):
        feature = _feature(records, i, name, op)
        kind = feature.WhichOneof("kind")
        if kind != "bytes_list" or len(feature.bytes_list.value) != 1:
            have = (
                f"{len(feature.bytes_list.value)} byte strings"
                if kind == "bytes_list"
                else f"a {kind}"
                if kind
                else "no value list"
            )
            raise DecodeError(
                f"{op}: field {name!r} of {describe_record(records, i)} must hold "
                f"exactly one byte string, it holds {have}"
            )
        out.append(np.frombuffer(feature.bytes_list.value[0], np.uint8))
    return out


def open_picture(
    data: bytes | np.ndarray,
    color_space: ColorSpace = ColorSpace.BGR,
    crop: RandomCrop | None = None,
    place: tuple[int, int] = (0, 0),
) -> Picture:
    """An encoded image (JPEG, PNG...) decoded by Pillow, in ``color_space``'s mode; with a
    ``crop``, only the window it draws for ``place`` (the image's place in its batch, the
    batch's number), cut in Pillow, so the rest of the image is never copied or converted."""
    from PIL import Image

    raw_bytes = data.tobytes() if isinstance(data, np.ndarray) else data
    try:
        with Image.open(io.BytesIO(raw_bytes)) as image:
            mode = "L" if color_space is ColorSpace.GRAY else "RGB"
            if image.mode != mode:
                image = image.convert(mode)
            if crop is not None:
                width, height = image.size
                y, x, h, w = crop.window(height, width, *place)
                image = image.crop((x, y, x + w, y + h))
            image.load()
    except (OSError, SyntaxError) as exc:  # PIL.UnidentifiedImageError is an OSError
        raise DecodeError(f"cannot decode image ({len(raw_bytes)} bytes): {exc}") from None
    return Picture(image, color_space is ColorSpace.BGR)


def decode_image(data: bytes | np.ndarray, color_space: ColorSpace = ColorSpace.BGR) -> np.ndarray:
    """An encoded image as an HWC uint8 array in ``color_space`` (Pillow)."""
    return as_array(open_picture(data, color_space))


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


class Decode:
    """The decoders' `Stage` (data/_stages.py): the encoded images of field ``field`` of a
    batch of records (``field`` None: a list of encoded images), decoded and, with a
    ``RandomCrop``, cropped (each place of the batch by its own generator)."""

    def __init__(self, color_space: ColorSpace, crop: Any = None, field: str | None = None):
        self.color_space = color_space
        self.crop = crop
        self.field = field

    def start(self, inputs: Sequence[Any], count: int | None, last: bool) -> _DecodePass:
        encoded = inputs[0] if self.field is None else bytes_values(inputs[0], self.field)
        batch = self.crop.begin() if self.crop is not None else 0
        return _DecodePass(self, encoded, batch, last)


class _DecodePass:
    def __init__(self, stage: Decode, encoded: Any, batch: int, last: bool):
        self.stage = stage
        self.encoded = encoded
        self.batch = batch
        self.last = last
        self.count = len(encoded)

    def item(self, i: int) -> Any:
        return self.encoded[i]

    def one(self, i: int, item: Any) -> Any:
        picture = open_picture(item, self.stage.color_space, self.stage.crop, (i, self.batch))
        return as_array(picture) if self.last else picture

    def end(self, items: list[Any]) -> list[np.ndarray]:
        return items


class RandomCrop:
    """OneFlow's ``RandomCropGenerator``s: crop windows of random area and aspect ratio.

    As in OneFlow's ``RandomCropKernelState``, each place of a batch draws from a generator
    of its own, derived from ``seed``; here each batch's too (a counter-based Philox
    generator keyed by the seed, at the counter of batch and place), so the images of a
    batch, and of consecutive batches, are cropped side by side in any order and a seed
    still gives the same windows every run."""

    def __init__(
        self,
        seed: int | None,
        num_attempts: int = 10,
        random_area: Sequence[float] = (0.08, 1.0),
        random_aspect_ratio: Sequence[float] = (0.75, 1.333333),
    ):
        self.key = np.random.SeedSequence(seed).generate_state(2, np.uint64)
        self.batches = 0  # batches begun
        self.attempts = num_attempts
        self.area = (float(random_area[0]), float(random_area[1]))
        self.ratio = (float(random_aspect_ratio[0]), float(random_aspect_ratio[1]))

    def begin(self) -> int:
        """The next batch's number (asked in batch order)."""
        self.batches += 1
        return self.batches - 1

    def window(self, height: int, width: int, slot: int, batch: int) -> tuple[int, int, int, int]:
        """``(y, x, h, w)`` of a crop of a ``height`` x ``width`` image at place ``slot`` of
        batch number ``batch``."""
        rng = np.random.Generator(np.random.Philox(key=self.key, counter=[0, 0, batch, slot]))
        h, w = self._shape(rng, height, width)
        y = int(rng.integers(0, height - h + 1))
        x = int(rng.integers(0, width - w + 1))
        return y, x, h, w

    def _shape(self, rng: np.random.Generator, H: int, W: int) -> tuple[int, int]:  # noqa: N803
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
            target = rng.uniform(*self.area) * H * W
            ratio = math.exp(rng.uniform(log_low, log_high))
            w = max(1, round(math.sqrt(target * ratio)))
            h = max(1, round(math.sqrt(target / ratio)))
            if w <= W and h <= H and min_ratio <= w / h <= max_ratio:
                return h, w
        # No attempt fitted: the whole image, clipped to the aspect and area limits.
        ratio = W / H
        h, w = (H, max_w) if ratio > max_ratio else (max_h, W) if ratio < min_ratio else (H, W)
        scale = min(1.0, self.area[1] * W * H / (h * w))
        return max(1, int(h * math.sqrt(scale))), max(1, int(w * math.sqrt(scale)))
