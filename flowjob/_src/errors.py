"""Exceptions raised by flowjob, and locating the user's source line."""

from __future__ import annotations

import functools
import os
import sys
import traceback

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


class FlowJobError(Exception):
    """Base class of flowjob's own errors."""


class JobArgumentError(FlowJobError, ValueError):
    """A job was called with arguments that do not match its placeholders."""


class OpError(FlowJobError, ValueError):
    """An op could not be applied to its inputs (raised at trace time)."""


class JobDefinitionError(FlowJobError, TypeError):
    """A job function, its annotations or its body are not valid."""


class OutsideJobError(JobDefinitionError, NotImplementedError):
    """A job-body API (an op, a loss, a variable) was called outside a job body. Also a
    ``NotImplementedError``, as OneFlow v0.4 raised for an API called where it has no
    implementation (its ``enable_if`` dispatch: lazy APIs outside a global function)."""


class NativeBuildError(FlowJobError, RuntimeError):
    """An API of OneFlow's C++/CUDA build (headers, shared libraries, custom-op libraries,
    TensorRT) that a JAX package cannot provide; the message names the API."""


class ConfigError(FlowJobError, RuntimeError):
    """A process-wide setting (``flow.config``, ``flow.env``, placements) cannot take effect:
    set after JAX started, or asking for devices or processes that do not exist."""


class CallbackError(FlowJobError, RuntimeError):
    """A watch handler, host op or result callback raised (the original is chained as
    ``__cause__``), or one of them asked to wait for the completion thread it runs on."""


class RankFailedError(FlowJobError, RuntimeError):
    """A process of a multi-process job failed, stopped responding or could not join; the
    message names its rank, its host and its error."""


class JobStopped(FlowJobError, RuntimeError):
    """A multi-process job stopped on SIGTERM, after the same job call on every rank."""


def describe_callable(fn: object) -> str:
    """``name (file.py:12)`` for a function, its ``repr`` for other callables."""
    try:
        name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None)
        code = getattr(fn, "__code__", None)
    except Exception:  # noqa: BLE001 - a user's __getattr__ must not replace the real error
        name = code = None
    if not isinstance(name, str):
        return safe_repr(fn)
    return f"{name} ({code.co_filename}:{code.co_firstlineno})" if code is not None else name


def safe_repr(value: object) -> str:
    """``repr(value)``, or a stand-in naming its type when its ``__repr__`` raises (an error
    message must never be replaced by the error of printing it)."""
    try:
        return repr(value)
    except Exception as exc:  # noqa: BLE001
        return f"<{type(value).__qualname__} object; its __repr__ raised {type(exc).__name__}>"


def user_frame() -> traceback.FrameSummary | None:
    """The innermost stack frame that is outside the flowjob package (the user's line)."""
    frame = sys._getframe(1)
    while frame is not None:
        filename, internal = _source_file(frame.f_code.co_filename)
        if not internal:
            # its source line is read when a message shows it (every op records its frame)
            return traceback.FrameSummary(
                filename, frame.f_lineno, frame.f_code.co_name, lookup_line=False
            )
        frame = frame.f_back
    return None


@functools.lru_cache(maxsize=4096)
def _source_file(name: str) -> tuple[str, bool]:
    """A code object's file as an absolute path, and whether it is flowjob's, JAX's or the
    import system's (not the user's)."""
    filename = os.path.abspath(name)
    internal = (
        filename.startswith(_PACKAGE_DIR + os.sep)
        or "importlib" in filename
        or f"{os.sep}jax{os.sep}" in filename
        or f"{os.sep}jaxlib{os.sep}" in filename
    )
    return filename, internal


def describe_frame(frame: traceback.FrameSummary | None) -> str:
    """``File "x.py", line 3, in job: <source>`` for error messages."""
    if frame is None:
        return "<unknown location>"
    line = (frame.line or "").strip()
    return f'File "{frame.filename}", line {frame.lineno}, in {frame.name}' + (
        f": {line}" if line else ""
    )
