"""Text summaries (TensorBoard's text plugin: a ``DT_STRING`` tensor, Markdown per cell).

How TensorBoard renders them: a rank-0 string renders as Markdown (``<p>...</p>``); a rank-1
list renders as a one-column HTML table, one row per item; a rank-2 list of rows renders as a
table (each cell is Markdown).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from tensorboard.compat.proto import summary_pb2, tensor_pb2, tensor_shape_pb2, types_pb2
from tensorboard.plugins.text import plugin_data_pb2 as text_data_pb2

__all__ = ["text", "text_value", "text_metadata", "markdown_table"]

_TEXT_CONTENT = text_data_pb2.TextPluginData(version=0).SerializeToString()


def text_metadata() -> summary_pb2.SummaryMetadata:
    return summary_pb2.SummaryMetadata(
        plugin_data=summary_pb2.SummaryMetadata.PluginData(
            plugin_name="text", content=_TEXT_CONTENT
        ),
        data_class=summary_pb2.DATA_CLASS_TENSOR,
    )


def _cell(x, what: str) -> bytes:
    if isinstance(x, bytes):
        return x
    if isinstance(x, (str, np.str_)):
        return str(x).encode("utf-8")
    raise TypeError(f"{what}: text items must be str, got {type(x).__name__} {x!r}")


def _to_strings(data, what: str) -> tuple[tuple[int, ...], list[bytes]]:
    if isinstance(data, (str, bytes, np.str_)):
        return (), [_cell(data, what)]
    if isinstance(data, np.ndarray):
        if data.dtype.kind not in "US" or data.ndim > 2:
            raise TypeError(
                f"{what}: expected a str array of rank <= 2, got dtype {data.dtype} "
                f"shape {data.shape}"
            )
        return data.shape, [_cell(x, what) for x in data.reshape(-1).tolist()]
    if isinstance(data, Sequence):
        if len(data) == 0:
            raise ValueError(f"{what}: empty list; expected a str or a non-empty list of str")
        if all(isinstance(r, (list, tuple)) for r in data):  # rows of a table
            width = len(data[0])
            if width == 0 or any(len(r) != width for r in data):
                raise ValueError(
                    f"{what}: table rows must be non-empty and of equal length, got "
                    f"lengths {[len(r) for r in data]}"
                )
            return (len(data), width), [_cell(x, what) for r in data for x in r]
        return (len(data),), [_cell(x, what) for x in data]
    raise TypeError(
        f"{what}: expected a str, a list of str or a list of rows of str, got {type(data).__name__}"
    )


_MARKDOWN_ESCAPES = str.maketrans({c: f"\\{c}" for c in "\\`*_[]|"} | {"<": "&lt;", "&": "&amp;"})


def markdown_table(rows: Sequence[Sequence[str]]) -> str:
    """``rows`` (the header first) as one Markdown table. TensorBoard renders it as an HTML
    table with a ``<thead>``; a rank-2 text tensor renders the header as a plain row."""
    if not rows or not rows[0]:
        raise ValueError("markdown_table: expected a header row and any number of rows")

    def line(cells: Sequence[str]) -> str:
        return (
            "| "
            + " | ".join(" ".join(str(c).split()).translate(_MARKDOWN_ESCAPES) for c in cells)
            + " |"
        )

    return "\n".join([line(rows[0]), "|" + "---|" * len(rows[0]), *map(line, rows[1:])])


def text_value(
    tag: str, data, with_metadata: bool = True, what: str = "text"
) -> summary_pb2.Summary.Value:
    """A ``Summary.Value`` holding ``data`` (str, list of str, or list of rows)."""
    shape, cells = _to_strings(data, what)
    tensor = tensor_pb2.TensorProto(
        dtype=types_pb2.DT_STRING,
        tensor_shape=tensor_shape_pb2.TensorShapeProto(
            dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=s) for s in shape]
        ),
        string_val=cells,
    )
    value = summary_pb2.Summary.Value(tag=tag, tensor=tensor)
    if with_metadata:
        value.metadata.CopyFrom(text_metadata())
    return value


def text(text, tag: str | None = None) -> summary_pb2.Summary:
    """A ``Summary`` with one text value (OneFlow's ``flow.summary.text``).

    ``text`` is a str (rendered as Markdown), a non-empty list of str (a one-column table, as
    OneFlow wrote it) or a list of equal-length rows (a table). ``tag`` defaults to ``"text"``.
    Log it with ``SummaryWriter.pb(summary, step)`` or, in a job, ``flow.summary.pb`` on the
    int8 bytes of ``str(summary)``.
    """
    if tag is None:
        tag = "text"
    if not isinstance(tag, str) or not tag:
        raise TypeError(f"flow.summary.text: tag must be a non-empty str, got {tag!r}")
    summary = summary_pb2.Summary()
    summary.value.append(text_value(tag, text, True, what="flow.summary.text"))
    return summary
