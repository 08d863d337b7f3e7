"""Job results on the host: ``LocalBlob`` (an array with NumPy's API forwarded, as OneFlow's
local blobs) and ``LocalTensorList``; ``local`` picks one for a returned value."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .._deprecation import warn_once
from ..graph import TensorList


def local(value: Any, is_dynamic: bool, pieces: int) -> Any:
    """A returned value on the host: a ``LocalTensorList`` for a tensor list."""
    if isinstance(value, TensorList):
        return LocalTensorList(value)
    return LocalBlob(value, is_dynamic, pieces)


class LocalTensorList:
    """A returned tensor list (OneFlow's ``LocalMirroredTensorList``): ``numpy_lists()`` gives
    one list of arrays per device."""

    def __init__(self, value: TensorList):
        self._tensors = list(value.tensors)

    def numpy_lists(self) -> list[list[np.ndarray]]:
        return [list(self._tensors)]

    def ndarray_lists(self) -> list[list[np.ndarray]]:
        warn_once(
            "LocalMirroredTensorList.ndarray_lists",
            "LocalMirroredTensorList.ndarray_lists is deprecated, please use "
            "LocalMirroredTensorList.numpy_lists",
        )
        return self.numpy_lists()

    def parallel_num(self) -> int:
        return 1

    def __repr__(self) -> str:
        return f"LocalTensorList({[t.shape for t in self._tensors]})"


class LocalBlob:
    """A job result on the host. ``numpy()`` gives the array; NumPy's API is forwarded to it,
    so ``job(x).get().mean()`` and ``labels == predictions`` work as in OneFlow."""

    __array_priority__ = 1000

    def __init__(self, ndarray: np.ndarray, is_dynamic: bool = False, pieces: int = 1):
        self._array = ndarray
        self.is_dynamic = is_dynamic
        # Mirrored view: the array is the per-device pieces concatenated in device order.
        self._pieces = pieces if ndarray.ndim and ndarray.shape[0] % pieces == 0 else 1

    def numpy(self, parallel_id: int | None = None) -> np.ndarray:
        if parallel_id is None:
            return self._array
        if not 0 <= parallel_id < self._pieces:
            raise ValueError(
                f"parallel_id {parallel_id} out of range: the result has {self._pieces} piece(s)"
            )
        return self.numpy_list()[parallel_id]

    def numpy_list(self) -> list[np.ndarray]:
        """One array per device (a one-element list unless the job ran mirrored)."""
        return list(np.split(self._array, self._pieces)) if self._pieces > 1 else [self._array]

    def numpy_lists(self) -> list[list[np.ndarray]]:
        """``tp.ListListNumpy`` of a plain blob: each device's array as a one-tensor list."""
        return [[a] for a in self.numpy_list()]

    def ndarray(self) -> np.ndarray:
        warn_once(
            "LocalBlob.ndarray", "LocalBlob.ndarray is deprecated, please use LocalBlob.numpy()"
        )
        return self._array

    def ndarray_list(self) -> list[np.ndarray]:
        warn_once(
            "LocalBlob.ndarray_list",
            "LocalBlob.ndarray_list is deprecated, please use LocalBlob.numpy_list()",
        )
        return self.numpy_list()

    def parallel_num(self) -> int:
        return self._pieces

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name == "_array":
            raise AttributeError(name)
        return getattr(self._array, name)

    def __array__(self, dtype=None, copy=None):
        return self._array if dtype is None else self._array.astype(dtype)

    def __repr__(self) -> str:
        return repr(self._array)

    def __str__(self) -> str:
        return str(self._array)

    def __len__(self) -> int:
        return len(self._array)

    def __iter__(self):
        return iter(self._array)

    def __getitem__(self, key):
        return self._array[key]

    def __bool__(self) -> bool:
        return bool(self._array)

    def __float__(self) -> float:
        return float(self._array)

    def __int__(self) -> int:
        return int(self._array)


def _forward(name: str) -> Callable[..., Any]:
    def method(self: LocalBlob, *args):
        args = [a._array if isinstance(a, LocalBlob) else a for a in args]
        return getattr(self._array, name)(*args)

    method.__name__ = name
    return method


for _name in (
    "add",
    "radd",
    "sub",
    "rsub",
    "mul",
    "rmul",
    "truediv",
    "rtruediv",
    "floordiv",
    "rfloordiv",
    "mod",
    "rmod",
    "pow",
    "rpow",
    "matmul",
    "rmatmul",
    "eq",
    "ne",
    "lt",
    "le",
    "gt",
    "ge",
    "neg",
    "pos",
    "abs",
    "and",
    "or",
    "xor",
    "invert",
    "contains",
):
    setattr(LocalBlob, f"__{_name}__", _forward(f"__{_name}__"))
