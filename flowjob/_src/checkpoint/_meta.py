"""The ``meta`` file: protobuf text format of OneFlow's ``VariableMetaInfo``.

``VariableMetaInfo{required ShapeProto shape = 2; required DataType data_type = 3}`` with
``ShapeProto{repeated int64 dim = 1}``. Only these two fields exist, so a tiny tokenizer is
enough; pulling in protobuf and OneFlow's ``.proto`` files would buy nothing.
"""

from __future__ import annotations

import re

from flowjob._src import _dtypes
from flowjob._src._dtypes import DType
from flowjob._src.errors import FlowJobError


class CheckpointError(FlowJobError, ValueError):
    """A checkpoint file is missing, truncated or corrupt, or a value does not fit a variable."""


_BY_VALUE = {d.oneflow_value: d for d in _dtypes.ALL}
# Text format: identifiers, (signed) integers, punctuation; '#' starts a comment.
_TOKEN = re.compile(r"\s+|#[^\n]*|([A-Za-z_][A-Za-z0-9_]*|[-+]?\d+|[{}<>:;,])")


def render_meta(shape: tuple[int, ...], dtype: DType) -> str:
    """``VariableMetaInfo`` text exactly as OneFlow's ``text_format.MessageToString`` prints it."""
    dims = "".join(f"  dim: {int(d)}\n" for d in shape)
    return f"shape {{\n{dims}}}\ndata_type: {dtype.oneflow_enum}\n"


def _tokens(text: str, where: str) -> list[str]:
    out = []
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            raise CheckpointError(f"{where}: cannot parse meta text near {text[pos : pos + 20]!r}")
        if m.group(1) is not None:
            out.append(m.group(1))
        pos = m.end()
    return out


def _dtype_of(token: str, where: str) -> DType:
    dtype: DType | None
    if re.fullmatch(r"[-+]?\d+", token):
        dtype = _BY_VALUE.get(int(token))
    else:
        try:
            dtype = _dtypes.from_oneflow_enum(token)
        except ValueError:
            dtype = None
    if dtype is None:
        known = ", ".join(d.oneflow_enum for d in _dtypes.ALL)
        raise CheckpointError(f"{where}: unsupported data_type {token!r} (supported: {known})")
    return dtype


def parse_meta(text: str, where: str = "meta") -> tuple[tuple[int, ...], DType]:
    """Parses ``VariableMetaInfo`` text into ``(shape, dtype)``; errors name ``where``."""
    toks = _tokens(text, where)
    shape: list[int] | None = None
    dtype: DType | None = None
    i = 0

    def expect(cond: bool, what: str) -> None:
        if not cond:
            got = toks[i] if i < len(toks) else "end of file"
            raise CheckpointError(f"{where}: expected {what} in meta text, got {got!r}")

    while i < len(toks):
        field = toks[i]
        i += 1
        if field == "shape":
            if i < len(toks) and toks[i] == ":":
                i += 1
            expect(i < len(toks) and toks[i] in ("{", "<"), "'{' after 'shape'")
            close = "}" if toks[i] == "{" else ">"
            i += 1
            shape = shape or []
            while i < len(toks) and toks[i] != close:
                expect(toks[i] == "dim", "'dim'")
                i += 1
                expect(i < len(toks) and toks[i] == ":", "':' after 'dim'")
                i += 1
                expect(
                    i < len(toks) and re.fullmatch(r"\d+", toks[i]) is not None,
                    "a non-negative integer dim",
                )
                shape.append(int(toks[i]))
                i += 1
                if i < len(toks) and toks[i] in (",", ";"):
                    i += 1
            expect(i < len(toks), f"{close!r} closing 'shape'")
            i += 1
        elif field == "data_type":
            expect(i < len(toks) and toks[i] == ":", "':' after 'data_type'")
            i += 1
            expect(i < len(toks), "a data type after 'data_type:'")
            dtype = _dtype_of(toks[i], where)
            i += 1
        else:
            raise CheckpointError(
                f"{where}: unknown field {field!r} in meta text (VariableMetaInfo has only "
                "'shape' and 'data_type')"
            )
        if i < len(toks) and toks[i] in (",", ";"):
            i += 1
    if shape is None or dtype is None:
        missing = " and ".join(n for n, v in (("shape", shape), ("data_type", dtype)) if v is None)
        raise CheckpointError(f"{where}: meta text lacks the required field {missing}")
    return tuple(shape), dtype
