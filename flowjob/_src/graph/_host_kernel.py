"""Ops whose kernels run on the host inside a compiled step (NumPy Python kernels, through
``jax.pure_callback``): what the runtime must know of them.

* A step with such an op can fail on the host after it started, so the runtime does not
  donate its state and stores the new state only once the step succeeded
  (``has_host_kernels``).
* An error inside a kernel reaches the caller through XLA as an opaque runtime error; the
  kernel's wrapper keeps the real error, naming the op, its job and the user's line, and
  puts a token in the message XLA passes on, by which ``kernel_error`` finds it again.
* A kernel runs while its job's call holds the session's dispatch lock: a job called from
  inside it could never run, so ``running_kernel`` lets the call refuse at once.
"""

from __future__ import annotations

import itertools
import logging
import re
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from ..errors import OpError, describe_frame, user_frame
from ._apply import apply_op
from ._graph import current_graph

# Errors waiting to be reported, by token; bounded (a failed call nobody reads keeps one).
_KEEP = 64
_errors: OrderedDict[int, BaseException] = OrderedDict()
_errors_lock = threading.Lock()
_tokens = itertools.count(1)
_TOKEN = re.compile(r"flowjob host kernel error #(\d+)")


class _Running(threading.local):
    site: KernelSite | None = None  # a class default: read on every job call, never missing


_local = _Running()


class PythonKernelError(OpError):
    """A Python kernel raised, or returned something its op's shape inference did not
    promise (count, shape, a value outside its dtype)."""


class KernelSite:
    """Where a host kernel's op is (``apply_host_op``), for its errors."""

    __slots__ = ("op_name", "op_type", "job", "frame")

    def __init__(self, op_type: str) -> None:
        self.op_type = op_type
        self.op_name: str | None = None
        self.job: str | None = None
        self.frame: Any = None

    def describe(self) -> str:
        name = "an op" if self.op_name is None else f"op {self.op_name!r}"
        return (
            f"{name} ({self.op_type}) in job {self.job!r}, defined at {describe_frame(self.frame)}"
        )


class _QuietKernelErrors(logging.Filter):
    """Drops JAX's log record of a callback that failed with a host kernel's token error:
    the caller gets the kernel's own error instead, named (``raise_kernel_error``)."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        return exc is None or _TOKEN.search(str(exc)) is None


_quiet = _QuietKernelErrors()


def apply_host_op(
    op_type: str,
    make_lowering: Callable[[KernelSite], Callable[..., Any]],
    inputs: list[Any],
    attrs: dict[str, Any],
    name: str | None,
) -> Any:
    """Records an op whose lowering calls host kernels: ``make_lowering(site)`` gives the
    lowering, whose kernels name the op through ``site``. Returns ``apply_op``'s blob(s)."""
    site = KernelSite(op_type)
    # known before the op is recorded: in eager mode its kernels run as it is
    site.op_name, site.job, site.frame = name, current_graph().name, user_frame()
    lowering = make_lowering(site)
    lowering.host_kernel = True  # see has_host_kernels
    out = apply_op(op_type, lowering, inputs, attrs=attrs, name=name)
    site.op_name = (out[0] if isinstance(out, tuple) else out).op.name  # a generated name
    return out


def has_host_kernels(graph: Any) -> bool:
    """Whether a job's program calls a host kernel (which may fail while the step runs)."""
    return any(runs_host_kernel(op) for op in graph.ops)


def runs_host_kernel(op: Any) -> bool:
    """Whether the op's lowering calls a host kernel (user code, with its effects)."""
    return getattr(op.lowering, "host_kernel", False)


def running_kernel() -> KernelSite | None:
    """The op whose host kernel runs on this thread, if any."""
    return _local.site


def call_kernel(site: KernelSite | None, where: str, fn: Callable[..., Any], *arrays: Any) -> Any:
    """Runs a host kernel (``fn`` checks its results; ``where``: which kernel of the op). An
    error is kept (a user kernel's wrapped in a ``PythonKernelError`` naming its op), and XLA
    gets an exception carrying its token; ``KeyboardInterrupt`` is kept as it is. ``site``
    None: flowjob's own host code in a program (a real-shape rule), whose errors say where."""
    _local.site = site
    try:
        return fn(*arrays)
    except BaseException as exc:  # noqa: BLE001 - handed to the caller through kernel_error
        if site is None or isinstance(exc, PythonKernelError | KeyboardInterrupt):
            error = exc
        else:
            error = PythonKernelError(
                f"{where} of {site.describe()} raised {type(exc).__name__}: {exc}"
            )
            error.__cause__ = exc
        logger = logging.getLogger("jax._src.callback")
        if _quiet not in logger.filters:  # JAX logs the token error as it passes by
            logger.addFilter(_quiet)
        token = next(_tokens)
        with _errors_lock:
            _errors[token] = error
            while len(_errors) > _KEEP:
                _errors.popitem(last=False)
        raise RuntimeError(f"flowjob host kernel error #{token}") from None
    finally:
        _local.site = None


def kernel_error(exc: BaseException) -> BaseException | None:
    """The error a host kernel raised, if ``exc`` (an error of a program's run) comes from
    one; each kept error is given out once."""
    match = _TOKEN.search(str(exc))
    if match is None:
        return None
    with _errors_lock:
        return _errors.pop(int(match.group(1)), None)


def raise_kernel_error(exc: BaseException) -> None:
    """Raises the host kernel's own error behind ``exc``, if there is one."""
    error = kernel_error(exc)
    if error is not None:
        raise error.with_traceback(None) from (error.__cause__ or None)
