"""OneFlow v0.4's eager data functions: ``flow.experimental.tensor_buffer_to_list_of_tensors``
and the one-shot ``flow.tmp.RawDecoder`` / ``flow.tmp.OfrecordReader`` (a module made and
called once), over the modules of ``_dataset.py`` and flowjob's data pipeline ops."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .. import _dtypes
from .. import data as _data
from ..data import TensorBufferError
from ..graph import Blob
from ..imperative import Tensor
from ._dataset import OfrecordRawDecoder, OfrecordReader, _run
from ._host_tensor import HostTensor


def tensor_buffer_to_list_of_tensors(
    tensor: Any, out_shapes: Sequence[Sequence[int]], out_dtypes: Any, *args: Any, **kwargs: Any
) -> list[Tensor]:
    """One tensor per instance of the tensor buffer ``tensor``: instance ``i`` as a tensor of
    ``out_shapes[i]`` and ``out_dtypes[i]`` (one shape and dtype per instance; instances of
    one shape may be reshaped to it, others must have their listed shape). Inside a job
    function (a blob) it is the job op ``flow.tensor_buffer_to_list_of_tensors(x, out_shape,
    out_dtype, dynamic_out=False)``.

    Examples:
        >>> import numpy as np, flowjob as flow, flowjob.experimental as fx
        >>> from flowjob._src.nn_modules._host_tensor import HostTensor
        >>> from flowjob._src.runtime import HostValue
        >>> images = [np.zeros((2, 3), np.uint8), np.ones((1, 3), np.uint8)]
        >>> buffer = HostTensor.of(HostValue(images, (2,), flow.tensor_buffer))
        >>> out = fx.tensor_buffer_to_list_of_tensors(buffer, [(2, 3), (1, 3)], [flow.uint8] * 2)
        >>> [tuple(t.shape) for t in out], out[1].numpy().tolist()
        ([(2, 3), (1, 3)], [[1, 1, 1]])
    """
    if isinstance(tensor, Blob):  # the job op, with its own signature
        return _data.tensor_buffer_to_list_of_tensors(
            tensor, out_shapes, out_dtypes, *args, **kwargs
        )
    op = "tensor_buffer_to_list_of_tensors"
    if args or kwargs:
        raise TypeError(f"{op}(tensor, out_shapes, out_dtypes) takes no other argument")
    if not isinstance(tensor, HostTensor) or tensor.dtype is not _dtypes.tensor_buffer:
        shown = tensor.dtype.name if isinstance(tensor, Tensor) else type(tensor).__name__
        raise TypeError(f"{op}: tensor must be a tensor of tensor buffers, got {shown}")
    shapes = [tuple(int(d) for d in s) for s in out_shapes]
    dtypes = [_dtypes.as_dtype(d) for d in out_dtypes]
    count = tensor.shape.numel()
    if len(shapes) != count or len(dtypes) != count:
        raise ValueError(
            f"{op}: the buffer has {count} instance(s); got {len(shapes)} out_shapes and "
            f"{len(dtypes)} out_dtypes (one of each per instance)"
        )
    if len(set(dtypes)) != 1:
        raise ValueError(f"{op}: the instances must share one dtype, got {dtypes}")
    if len(set(shapes)) == 1:  # one shape: each instance's values reshaped to it
        shape, dynamic = shapes[0], False
    elif len({len(s) for s in shapes}) == 1:  # each at its own shape, within the largest
        shape, dynamic = tuple(max(axis) for axis in zip(*shapes)), True
    else:
        raise ValueError(f"{op}: out_shapes must have one rank, got {shapes}")
    outs = _run(
        op,
        lambda x: _data.tensor_buffer_to_list_of_tensors(x, shape, dtypes[0], dynamic),
        tensor,
    )
    outs = list(outs) if isinstance(outs, tuple) else [outs]
    for i, (t, want) in enumerate(zip(outs, shapes)):
        if tuple(t.shape) != want:
            raise TensorBufferError(
                f"{op}: instance {i} has shape {tuple(t.shape)}, expected out_shapes[{i}] = {want}"
            )
    return outs


def raw_decoder(
    input_record: Tensor,
    blob_name: str,
    shape: Sequence[int],
    dtype: _dtypes.DType,
    dim1_varying_length: bool = False,
    auto_zero_padding: bool = False,
    name: str | None = None,
) -> Tensor:
    """``flow.tmp.RawDecoder(records, blob_name, shape, dtype)``: ``nn.OfrecordRawDecoder``
    made and applied once.

    Examples:
        >>> import os, tempfile, numpy as np, flowjob as flow
        >>> folder = os.path.join(tempfile.mkdtemp(), "train")
        >>> _ = flow.data.write_ofrecord(folder, {"y": np.int32([7, 8])})
        >>> flow.tmp.RawDecoder(flow.tmp.OfrecordReader(folder, 2), "y", (), flow.int32).numpy()
        array([7, 8], dtype=int32)
    """
    module = OfrecordRawDecoder(
        blob_name, shape, dtype, dim1_varying_length, auto_zero_padding, name
    )
    return module(input_record)


def ofrecord_reader_once(
    ofrecord_dir: str,
    batch_size: int = 1,
    data_part_num: int = 1,
    part_name_prefix: str = "part-",
    part_name_suffix_length: int = -1,
    random_shuffle: bool = False,
    shuffle_buffer_size: int = 1024,
    shuffle_after_epoch: bool = False,
    name: str | None = None,
) -> HostTensor:
    """``flow.tmp.OfrecordReader(ofrecord_dir, batch_size=1, ...)``: a new
    ``nn.OfrecordReader``'s first batch (every call starts the data set over).

    Examples:
        >>> import os, tempfile, numpy as np, flowjob as flow
        >>> folder = os.path.join(tempfile.mkdtemp(), "train")
        >>> _ = flow.data.write_ofrecord(folder, {"y": np.int32([7, 8, 9])})
        >>> flow.tmp.OfrecordReader(folder, batch_size=2).shape
        flow.Size([2])
    """
    return OfrecordReader(
        ofrecord_dir,
        batch_size,
        data_part_num,
        part_name_prefix,
        part_name_suffix_length,
        random_shuffle,
        shuffle_buffer_size,
        shuffle_after_epoch,
        name=name,
    )()
