"""OneFlow v0.4's experimental eager data modules: ``nn.OfrecordReader``, the OFRecord decoders,
``nn.image.Resize``, ``nn.CropMirrorNormalize``, ``nn.CoinFlip``,
``tensor_buffer_to_list_of_tensors`` and the ``tmp`` one-shot spellings.

Each ``forward`` records flowjob's own data pipeline op (``flowjob._src.data``: the reader
stream, the Pillow decoders, the image ops a job body uses) and runs it at once on the host
with ``runtime.run_eagerly``; batches of records and tensor buffers travel between modules as
``HostTensor``s. A module keeps its sources' state between calls: a reader continues where it
stopped, and the random modules draw anew at each call from their own seeded generator
(``random_seed``; without one, from ``flow.config.seed`` and the module's creation order, so
runs repeat, where OneFlow drew a random seed). Data ops have no gradient.
"""

from __future__ import annotations

import itertools
import types
import zlib
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .. import _dtypes
from .. import data as _data
from ..graph import Blob, in_job
from ..imperative import Module, Tensor
from ..imperative._storage import CPU
from ..runtime import HostValue, run_eagerly
from ..runtime import config as _runtime_config
from ._host_tensor import HostTensor

_created = itertools.count()


def _run(name: str, body: Callable[..., Any], *inputs: Tensor, streams: dict | None = None):
    """``body(*blobs)`` (flowjob's data ops) run at once on ``inputs``; its outputs as tensors
    (a tuple when it returns several). Inside a job function (blob inputs, or a source module
    called in a job body) the body joins the job's own data pipeline instead."""
    if any(isinstance(t, Blob) for t in inputs) or (not inputs and in_job()):
        return body(*inputs)
    for i, t in enumerate(inputs):
        if not isinstance(t, Tensor):
            raise TypeError(f"{name}: input {i} must be a flow.Tensor, got {type(t).__name__}")
    values = [t.host_value if isinstance(t, HostTensor) else t.array for t in inputs]

    def record(blobs: list[Blob]) -> tuple:
        out = body(*blobs)
        return tuple(out) if isinstance(out, (tuple, list)) else (out,)

    outs = [
        HostTensor.of(o) if isinstance(o, HostValue) else Tensor._wrap(o, where=CPU)
        for o in run_eagerly(name, record, values, streams)
    ]
    return outs[0] if len(outs) == 1 else tuple(outs)


def _seeds(kind: str, random_seed: int | None) -> np.random.Generator:
    """The generator a random module draws each call's seed from: ``random_seed`` (None or
    -1: derived from ``flow.config.seed``, the kind and the creation order)."""
    if random_seed is not None and random_seed != -1:
        return np.random.default_rng(int(random_seed))
    derived = zlib.crc32(f"{kind}/{next(_created)}".encode())
    return np.random.default_rng((_runtime_config.process.seed, derived))


def _draw(rng: np.random.Generator) -> int:
    return int(rng.integers(2**31 - 1))


class OfrecordReader(Module):
    """``nn.OfrecordReader(ofrecord_dir, batch_size=1, ...)``: each call gives the next
    ``(batch_size,)`` batch of OFRecords from ``<ofrecord_dir>/<part_name_prefix><n>``,
    starting over after the last part, forever (``random_shuffle``: through a shuffle buffer;
    ``shuffle_after_epoch``: the parts in a new order each pass).

    Examples:
        >>> import os, tempfile, numpy as np, flowjob as flow
        >>> folder = os.path.join(tempfile.mkdtemp(), "train")
        >>> _ = flow.data.write_ofrecord(folder, {"x": np.arange(3, dtype=np.int32)})
        >>> reader = flow.nn.OfrecordReader(folder, batch_size=2)
        >>> decode = flow.nn.OfrecordRawDecoder("x", shape=(), dtype=flow.int32)
        >>> decode(reader()).numpy(), decode(reader()).numpy()
        (array([0, 1], dtype=int32), array([2, 0], dtype=int32))
    """

    def __init__(
        self,
        ofrecord_dir: str,
        batch_size: int = 1,
        data_part_num: int = 1,
        part_name_prefix: str = "part-",
        part_name_suffix_length: int = -1,
        random_shuffle: bool = False,
        shuffle_buffer_size: int = 1024,
        shuffle_after_epoch: bool = False,
        random_seed: int = -1,
        name: str | None = None,
    ):
        super().__init__()
        self._args = (
            ofrecord_dir,
            batch_size,
            data_part_num,
            part_name_prefix,
            part_name_suffix_length,
            random_shuffle,
            shuffle_buffer_size,
            shuffle_after_epoch,
            name,
        )
        self._seed = _draw(_seeds("OfrecordReader", random_seed))
        self._streams: dict[str, Any] = {}  # the reader's stream, kept between calls

    def forward(self) -> HostTensor:
        return _run(
            "OfrecordReader",
            lambda: _data.ofrecord_reader(*self._args, seed=self._seed),
            streams=self._streams,
        )


class OfrecordRawDecoder(Module):
    """``nn.OfrecordRawDecoder(blob_name, shape, dtype)``: field ``blob_name`` of each record
    as ``(batch, *shape)`` values of ``dtype`` (``dim1_varying_length``: shorter value lists
    are accepted; ``auto_zero_padding``: short lists are zero-padded, long ones cut).

    Examples:
        >>> import os, tempfile, numpy as np, flowjob as flow
        >>> folder = os.path.join(tempfile.mkdtemp(), "train")
        >>> _ = flow.data.write_ofrecord(folder, {"xy": np.float32([[1, 2], [3, 4]])})
        >>> records = flow.nn.OfrecordReader(folder, batch_size=2)()
        >>> flow.nn.OfrecordRawDecoder("xy", shape=(2,), dtype=flow.float32)(records).numpy()
        array([[1., 2.],
               [3., 4.]], dtype=float32)
    """

    def __init__(
        self,
        blob_name: str,
        shape: Sequence[int],
        dtype: _dtypes.DType,
        dim1_varying_length: bool = False,
        auto_zero_padding: bool = False,
        name: str | None = None,
    ):
        super().__init__()
        # flowjob's ``truncate`` is what OneFlow's op attribute ``auto_zero_padding`` does
        self._kwargs = dict(
            blob_name=blob_name,
            shape=tuple(shape),
            dtype=dtype,
            dim1_varying_length=dim1_varying_length,
            truncate=auto_zero_padding,
            name=name,
        )

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002 - OneFlow's name
        return _run(
            "OfrecordRawDecoder",
            lambda records: _data.OFRecordRawDecoder(records, **self._kwargs),
            input,
        )


class OFRecordImageDecoder(Module):
    """``nn.OFRecordImageDecoder(blob_name, color_space="BGR")``: the encoded images of field
    ``blob_name`` decoded to HWC uint8 tensor buffers (one instance per record).

    Examples:
        >>> import io, os, tempfile, numpy as np, PIL.Image, flowjob as flow
        >>> jpeg = io.BytesIO()
        >>> PIL.Image.new("RGB", (4, 2), (255, 0, 0)).save(jpeg, "PNG")
        >>> folder = os.path.join(tempfile.mkdtemp(), "images")
        >>> _ = flow.data.write_ofrecord(folder, {"encoded": [jpeg.getvalue()]})
        >>> records = flow.nn.OfrecordReader(folder)()
        >>> (image,) = flow.nn.OFRecordImageDecoder("encoded", "BGR")(records).numpy()
        >>> image.shape, image[0, 0].tolist()
        ((2, 4, 3), [0, 0, 255])
    """

    def __init__(self, blob_name: str, color_space: str = "BGR"):
        super().__init__()
        self._kwargs = dict(blob_name=blob_name, color_space=color_space)

    def forward(self, input: Tensor) -> HostTensor:  # noqa: A002 - OneFlow's name
        return _run(
            "OFRecordImageDecoder",
            lambda records: _data.OFRecordImageDecoder(records, **self._kwargs),
            input,
        )


class OFRecordImageDecoderRandomCrop(Module):
    """``nn.OFRecordImageDecoderRandomCrop(blob_name, ...)``: decodes like
    ``OFRecordImageDecoder`` and crops a random window of each image (its area a fraction of
    the image in ``random_area``, its width/height in ``random_aspect_ratio``), new windows at
    each call.

    Examples:
        >>> import io, os, tempfile, numpy as np, PIL.Image, flowjob as flow
        >>> png = io.BytesIO()
        >>> PIL.Image.new("RGB", (40, 30)).save(png, "PNG")
        >>> folder = os.path.join(tempfile.mkdtemp(), "images")
        >>> _ = flow.data.write_ofrecord(folder, {"encoded": [png.getvalue()]})
        >>> records = flow.nn.OfrecordReader(folder)()
        >>> crop = flow.nn.OFRecordImageDecoderRandomCrop("encoded", random_seed=1)
        >>> (image,) = crop(records).numpy()
        >>> image.shape[0] <= 30 and image.shape[1] <= 40 and image.shape[2] == 3
        True
    """

    def __init__(
        self,
        blob_name: str,
        color_space: str = "BGR",
        num_attempts: int = 10,
        random_seed: int | None = None,
        random_area: Sequence[float] = (0.08, 1.0),
        random_aspect_ratio: Sequence[float] = (0.75, 1.333333),
    ):
        super().__init__()
        self._kwargs = dict(
            blob_name=blob_name,
            color_space=color_space,
            num_attempts=num_attempts,
            random_area=tuple(random_area),
            random_aspect_ratio=tuple(random_aspect_ratio),
        )
        self._rng = _seeds("OFRecordImageDecoderRandomCrop", random_seed)

    def forward(self, input: Tensor) -> HostTensor:  # noqa: A002 - OneFlow's name
        seed = _draw(self._rng)
        return _run(
            "OFRecordImageDecoderRandomCrop",
            lambda records: _data.OFRecordImageDecoderRandomCrop(
                records, seed=seed, **self._kwargs
            ),
            input,
        )


class CoinFlip(Module):
    """``nn.CoinFlip(batch_size=1, random_seed=None, probability=0.5)``: each call gives
    ``(batch_size,)`` int8 flags, each 1 with ``probability`` (the ``mirror`` input of
    ``CropMirrorNormalize``).

    Examples:
        >>> import flowjob as flow
        >>> flags = flow.nn.CoinFlip(batch_size=6, random_seed=0)()
        >>> flags.shape, flags.dtype.name, set(flags.numpy().tolist()) <= {0, 1}
        (flow.Size([6]), 'int8', True)
    """

    def __init__(
        self, batch_size: int = 1, random_seed: int | None = None, probability: float = 0.5
    ):
        super().__init__()
        self._kwargs = dict(batch_size=batch_size, probability=probability)
        self._seed = _draw(_seeds("CoinFlip", random_seed))
        self._streams: dict[str, Any] = {}

    def forward(self) -> Tensor:
        return _run(
            "CoinFlip",
            lambda: _data.CoinFlip(seed=self._seed, **self._kwargs),
            streams=self._streams,
        )


class CropMirrorNormalize(Module):
    """``nn.CropMirrorNormalize(color_space="BGR", output_layout="NCHW", crop_h=0, crop_w=0,
    crop_pos_y=0.5, crop_pos_x=0.5, mean=[0.0], std=[1.0], output_dtype=flow.float)``:
    ``forward(input, mirror=None)`` crops each image at ``crop_pos`` (a fraction of the room
    left around the crop), flips those whose ``mirror`` flag is 1 and gives
    ``(x - mean) / std`` per channel as one batch. ``input``: tensor buffers (then ``crop_h``
    and ``crop_w`` are needed) or a uint8 NHWC tensor.

    Examples:
        >>> import numpy as np, flowjob as flow
        >>> images = flow.Tensor(np.arange(48).reshape(1, 4, 4, 3), dtype=flow.uint8)
        >>> cmn = flow.nn.CropMirrorNormalize(crop_h=2, crop_w=2, mean=[1.0], std=[2.0])
        >>> cmn(images).shape
        flow.Size([1, 3, 2, 2])
        >>> cmn(images).numpy()[0, 0].tolist()
        [[7.0, 8.5], [13.0, 14.5]]
    """

    def __init__(
        self,
        color_space: str = "BGR",
        output_layout: str = "NCHW",
        crop_h: int = 0,
        crop_w: int = 0,
        crop_pos_y: float = 0.5,
        crop_pos_x: float = 0.5,
        mean: Sequence[float] = (0.0,),
        std: Sequence[float] = (1.0,),
        output_dtype: _dtypes.DType = _dtypes.float32,
    ):
        super().__init__()
        self._kwargs = dict(
            color_space=color_space,
            output_layout=output_layout,
            crop_h=crop_h,
            crop_w=crop_w,
            crop_pos_y=crop_pos_y,
            crop_pos_x=crop_pos_x,
            mean=tuple(mean) if isinstance(mean, (list, tuple)) else mean,
            std=tuple(std) if isinstance(std, (list, tuple)) else std,
            output_dtype=output_dtype,
        )

    def forward(self, input: Tensor, mirror: Tensor | None = None) -> Tensor:  # noqa: A002
        def body(images: Blob, flags: Blob | None = None) -> Blob:
            return _data.CropMirrorNormalize(images, flags, **self._kwargs)

        inputs = (input,) if mirror is None else (input, mirror)
        return _run("CropMirrorNormalize", body, *inputs)


class ImageResize(Module):
    """``nn.image.Resize(target_size=None, min_size=None, max_size=None,
    keep_aspect_ratio=False, resize_side="shorter", channels=3, dtype=None,
    interpolation_type="auto", ...)``: resizes tensor-buffer images. With
    ``keep_aspect_ratio`` the ``resize_side`` side becomes the int ``target_size`` (bounded by
    ``max_size``/``min_size``) and the result stays tensor buffers; otherwise every image
    becomes ``target_size=(width, height)``: one ``(N, height, width, channels)`` tensor of
    ``dtype`` (uint8). The deprecated ``color_space``, ``interp_type``, ``resize_shorter``,
    ``resize_x``/``resize_y`` are accepted, with a warning.

    Examples:
        >>> import io, os, tempfile, numpy as np, PIL.Image, flowjob as flow
        >>> png = io.BytesIO()
        >>> PIL.Image.new("RGB", (40, 20)).save(png, "PNG")
        >>> folder = os.path.join(tempfile.mkdtemp(), "images")
        >>> _ = flow.data.write_ofrecord(folder, {"encoded": [png.getvalue()]})
        >>> images = flow.nn.OFRecordImageDecoder("encoded")(flow.nn.OfrecordReader(folder)())
        >>> [a.shape for a in flow.nn.image.Resize(target_size=10, keep_aspect_ratio=True)(
        ...     images).numpy()]
        [(10, 20, 3)]
        >>> flow.nn.image.Resize(target_size=(8, 6))(images).shape
        flow.Size([1, 6, 8, 3])
    """

    def __init__(
        self,
        target_size: int | Sequence[int] | None = None,
        min_size: int | None = None,
        max_size: int | None = None,
        keep_aspect_ratio: bool = False,
        resize_side: str = "shorter",
        channels: int = 3,
        dtype: _dtypes.DType | None = None,
        interpolation_type: str = "auto",
        name: str | None = None,
        color_space: str | None = None,
        interp_type: str | None = None,
        resize_shorter: int = 0,
        resize_x: int = 0,
        resize_y: int = 0,
    ):
        super().__init__()
        self._kwargs = dict(
            target_size=tuple(target_size) if isinstance(target_size, list) else target_size,
            min_size=min_size,
            max_size=max_size,
            keep_aspect_ratio=keep_aspect_ratio,
            resize_side=resize_side,
            channels=channels,
            dtype=dtype,
            interpolation_type=interpolation_type,
            name=name,
            color_space=color_space,
            interp_type=interp_type,
            resize_shorter=resize_shorter,
            resize_x=resize_x,
            resize_y=resize_y,
        )

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002 - OneFlow's name
        def body(images: Blob) -> Blob:
            out = _data.Resize(images, **self._kwargs)
            return out[0] if isinstance(out, tuple) else out  # the images, as OneFlow's

        return _run("image.Resize", body, input)


# ``flow.nn.image``: OneFlow's namespace of the image modules
image = types.ModuleType("flowjob.nn.image", "OneFlow v0.4's eager image modules: ``Resize``.")
image.Resize = ImageResize
