"""Argument checks and naming shared by ``flow.data``'s job ops (``_ofrecord_ops.py``,
``_onerec_ops.py``, ``_image_ops.py``, ``_decode_random.py``): errors at the user's line, the
batch size of an input blob, op names and their reproducible random seeds, mode arguments."""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from typing import Any

from .. import _dtypes
from ..errors import OpError, describe_frame, user_frame
from ..graph import Blob, current_context
from ._modes import Mode, ModeError


def _fail(op: str, message: str) -> OpError:
    return OpError(f"{op}: {message}\n  at {describe_frame(user_frame())}")


def _batch(blob: Blob, op: str, kinds: tuple[_dtypes.DType, ...]) -> int:
    if not isinstance(blob, Blob) or blob.dtype not in kinds:
        shown = getattr(blob, "dtype", type(blob).__name__)
        want = " or ".join(k.name for k in kinds)
        raise _fail(op, f"input must be a {want} blob of the data pipeline, got {shown}")
    return blob.shape[0]


def _name_and_seed(name: str | None, prefix: str, seed: int | None) -> tuple[str, int]:
    """The op's name (OneFlow's automatic one when None) and its random seed: ``seed``, or
    one derived from ``flow.config.seed`` and the job and op names, so that runs repeat."""
    ctx = current_context()
    name = name if name is not None else ctx.graph.unique_name(prefix)
    if seed is None:
        seed = ctx.variables.seed ^ zlib.crc32(f"{ctx.graph.name}/{name}".encode())
    return name, int(seed)


def _module_name(name: str, default: str) -> str | None:
    """OneFlow's module ops keep their default name for the first use and number the rest;
    here every use of the default name gets a fresh ``<default>_<n>``."""
    return None if name == default else name


def _mode(op: str, kind: type[Mode], value: object, what: str) -> Any:
    """A mode argument parsed to its enum; an ``OpError`` at the user's line otherwise."""
    try:
        return kind.parse(value, what)
    except ModeError as exc:
        raise _fail(op, str(exc)) from None


def _check_range(op: str, what: str, value: Sequence[float]) -> None:
    if len(value) != 2 or not 0 < value[0] <= value[1]:
        raise _fail(op, f"{what} must be [low, high] with 0 < low <= high, got {list(value)}")
