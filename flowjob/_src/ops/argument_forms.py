"""The argument forms OneFlow v0.4.0's normalizing helpers accepted, as checks of one value.

OneFlow's ops read some arguments through shared helpers (``_GetSequence`` for ``strides``,
``_check_axis`` for ``axis``, ``calc_pool_padding`` for ``padding``...; the parity table
``compat/parity/normalizers.py`` lists them). flowjob's ops read the same arguments through
their own helpers; ``CHECKS`` runs those helpers on a single value, without a graph or a
shape, so that ``flowjob check`` can judge a literal argument of a program before it runs.
Geometry is not known there: a sequence may have any length, an axis any value a rank of
up to ``MAX_RANK`` allows.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ._modes import Distribution, FanMode, Padding
from ._slicing import slice_tuples
from ._util import check_name, fail, int_list, norm_axes, shape_tuple
from .initializers import GAINS, data_format_layout

__all__ = ["CHECKS", "check_value"]

MAX_RANK = 32


def _sequence(op: str, param: str, value: Any) -> None:
    items = list(value) if isinstance(value, (list, tuple)) else [value]
    if value is not None and not all(isinstance(v, int) and not isinstance(v, bool) for v in items):
        fail(op, f"{param} must be None, an int or a list of ints, got {value!r}")
    int_list(op, value, max(len(items), 1), param)


def _axes(op: str, param: str, value: Any) -> None:
    norm_axes(op, value, MAX_RANK)


def _pool_padding(op: str, param: str, value: Any) -> None:
    if isinstance(value, str) and Padding.lookup(value, upper=True) is None:
        fail(op, f"{param} must be 'SAME', 'SAME_LOWER', 'SAME_UPPER' or 'VALID', got {value!r}")
    if not isinstance(value, (str, list, tuple)):
        fail(op, f"{param} must be a string or a list of per-axis paddings, got {value!r}")


def _slices(op: str, param: str, value: Any) -> None:
    size = len(value) if isinstance(value, (list, tuple)) else 0
    slice_tuples(op, value, (2**31 - 1,) * size, None)


def _shape(op: str, param: str, value: Any) -> None:
    shape_tuple(op, value, param, allow_minus_one=True)


def _name(op: str, param: str, value: Any) -> None:
    check_name(op, value)


def _data_format(op: str, param: str, value: Any) -> None:
    try:
        data_format_layout(value, op)
    except (TypeError, ValueError) as exc:
        fail(op, str(exc).split(": ", 1)[-1])


def _distribution(op: str, param: str, value: Any) -> None:
    if Distribution.lookup(str(value).lower()) is None:
        fail(op, f"{param} must be one of {[d.value for d in Distribution]}, got {value!r}")


def _fan_mode(op: str, param: str, value: Any) -> None:
    if FanMode.lookup(str(value).lower()) is None:
        fail(op, f"{param} must be one of {[m.value for m in FanMode]}, got {value!r}")


def _gain(op: str, param: str, value: Any) -> None:
    if value != "leaky_relu" and value not in GAINS:
        fail(op, f"{param} must be one of {['leaky_relu', *GAINS]}, got {value!r}")


# OneFlow's helper -> (the check of one value, the parameters it reads as values; None: every
# parameter the op passes it). Parameters passed only for their shape (blobs) are not checked.
CHECKS: dict[str, tuple[Callable[[str, str, Any], None], frozenset[str] | None]] = {
    "_GetSequence": (_sequence, None),
    "_check_axis": (_axes, frozenset({"axis"})),
    "_softmax_need_transpose": (_axes, frozenset({"axis"})),
    "get_perm_when_transpose_axis_to_last_dim": (_axes, frozenset({"axis"})),
    "calc_pool_padding": (_pool_padding, frozenset({"padding"})),
    "check_slice_tup_list": (_slices, frozenset({"slice_tup_list"})),
    "GetSliceAttrs": (_slices, frozenset({"slice_tup_list"})),
    "infer_shape": (_shape, frozenset({"shape"})),
    "_gen_unique_name_if_need": (_name, frozenset({"name"})),
    "_get_data_format": (_data_format, frozenset({"data_format"})),
    "_CalcFan": (_data_format, frozenset({"data_format"})),
    "_get_random_distribution": (_distribution, frozenset({"distribution"})),
    "_get_variance_norm": (_fan_mode, frozenset({"mode"})),
    "CalcGain": (_gain, frozenset({"nonlinearity"})),
}


def check_value(helper: str, op: str, param: str, value: Any) -> None:
    """Raises ``OpError`` when ``value`` of ``op``'s ``param`` is not a form OneFlow's
    ``helper`` accepted.

    Examples:
        >>> from flowjob.errors import OpError
        >>> check_value("_GetSequence", "flow.nn.max_pool2d", "strides", [2, 2])
        >>> try:
        ...     check_value("_GetSequence", "flow.nn.max_pool2d", "strides", "2")
        ... except OpError as exc:
        ...     print(str(exc).splitlines()[0])
        flow.nn.max_pool2d: strides must be None, an int or a list of ints, got '2'
    """
    CHECKS[helper][0](op, param, value)
