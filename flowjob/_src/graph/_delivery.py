"""What the host receives after each call: ``flow.watch``, ``flow.watch_diff`` and host ops
(summary ops) all record one ``HostDelivery``: which blobs, in which form, to whom.

The runtime turns each into one plan entry (runtime/_delivery.py) when the job is compiled.
"""

from __future__ import annotations

import enum
import inspect
import sys
import traceback
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from .. import typing as tp
from ..errors import (
    JobDefinitionError,
    describe_callable,
    describe_frame,
    safe_repr,
    user_frame,
)
from ._blob import Blob, OpKind, OpNode
from ._graph import check_blob, current_graph, default_prefix, host_only_error, is_host_only


class Form(enum.Enum):
    """How the host hands the fetched values to the target, chosen once when recorded."""

    NUMPY = enum.auto()  # target(ndarray)
    LIST_NUMPY = enum.auto()  # target([ndarray per device])
    LOCAL_BLOB = enum.auto()  # target(LocalBlob): .numpy(), .numpy_list()
    ARGUMENTS = enum.auto()  # target(*ndarrays): host ops, one array per input


@dataclass(eq=False, frozen=True)
class HostDelivery:
    """After a call, ``target`` gets the values of ``blobs`` (their gradients when ``diff``)
    in ``form``. ``what`` names it in errors; ``op`` is the host op's node (host ops only;
    they may have no input, e.g. ``create_summary_writer``)."""

    blobs: tuple[Blob, ...]
    form: Form
    target: Callable[..., None]
    what: str
    diff: bool = False
    op: OpNode | None = None
    frame: traceback.FrameSummary | None = None

    @property
    def blob(self) -> Blob:
        return self.blobs[0]


def _form(handler: Callable[..., Any], blob: Blob) -> Form:
    try:
        params = list(inspect.signature(handler).parameters.values())
    except (TypeError, ValueError):
        return Form.LOCAL_BLOB
    if len(params) != 1 or params[0].kind in (params[0].VAR_POSITIONAL, params[0].VAR_KEYWORD):
        raise JobDefinitionError(
            f"watch callback should accept only one parameter; {describe_callable(handler)} takes "
            f"{len(params)} ({describe_frame(user_frame())})"
        )
    ann = params[0].annotation
    if ann is inspect.Parameter.empty:
        return Form.LOCAL_BLOB
    if isinstance(ann, str):  # postponed annotations (from __future__ import annotations)
        ann = _resolve(ann, handler)
    if ann is tp.Numpy:
        if blob.is_dynamic:
            raise JobDefinitionError(
                "only fixed shaped blob compatible to oneflow.typing.Numpy. you can change "
                f"annotation to oneflow.typing.ListNumpy ({blob.lbn}, "
                f"{describe_frame(user_frame())})"
            )
        return Form.NUMPY
    if ann is tp.ListNumpy:
        return Form.LIST_NUMPY
    raise JobDefinitionError(
        f"invalid watch callback paremeter annotation {ann!r} of {describe_callable(handler)}: "
        "candidate "
        "annotations: oneflow.typing.Numpy, oneflow.typing.ListNumpy. "
        f"({describe_frame(user_frame())})"
    )


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


def _printer(prompt: str | None) -> Callable[[Any], None]:
    def show(value: Any) -> None:
        if prompt is not None:
            print(str(prompt))
        print(value)
        sys.stdout.flush()

    return show


def _register(blob: Blob, handler_or_prompt: Callable[..., Any] | str | None, diff: bool) -> None:
    blob = check_blob(blob, "watched value")
    if is_host_only(blob):
        raise host_only_error(blob, "watched")
    if handler_or_prompt is None or isinstance(handler_or_prompt, str):
        handler = _printer(handler_or_prompt)
        form = Form.LIST_NUMPY if blob.is_dynamic else Form.NUMPY
    elif callable(handler_or_prompt):
        handler, form = handler_or_prompt, _form(handler_or_prompt, blob)
    else:
        raise JobDefinitionError(
            "handler_or_prompt must be a callable, a str or None, got "
            f"{safe_repr(handler_or_prompt)}"
        )
    what = f"watch{'_diff' if diff else ''} handler {describe_callable(handler)} of {blob.lbn}"
    current_graph().deliveries.append(
        HostDelivery((blob,), form, handler, what, diff=diff, frame=user_frame())
    )


def watch(blob_watched: Blob, handler_or_prompt: Callable[..., Any] | str | None = None) -> None:
    """Calls ``handler`` with the value of ``blob_watched`` after every run of the job.

    The handler's parameter annotation picks the form: ``tp.Numpy`` (ndarray), ``tp.ListNumpy``
    (one ndarray per device) or none (a result object with ``numpy()``). ``None`` or a prompt
    string prints the value. Watched values are extra outputs of the compiled program;
    handlers run in call order, on the completion thread (or on the calling thread for a
    blocking call with nothing pending), and all have run when
    ``flow.sync_default_session()`` returns.

    Args:
        blob_watched: a blob of the job being traced.
        handler_or_prompt: a callable taking the value, or a prompt string to print it with.

    Raises:
        OutsideJobError: called outside a job body.
        CallbackError: (from the next synchronisation point) the handler raised.

    Examples:
        >>> import numpy as np, flowjob as flow, flowjob.typing as tp
        >>> seen = []
        >>> @flow.global_function()
        ... def job(x: tp.Numpy.Placeholder((3,))) -> None:
        ...     flow.watch(x * 2, lambda value: seen.append(value))
        >>> job(np.array([1, 2, 3], np.float32))
        >>> flow.sync_default_session()
        >>> seen
        [array([2., 4., 6.], dtype=float32)]
    """
    _register(blob_watched, handler_or_prompt, diff=False)


def watch_diff(
    blob_watched: Blob, handler_or_prompt: Callable[..., Any] | str | None = None
) -> None:
    """Calls ``handler`` with d(sum of all losses)/d(blob) after every run of a train job.

    The gradient is not divided by the batch (parameter updates are, OneFlow's rule). Where
    no gradient exists (predict job, integer blob, loss independent of the blob) flowjob warns
    once when the job is traced and never calls the handler (OneFlow stayed silent).

    Args:
        blob_watched: a blob of the train job being traced.
        handler_or_prompt: a callable taking the gradient, or a prompt string to print it with.

    Raises:
        OutsideJobError: called outside a job body.

    Examples:
        >>> import numpy as np, flowjob as flow, flowjob.typing as tp
        >>> grads = []
        >>> @flow.global_function(type="train")
        ... def fit(x: tp.Numpy.Placeholder((2, 2))) -> None:
        ...     w = flow.get_variable("w", (2,), initializer=flow.ones_initializer())
        ...     y = x * w
        ...     flow.watch_diff(y, grads.append)
        ...     loss = flow.math.reduce_sum(flow.math.square(y))
        ...     flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.0])
        ...                        ).minimize(loss)
        >>> fit(np.array([[1, 2], [3, 4]], np.float32))
        >>> flow.sync_default_session()
        >>> grads[0]  # d(sum(y**2))/dy = 2 * y
        array([[2., 4.],
               [6., 8.]], dtype=float32)
    """
    _register(blob_watched, handler_or_prompt, diff=True)


def add_host_op(
    op_type: str,
    inputs: Sequence[Blob],
    fn: Callable[..., None],
    *,
    name: str | None = None,
    attrs: dict[str, Any] | None = None,
) -> None:
    """Records an op that runs ``fn(*numpy_values)`` on the host after each call of the job.

    Host ops run where handlers run, in call order, after the call's watch handlers.
    """
    graph = current_graph()
    blobs = [check_blob(b, f"input {i} of {op_type}") for i, b in enumerate(inputs)]
    for b in blobs:
        if is_host_only(b):
            raise host_only_error(b, f"an input of {op_type}")
    op_name = name if name is not None else graph.unique_name(default_prefix(op_type))
    op = graph.add_op(
        name=op_name,
        op_type=op_type,
        kind=OpKind.HOST,
        lowering=None,
        inputs=blobs,
        attrs=attrs or {},
        outputs=[],
    )
    graph.deliveries.append(
        HostDelivery(tuple(blobs), Form.ARGUMENTS, fn, f"op {op.name!r} ({op_type})", op=op)
    )


def warn_unreachable_diff(delivery: HostDelivery, reason: str) -> None:
    """Emits the one trace-time warning for a watch_diff whose handler will never run."""
    blob = delivery.blob
    message = (
        f"watch_diff handler for {blob.lbn} in job {blob.graph.name!r} "
        f"will never be called: {reason} ({describe_frame(delivery.frame)})"
    )
    warnings.warn(message, RuntimeWarning, stacklevel=2)
