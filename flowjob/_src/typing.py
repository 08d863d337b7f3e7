"""``oneflow.typing``: placeholders for job inputs and annotations for job results.

``tp.Numpy.Placeholder(shape, dtype)`` declares a fixed-shape input fed with one ndarray.
``tp.ListNumpy.Placeholder(shape, dtype)`` declares a dynamic input: a list with one ndarray per
device, each of the same rank and at most the declared (maximum) shape. Dynamic inputs are not
recompiled per shape: arrays that only flow to the host (returns, watches, summary ops) never
enter the compiled program; ones that reach device ops are zero-padded to the maximum shape and
their real shape travels beside them, so results come back at their real size. Only
elementwise device ops accept dynamic blobs (others fail at trace time with a clear error).
``tp.ListListNumpy.Placeholder`` declares a tensor list (several arrays of differing shapes per
device) for the host data pipeline; ``-> tp.ListListNumpy`` returns lists of arrays.
"""

from __future__ import annotations

import typing
from dataclasses import dataclass

from . import _dtypes
from .errors import JobArgumentError, JobDefinitionError

T = typing.TypeVar("T")


@dataclass(frozen=True)
class ArgBlobDef:
    """An input placeholder: its (maximum) shape, dtype and whether it is dynamic."""

    shape: tuple[int, ...]
    dtype: _dtypes.DType
    is_dynamic: bool
    name: str | None = None
    batch_axis: int | None = 0
    # tp.ListListNumpy: a list of arrays per device, read by the data pipeline only
    tensor_list: bool = False

    def __post_init__(self) -> None:
        if type(self.shape) is not tuple:
            raise JobDefinitionError(
                f"placeholder shape should be a tuple. {type(self.shape).__name__} found: "
                f"{self.shape!r}"
            )
        for d in self.shape:
            if type(d) is not int or d <= 0:
                raise JobArgumentError(
                    f"every dimension of a placeholder shape must be an int > 0, got {self.shape!r}"
                )


def _placeholder(shape, dtype, dynamic: bool, batch_axis=0, name=None) -> ArgBlobDef:
    if isinstance(shape, list):
        raise JobDefinitionError(f"placeholder shape should be a tuple. list found: {shape!r}")
    return ArgBlobDef(shape, _dtypes.as_dtype(dtype), dynamic, name, batch_axis)


class PyStructCompatibleToBlob:
    """Base of the annotations that describe how a blob is converted for Python."""


class Numpy(PyStructCompatibleToBlob):
    """Annotation: a fixed-shape blob delivered as one ``np.ndarray``.

    As a job's return annotation (``-> tp.Numpy``) the call blocks and returns the array; on
    a handler's parameter, the handler gets the array.

    Examples:
        >>> import numpy as np, flowjob as flow, flowjob.typing as tp
        >>> @flow.global_function()
        ... def scale(x: tp.Numpy.Placeholder((2, 2), dtype=flow.float32)) -> tp.Numpy:
        ...     return x * 10
        >>> scale(np.eye(2, dtype=np.float32))
        array([[10.,  0.],
               [ 0., 10.]], dtype=float32)
    """

    @staticmethod
    def Placeholder(
        shape: tuple[int, ...],
        dtype=_dtypes.float32,  # noqa: N802
        batch_axis: int | None = 0,
    ) -> ArgBlobDef:
        """Declares a job argument of a fixed shape: ``x: tp.Numpy.Placeholder((8, 3))``.

        Args:
            shape: the argument's shape; calls must pass exactly this shape.
            dtype: a flowjob dtype (``flow.float32``, ``flow.int32``...); same-kind arrays
                (float64 for float32) are cast, others refused.
            batch_axis: the axis split among devices (None: none).

        Returns:
            The argument's definition, used as the parameter's annotation.

        Raises:
            JobArgumentError: (at the call) an array of another shape or kind of dtype.
        """
        return _placeholder(shape, dtype, False, batch_axis)


class ListNumpy(PyStructCompatibleToBlob):
    """Annotation: a blob delivered as a list of ``np.ndarray``, one per device."""

    @staticmethod
    def Placeholder(
        shape: tuple[int, ...],
        dtype=_dtypes.float32,  # noqa: N802
        batch_axis: int | None = 0,
    ) -> ArgBlobDef:
        return _placeholder(shape, dtype, True, batch_axis)


class ListListNumpy(PyStructCompatibleToBlob):
    """Annotation: a tensor list delivered as a list (one per device) of lists of
    ``np.ndarray`` (``numpy_lists()``)."""

    @staticmethod
    def Placeholder(
        shape: tuple[int, ...],
        dtype=_dtypes.float32,  # noqa: N802
        batch_axis: int | None = 0,
    ) -> ArgBlobDef:
        """A tensor-list input: ``[[t0, t1, ...]]`` (one list per device) of arrays of the
        placeholder's rank, each no larger than ``shape`` on any axis, their first axes
        adding up to at most ``shape[0]``. It feeds ``flow.tensor_list_to_tensor_buffer``
        (the data pipeline) only."""
        if isinstance(shape, list):
            raise JobDefinitionError(f"placeholder shape should be a tuple. list found: {shape!r}")
        return ArgBlobDef(shape, _dtypes.as_dtype(dtype), False, None, batch_axis, True)


class Callback(typing.Generic[T]):
    """``-> tp.Callback[T]``: the call returns a function that registers a callback of T."""


class Bundle(typing.Generic[T]):
    """``-> tp.Bundle[tp.Numpy]``: any nesting of list/tuple/dict of blobs, leaves converted."""


__all__ = ["Numpy", "ListNumpy", "ListListNumpy", "Callback", "Bundle", "ArgBlobDef"]
