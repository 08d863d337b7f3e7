"""``flow.watch`` / ``flow.watch_diff``: record which blobs (or gradients) go to handlers."""

from __future__ import annotations

import inspect
import sys
import warnings
from collections.abc import Callable
from typing import Any

from .. import typing as tp
from ..errors import JobDefinitionError, describe_frame, user_frame
from ._graph import Blob, Watch, check_blob, current_graph, host_only_error


def _conversion(handler: Callable[..., Any], blob: Blob) -> str:
    try:
        params = list(inspect.signature(handler).parameters.values())
    except (TypeError, ValueError):
        return "local_blob"
    if len(params) != 1 or params[0].kind in (params[0].VAR_POSITIONAL, params[0].VAR_KEYWORD):
        raise JobDefinitionError(
            f"watch callback should accept only one parameter; {handler!r} takes "
            f"{len(params)} ({describe_frame(user_frame())})")
    ann = params[0].annotation
    if ann is inspect.Parameter.empty:
        return "local_blob"
    if isinstance(ann, str):  # postponed annotations (from __future__ import annotations)
        ann = _resolve(ann, handler)
    if ann is tp.Numpy:
        if blob.is_dynamic:
            raise JobDefinitionError(
                "only fixed shaped blob compatible to oneflow.typing.Numpy. you can change "
                f"annotation to oneflow.typing.ListNumpy ({blob.lbn}, "
                f"{describe_frame(user_frame())})")
        return "numpy"
    if ann is tp.ListNumpy:
        return "list_numpy"
    raise JobDefinitionError(
        f"invalid watch callback paremeter annotation {ann!r} of {handler!r}: candidate "
        "annotations: oneflow.typing.Numpy, oneflow.typing.ListNumpy. "
        f"({describe_frame(user_frame())})")


def _resolve(text: str, handler: Callable[..., Any]) -> Any:
    """Evaluates a postponed annotation where the handler could see it: its module, the
    scope the job was defined in, and the handler's own closure."""
    scope = dict(current_graph().definition_locals)
    try:
        scope.update(inspect.getclosurevars(handler).nonlocals)
    except (TypeError, ValueError):  # not a Python function; a closure cell not yet set
        pass
    try:
        return eval(text, getattr(handler, "__globals__", {}), scope)  # noqa: S307 - user's code
    except Exception:
        return text


def _printer(prompt: str | None, is_dynamic: bool) -> tuple[Callable[[Any], None], str]:
    def show(value: Any) -> None:
        if prompt is not None:
            print(str(prompt))
        print(value)
        sys.stdout.flush()

    return show, ("list_numpy" if is_dynamic else "numpy")


def _register(blob: Blob, handler_or_prompt: Callable[..., Any] | str | None, kind: str) -> Watch:
    blob = check_blob(blob, "watched value")
    if blob.dtype.np_dtype.kind == "O":
        raise host_only_error(blob, "watched")
    if handler_or_prompt is None or isinstance(handler_or_prompt, str):
        handler, convert = _printer(handler_or_prompt, blob.is_dynamic)
    elif callable(handler_or_prompt):
        handler, convert = handler_or_prompt, _conversion(handler_or_prompt, blob)
    else:
        raise JobDefinitionError(
            f"handler_or_prompt must be a callable, a str or None, got {handler_or_prompt!r}")
    watch = Watch(blob=blob, deliver=handler, convert=convert, kind=kind, frame=user_frame())
    current_graph().watches.append(watch)
    return watch


def watch(blob_watched: Blob, handler_or_prompt: Callable[..., Any] | str | None = None) -> None:
    """Calls ``handler`` with the value of ``blob_watched`` after every run of the job.

    The handler's parameter annotation picks the form: ``tp.Numpy`` (ndarray), ``tp.ListNumpy``
    (one ndarray per device) or none (a result object with ``numpy()``). ``None`` or a prompt
    string prints the value.
    """
    _register(blob_watched, handler_or_prompt, "value")


def watch_diff(blob_watched: Blob,
               handler_or_prompt: Callable[..., Any] | str | None = None) -> None:
    """Calls ``handler`` with d(sum of all losses)/d(blob) after every run of a train job.

    The gradient is not divided by the batch (parameter updates are, OneFlow's rule). Where
    no gradient exists (predict job, integer blob, loss independent of the blob) flowjob warns
    once when the job is traced and never calls the handler (OneFlow stayed silent).
    """
    _register(blob_watched, handler_or_prompt, "diff")


def warn_unreachable_diff(watch_: Watch, reason: str) -> None:
    """Emits the one trace-time warning for a watch_diff whose handler will never run."""
    message = (f"watch_diff handler for {watch_.blob.lbn} in job {watch_.blob.graph.name!r} "
               f"will never be called: {reason} ({describe_frame(watch_.frame)})")
    warnings.warn(message, RuntimeWarning, stacklevel=2)
