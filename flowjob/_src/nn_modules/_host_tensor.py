"""Tensors of the host data pipeline: a batch of OFRecords or of tensor buffers (decoded
images of differing sizes) as OneFlow v0.4's eager data modules hand them from one to the next.

Such values have no fixed numeric shape, so they cannot live in a JAX array: a ``HostTensor``
keeps the pipeline's own value (what ``flowjob._src.data``'s ops take and give) and refuses to
be used as numbers, naming what to do instead. Only the data modules read it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _dtypes
from .._size import Size
from ..data import _buffers
from ..errors import FlowJobError
from ..imperative import Tensor
from ..imperative._storage import CPU, Cell
from ..runtime import HostValue


class HostTensorError(FlowJobError, TypeError):
    """A tensor of records or tensor buffers was used where numbers are needed."""


class HostTensor(Tensor):
    """A ``flow.Tensor`` of dtype ``record`` or ``tensor_buffer`` whose values the host data
    pipeline holds. ``numpy()`` of tensor buffers gives the list of their instances (NumPy
    arrays), as OneFlow's does.

    Examples:
        >>> import numpy as np
        >>> import flowjob as flow
        >>> from flowjob._src.nn_modules._host_tensor import HostTensor
        >>> from flowjob._src.runtime import HostValue
        >>> images = [np.zeros((2, 3, 3), np.uint8), np.ones((4, 1, 3), np.uint8)]
        >>> t = HostTensor.of(HostValue(images, (2,), flow.tensor_buffer))
        >>> t.shape, t.dtype.name, [a.shape for a in t.numpy()]
        (flow.Size([2]), 'tensor_buffer', [(2, 3, 3), (4, 1, 3)])
    """

    @classmethod
    def of(cls, value: HostValue, where: Any = CPU) -> HostTensor:
        """The tensor holding ``value`` (a ``HostValue`` that ``runtime.run_eagerly`` gave)."""
        if value.dtype not in (_dtypes.record, _dtypes.tensor_buffer):
            raise TypeError(
                f"HostTensor holds records or tensor buffers, got dtype {value.dtype.name}"
            )
        out = cls.__new__(cls)
        held = value.value
        if value.dtype is _dtypes.tensor_buffer:  # instances as an object array of the shape
            held = _buffers.make(_buffers.items(held), value.shape)
        out._cell = Cell(held, where)
        out._host = HostValue(held, tuple(value.shape), value.dtype)
        out._init_autograd(False)
        return out

    @property
    def host_value(self) -> HostValue:
        """The pipeline's value, as data pipeline ops take it (``runtime.run_eagerly``)."""
        return self._host

    @property
    def array(self) -> Any:
        raise self._refuse("used as an array")

    @property
    def shape(self) -> Size:
        return Size(self._host.shape)

    @property
    def dtype(self) -> _dtypes.DType:
        return self._host.dtype

    @property
    def ndim(self) -> int:
        return len(self._host.shape)

    def numpy(self) -> list[np.ndarray]:
        """The instances of a tensor buffer, each a NumPy copy (OneFlow's list)."""
        if self._host.dtype is not _dtypes.tensor_buffer:
            raise self._refuse("read with numpy()")
        return [np.array(x) for x in _buffers.items(self._host.value)]

    def tolist(self) -> list[Any]:
        return [x.tolist() for x in self.numpy()]

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        raise self._refuse("converted to a NumPy array (numpy() lists a buffer's instances)")

    def __getitem__(self, key: Any) -> Tensor:
        raise self._refuse("indexed")

    def __setitem__(self, key: Any, value: Any) -> None:
        raise self._refuse("assigned to")

    def __deepcopy__(self, memo: dict) -> HostTensor:
        return HostTensor.of(self._host, self.device)

    def __repr__(self) -> str:
        return f"tensor(<{self._host.shape[0]} {self.dtype.name} values of the data pipeline>)"

    __str__ = __repr__

    def _refuse(self, use: str) -> HostTensorError:
        hint = (
            "decode it first (nn.OfrecordRawDecoder, nn.OFRecordImageDecoder)"
            if self._host.dtype is _dtypes.record
            else "turn it into numbers first (nn.image.Resize to a fixed size, "
            "nn.CropMirrorNormalize with crop_h/crop_w, flow.tensor_buffer_to_list_of_tensors)"
        )
        return HostTensorError(
            f"a tensor of {self.dtype.name} {tuple(self.shape)} is held by the host data "
            f"pipeline and cannot be {use}: {hint}"
        )
