"""OneFlow's deprecated ``flow.data.decode_ofrecord`` with its ``BlobConf`` descriptions
(codecs and preprocessors), built on the reader, decoders and image ops."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .. import data
from .._deprecation import warn_once
from ..graph import Blob


class ImagePreprocessor:
    """``"bgr2rgb"`` (decode to RGB) or ``"mirror"`` (random horizontal flips)."""

    def __init__(self, preprocessor: str) -> None:
        if preprocessor.lower() not in ("bgr2rgb", "mirror"):
            raise ValueError('preprocessor must be "bgr2rgb" or "mirror".')
        self.preprocessor = preprocessor

    def is_rgb(self) -> bool:
        return self.preprocessor.lower() == "bgr2rgb"

    def is_mirror(self) -> bool:
        return self.preprocessor.lower() == "mirror"


class ImageResizePreprocessor:
    def __init__(self, width: int, height: int) -> None:
        self.width, self.height = int(width), int(height)


class ImageCodec:
    """Decode an encoded image, with optional ``ImagePreprocessor``/``ImageResizePreprocessor``."""

    def __init__(self, image_preprocessors: Sequence[Any] | None = None) -> None:
        self.image_preprocessors = list(image_preprocessors or [])

    def color_space(self) -> str:
        rgb = any(isinstance(p, ImagePreprocessor) and p.is_rgb() for p in self.image_preprocessors)
        return "RGB" if rgb else "BGR"

    def do_mirror(self) -> bool:
        return any(
            isinstance(p, ImagePreprocessor) and p.is_mirror() for p in self.image_preprocessors
        )

    def do_resize(self) -> tuple[bool, int, int]:
        for p in self.image_preprocessors:
            if isinstance(p, ImageResizePreprocessor):
                return True, p.width, p.height
        return False, -1, -1


class RawCodec:
    def __init__(self, auto_zero_padding: bool = False) -> None:
        self.auto_zero_padding = auto_zero_padding


class NormByChannelPreprocessor:
    def __init__(
        self,
        mean_values: Sequence[float],
        std_values: Sequence[float] = (1.0, 1.0, 1.0),
        data_format: str = "channels_last",
    ) -> None:
        self.mean_values, self.std_values = list(mean_values), list(std_values)
        self.data_format = data_format

    def output_layout(self) -> str:
        return "NHWC" if self.data_format == "channels_last" else "NCHW"


class BlobConf:
    """One field to decode: ``name``, instance ``shape``, ``dtype`` and a codec."""

    def __init__(
        self,
        name: str,
        shape: Sequence[int],
        dtype: Any,
        codec: Any,
        preprocessors: Sequence[Any] | None = None,
    ) -> None:
        self.name, self.shape, self.dtype, self.codec = name, list(shape), dtype, codec
        self.preprocessors = list(preprocessors or [])

    def decode_blob(self, input_blob: Blob, batch_size: int) -> Blob:
        if isinstance(self.codec, RawCodec):
            return data.OFRecordRawDecoder(
                input_blob,
                self.name,
                shape=self.shape,
                dtype=self.dtype,
                truncate=self.codec.auto_zero_padding,
            )
        if not isinstance(self.codec, ImageCodec):
            raise NotImplementedError(f"BlobConf {self.name!r}: codec {self.codec!r}")
        color_space = self.codec.color_space()
        image = data.OFRecordImageDecoder(input_blob, self.name, color_space=color_space)
        flips = data.CoinFlip(batch_size) if self.codec.do_mirror() else None
        resize, width, height = self.codec.do_resize()
        if not resize:  # OneFlow resizes to the first two dims of the shape
            width, height = self.shape[0], self.shape[1]
        image, _, _ = data.Resize(image, target_size=(width, height))
        for pre in self.preprocessors:
            image = data.CropMirrorNormalize(
                image,
                mirror_blob=flips,
                color_space=color_space,
                output_layout=pre.output_layout(),
                mean=pre.mean_values,
                std=pre.std_values,
                output_dtype=self.dtype,
            )
        return image


def decode_ofrecord(
    ofrecord_dir: str,
    blobs: Sequence[BlobConf],
    batch_size: int = 1,
    data_part_num: int = 1,
    part_name_prefix: str = "part-",
    part_name_suffix_length: int = -1,
    shuffle: bool = False,
    buffer_size: int = 1024,
    name: str | None = None,
) -> tuple[Blob, ...]:
    """Deprecated: one reader and a decoder per ``BlobConf``; returns the decoded blobs."""
    warn_once(
        "data.decode_ofrecord",
        "oneflow.data.decode_ofrecord is deprecated, please use "
        "oneflow.data.ofrecord_reader(...) and the decoders",
    )
    records = data.ofrecord_reader(
        ofrecord_dir,
        batch_size,
        data_part_num,
        part_name_prefix,
        part_name_suffix_length,
        shuffle,
        buffer_size,
        name=name,
    )
    return tuple(conf.decode_blob(records, batch_size) for conf in blobs)
