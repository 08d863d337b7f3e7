"""What a job call hands back: local results, futures, and annotation-driven conversion."""

from __future__ import annotations

import inspect
import threading
import typing
from collections.abc import Callable
from typing import Any

from .. import typing as tp
from .._traceback import api_boundary
from ..errors import FlowJobError, JobDefinitionError, describe_callable, safe_repr
from ._local_blob import LocalBlob


# -- conversion by annotation --------------------------------------------------------------
def convert(annotation: Any, value: Any) -> Any:
    """Converts a structure of ``LocalBlob`` as the return annotation (spec 2.3) asks."""
    if annotation is tp.Numpy:
        return value.numpy()
    if annotation is tp.ListNumpy:
        return value.numpy_list()
    if annotation is tp.ListListNumpy:
        return value.numpy_lists()
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is tuple:
        items = args if not (len(args) == 2 and args[1] is Ellipsis) else (args[0],) * len(value)
        return tuple(convert(a, v) for a, v in zip(items, value))
    if origin is list:
        return [convert(args[0], v) for v in value]
    if origin is dict:
        return {k: convert(args[1], v) for k, v in value.items()}
    if origin is tp.Bundle:
        return _convert_bundle(args[0], value)
    return value


def _convert_bundle(leaf: Any, value: Any) -> Any:
    if isinstance(value, LocalBlob):
        return convert(leaf, value)
    if isinstance(value, dict):
        return {k: _convert_bundle(leaf, v) for k, v in value.items()}
    return type(value)(_convert_bundle(leaf, v) for v in value)


class ResultFuture:
    """Filled by the completion thread with a call's results (for a blocking call, its output
    values, from which the caller builds them), or None if the program failed.

    Many futures are filled before anyone waits, or never waited for (callbacks), so what a
    waiter sleeps on is only made when one has to: a plain lock, held until ``set`` releases
    it (a C-level wake, cheaper than ``threading.Event``'s condition variable).
    """

    _lock = threading.Lock()  # shared: every critical section is a few attribute accesses

    __slots__ = ("_done", "_value", "_callback", "_gate")

    def __init__(self) -> None:
        self._done = False
        self._value: Any = None
        self._callback: Callable[[Any], None] | None = None
        self._gate: threading.Lock | None = None

    def set(
        self, value: Any, run_callback: Callable[[Callable[[Any], None], Any], None]
    ) -> Callable[[], None] | None:
        """Fills the future and runs its callback. Returns the wake-up of a thread blocked in
        ``wait``, if any, which the caller must run (the completion thread runs it last)."""
        with self._lock:
            self._value = value
            self._done = True
            cb, gate = self._callback, self._gate
        if cb is not None:
            run_callback(cb, value)
        return None if gate is None else gate.release

    def register(
        self, callback: Callable[[Any], None], late: Callable[[Callable[[Any], None], Any], None]
    ) -> None:
        with self._lock:
            if not self._done:
                self._callback = callback
                return
        late(callback, self._value)

    def wait(self) -> Any:
        if not self._done:
            with self._lock:
                gate = None
                if not self._done:
                    gate = self._gate
                    if gate is None:
                        gate = threading.Lock()
                        gate.acquire()  # before set() can see it: it releases a held gate
                        self._gate = gate
            if gate is not None:
                gate.acquire()  # released by set()
                gate.release()  # let any other waiter through too
        return self._value

    @property
    def done(self) -> bool:
        return self._done


class LazyFutureRemoteBlobs:
    """What an unannotated job that returns blobs gives back: ``.get()`` or ``.async_get(cb)``,
    one of them, once per call."""

    def __init__(self, job_name: str, future: ResultFuture, session: Any):
        self._job_name = job_name
        self._future = future
        self._session = session
        self._used: str | None = None

    def _claim(self, how: str) -> None:
        if self._used is not None:
            raise FlowJobError(
                f"the result of this call of job {self._job_name!r} was already taken with "
                f".{self._used}(); .get() and .async_get() may be used once per call, "
                "and only one of them"
            )
        self._used = how

    @api_boundary
    def get(self) -> Any:
        """Blocks until this call (and every earlier one) has completed; returns its result."""
        self._claim("get")
        return self._session.wait_for(self._future)

    @api_boundary
    def async_get(self, callback: Callable[[Any], None]) -> None:
        """Registers ``callback(result)``, run on the completion thread in call order."""
        check_callback(self._job_name, callback, "async_get")
        self._claim("async_get")
        self._session.register_callback(self._future, callback)


def check_callback(job: str, callback: Any, how: str) -> None:
    """A result callback must take the result as its one positional argument: checked when
    it is registered, so a wrong one fails at the call that registers it, not later."""
    if not callable(callback):
        raise JobDefinitionError(f"job {job!r}: {how} takes a callable, got {safe_repr(callback)}")
    try:
        inspect.signature(callback).bind(None)
    except TypeError as exc:
        raise JobDefinitionError(
            f"job {job!r}: the {how} result callback {describe_callable(callback)} must take "
            f"the result as its one positional parameter ({exc})"
        ) from None
    except ValueError:  # no signature to check (some builtins): it runs as it is
        pass
