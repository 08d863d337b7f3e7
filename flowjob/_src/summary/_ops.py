"""OneFlow's summary job ops (spec 5.1, seed 004), run as host ops after each job call.

Each op records a host op in the job being traced; after every call of the job the runtime's
completion thread calls its function with the inputs as NumPy arrays, in call order, and the
function logs through the process-global default :class:`SummaryWriter` (the same code as the
Python API). ``create_summary_writer(logdir)`` (in a job that has run before) sets that
writer; its event files go straight into ``logdir`` (OneFlow used ``<logdir>/event/`` with
names TensorBoard does not discover). Tags are int8 blobs holding UTF-8 bytes, as in
OneFlow (``np.frombuffer(b"loss", np.int8)``); a plain ``str`` is accepted too.
"""

from __future__ import annotations

import os
import threading

import numpy as np

from .. import graph as _graph
from ..errors import OpError, describe_frame, user_frame
from ._event_exit import install_exit_hooks
from ._live_writers import acquire_writer, release_writer
from ._writer import SummaryWriter

__all__ = [
    "create_summary_writer",
    "flush_summary_writer",
    "scalar",
    "histogram",
    "image",
    "pb",
    "default_writer",
    "close_default_writer",
]

_lock = threading.Lock()
_default: SummaryWriter | None = None

_SCALAR_DTYPES = ("float32", "float64", "int32", "int64")
_HISTOGRAM_DTYPES = ("float32", "float64", "int8", "uint8", "int32", "int64")
_STEP_DTYPES = ("int32", "int64")
_BYTES_DTYPES = ("int8", "char", "uint8")


def default_writer(op: str = "summary op") -> SummaryWriter:
    """The writer set by ``create_summary_writer``; a clear error naming ``op`` if none is."""
    w = _default
    if w is None or w.closed:
        raise RuntimeError(
            f"flow.summary.{op}: no summary writer exists; run a job that calls "
            "flow.summary.create_summary_writer(logdir) before jobs that write summaries"
        )
    return w


def set_default_writer(logdir: str) -> SummaryWriter:
    """Opens (or keeps, for the same ``logdir``) the process-global writer; an open writer of
    ``logdir`` (e.g. the user's own ``SummaryWriter``) is shared, not doubled."""
    global _default
    with _lock:
        w = _default
        if w is not None and not w.closed and os.path.abspath(w.logdir) == os.path.abspath(logdir):
            return w
        _default = acquire_writer(logdir)
    if w is not None and not w.closed:
        release_writer(w)
    return _default


def close_default_writer() -> None:
    """Closes the process-global writer (if any); a later op needs a new create."""
    global _default
    with _lock:
        w, _default = _default, None
    if w is not None:
        release_writer(w)


# --- trace-time checks ----------------------------------------------------------------------
def _fail(op: str, msg: str) -> OpError:
    return OpError(f"flow.summary.{op}: {msg}\n  at {describe_frame(user_frame())}")


def _check(
    op: str,
    arg: str,
    blob,
    dtypes: tuple[str, ...],
    one_element: bool = False,
    rank: int | None = None,
):
    if not isinstance(blob, _graph.Blob):
        hint = (
            ""
            if _graph.in_job()
            else (
                " (summary ops belong in a @flow.global_function body; to log from plain Python "
                "use flow.summary.SummaryWriter)"
            )
        )
        raise _fail(
            op, f"{arg} must be a blob of the job, got {type(blob).__name__} {blob!r}{hint}"
        )
    if blob.dtype.name not in dtypes:
        raise _fail(
            op, f"{arg} must have dtype {' or '.join(dtypes)}, got {blob.dtype.name} ({blob!r})"
        )
    if one_element and not blob.is_dynamic and blob.numel() != 1:
        raise _fail(op, f"{arg} must have exactly 1 element, got shape {blob.shape}")
    if rank is not None and len(blob.shape) != rank:
        raise _fail(op, f"{arg} must have rank {rank}, got shape {blob.shape}")
    return blob


def _tag_input(op: str, tag, default: str | None = None):
    """(blob or None, fixed str or None) for a tag given as an int8 blob or a str."""
    if tag is None:
        tag = default
    if isinstance(tag, str):
        if not tag:
            raise _fail(op, "tag must not be empty")
        return None, tag
    if tag is None:
        raise _fail(op, "tag is required (an int8 blob of UTF-8 bytes, or a str)")
    return _check(op, "tag", tag, _BYTES_DTYPES), None


def _step_input(op: str, step):
    if step is None:
        raise _fail(op, "step is required (an int64 blob with 1 element)")
    return _check(op, "step", step, _STEP_DTYPES, one_element=True)


# --- host-side functions (called with NumPy arrays on the completion thread) ----------------
def decode_tag(arr: np.ndarray, op: str) -> str:
    raw = np.ascontiguousarray(arr).view(np.uint8).tobytes().rstrip(b"\0")
    if not raw:
        raise ValueError(f"flow.summary.{op}: tag is empty")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(f"flow.summary.{op}: tag bytes are not UTF-8: {raw[:40]!r}") from e


def one_element(arr: np.ndarray, op: str, arg: str):
    a = np.asarray(arr)
    if a.size != 1:
        raise ValueError(
            f"flow.summary.{op}: {arg} must have exactly 1 element at run time, got shape {a.shape}"
        )
    return a.reshape(()).item()


def _write_scalar(w, tag: str, value, step: int, op: str) -> None:
    w.scalar(tag, one_element(value, op, "value"), step)


def _write_histogram(w, tag: str, value, step: int, op: str) -> None:
    w.histogram(tag, value, step)


def _write_image(w, tag: str, value, step: int, op: str) -> None:
    w.image(tag, value, step)


def _host_fn(op: str, write, has_value: bool, fixed_tag: str | None, has_step: bool):
    """fn(*arrays) for inputs ordered (value, step, tag-blob?) that hands them to ``write``
    (one of the ``_write_*`` functions above) with the default writer."""

    def fn(*arrays):
        it = iter(arrays)
        value = next(it) if has_value else None
        step = one_element(next(it), op, "step") if has_step else 0
        tag = fixed_tag if fixed_tag is not None else decode_tag(next(it), op)
        write(default_writer(op), tag, value, step, op)

    return fn


# --- the job ops ----------------------------------------------------------------------------
def create_summary_writer(logdir: str | os.PathLike, name: str | None = None) -> None:
    """Job op: opens the process-global summary writer on ``logdir`` when the job runs.

    Running it again with the same ``logdir`` keeps the writer; another ``logdir`` closes the
    old writer and opens a new one (OneFlow silently kept writing to the first).
    """
    if not isinstance(logdir, (str, os.PathLike)) or not os.fspath(logdir):
        raise _fail("create_summary_writer", f"logdir must be a non-empty path, got {logdir!r}")
    path = os.fspath(logdir)
    if os.path.lexists(path) and not os.path.isdir(path):
        raise _fail(
            "create_summary_writer",
            f"logdir {path!r} exists and is not a directory; "
            "the logdir must be a directory (event files are created inside it)",
        )
    # The writer itself is opened on the completion thread, where SIGTERM handling cannot be
    # installed; tracing usually runs on the main thread, so install it now.
    install_exit_hooks()
    _graph.add_host_op(
        "create_summary_writer",
        [],
        lambda: set_default_writer(path),
        name=name,
        attrs={"logdir": path},
    )


def flush_summary_writer(name: str | None = None) -> None:
    """Job op: writes everything logged so far to the event file when the job runs."""
    _graph.add_host_op(
        "flush_summary_writer",
        [],
        lambda: default_writer("flush_summary_writer").flush(),
        name=name,
    )


def scalar(value, step, tag, name: str | None = None) -> None:
    """Job op: logs the 1-element ``value`` (float32/64, int32/64) at ``step`` under ``tag``."""
    op = "scalar"
    v = _check(op, "value", value, _SCALAR_DTYPES, one_element=True)
    s = _step_input(op, step)
    t, fixed = _tag_input(op, tag)
    inputs = [v, s] + ([t] if t is not None else [])
    _graph.add_host_op(
        "summary_write_scalar", inputs, _host_fn(op, _write_scalar, True, fixed, True), name=name
    )


def histogram(value, step, tag, name: str | None = None) -> None:
    """Job op: logs a histogram of all elements of ``value`` at ``step`` under ``tag``."""
    op = "histogram"
    v = _check(op, "value", value, _HISTOGRAM_DTYPES)
    s = _step_input(op, step)
    t, fixed = _tag_input(op, tag)
    inputs = [v, s] + ([t] if t is not None else [])
    _graph.add_host_op(
        "summary_write_histogram",
        inputs,
        _host_fn(op, _write_histogram, True, fixed, True),
        name=name,
    )


def image(value, step=None, tag=None, name: str | None = None) -> None:
    """Job op: logs uint8 images ``(N, H, W, C)``, C in {1, 3, 4}, as N samples of ``tag``.

    ``tag`` defaults to ``"image"`` (OneFlow's intended default); ``step`` is required.
    """
    op = "image"
    v = _check(op, "value", value, ("uint8",), rank=4)
    if v.shape[-1] not in (1, 3, 4):
        raise _fail(op, f"value must be (N, H, W, C) with C in {{1, 3, 4}}, got shape {v.shape}")
    s = _step_input(op, step)
    t, fixed = _tag_input(op, tag, default="image")
    inputs = [v, s] + ([t] if t is not None else [])
    _graph.add_host_op(
        "summary_write_image", inputs, _host_fn(op, _write_image, True, fixed, True), name=name
    )


def pb(value, step=None, name: str | None = None) -> None:
    """Job op: logs a ``Summary`` given as int8 bytes of its protobuf text format.

    Build the bytes with ``np.frombuffer(str(summary).encode(), np.int8)``, e.g. from
    ``flow.summary.text(...)`` or ``flow.summary.hparams(...)``. ``step`` is required.
    """
    op = "pb"
    v = _check(op, "value", value, _BYTES_DTYPES)
    s = _step_input(op, step)

    def fn(value_arr, step_arr):
        text = np.ascontiguousarray(value_arr).view(np.uint8).tobytes().rstrip(b"\0")
        default_writer(op).pb(text, one_element(step_arr, op, "step"))

    _graph.add_host_op("summary_write_pb", [v, s], fn, name=name)
