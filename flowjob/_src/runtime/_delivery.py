"""Host delivery: what the host does with the values of a finished call.

Every recipient of values -- a ``watch`` or ``watch_diff`` handler, a host op (summary ops),
the call's results and a result callback -- is served the same way. One plan entry per
recipient, built once when the job is compiled, says which values to take (``Fetch``: a job
argument or a program output), how to convert them (decided once, from the ``Form`` that
graph/_delivery.py recorded) and whom to call. Errors of user code go to the completion queue,
which raises them at the next synchronisation point.
"""

from __future__ import annotations

import ctypes
import enum
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import jax
import numpy as np

from ..errors import describe_callable
from ..graph import Form, JobGraph, kernel_error
from ..processes import is_primary
from ._interrupt import raised_by_signal
from ._local_blob import LocalBlob, local

_MAIN = threading.main_thread()


class Source(enum.Enum):
    INPUT = enum.auto()  # a job argument: the host has it already
    OUTPUT = enum.auto()  # a program output: the fetched values, then the watched gradients


@dataclass(frozen=True, slots=True)
class Fetch:
    """Where the host gets one value. ``real``: the blob is dynamic and padded on the device;
    its key in the call's ``RealShapes``, to cut the value back to its real shape;
    ``real_output``: the program output that holds that real shape when it depends on data."""

    source: Source
    index: int
    real: int | None = None
    real_output: int | None = None


def value_of(fetch: Fetch, host_args: list[Any], outputs: list[np.ndarray]) -> Any:
    """One value on the host, from the call's arguments or its program outputs."""
    if fetch.source is Source.INPUT:
        value = host_args[fetch.index]
        if isinstance(value, list):
            return value[0] if len(value) == 1 else np.concatenate(value)
        return value
    value = outputs[fetch.index]
    if fetch.real_output is not None:  # worked out by the program
        real = np.asarray(outputs[fetch.real_output]).tolist()
        value = value[tuple(slice(0, n) for n in real)]
    elif fetch.real is not None:  # padded on the device: cut back to the real shape
        real = host_args[-1].shapes[fetch.real]  # the call's RealShapes (last argument)
        value = value[tuple(slice(0, n) for n in real)]
    return value


class Delivery:
    """One plan entry: ``target(*convert([value of each fetch]))``; ``convert`` None: as is.
    ``optional``: skipped for calls whose outputs end before its fetches (``watch_model``'s,
    which only the program of its logging steps returns)."""

    __slots__ = ("fetches", "convert", "target", "what", "optional")

    def __init__(
        self,
        fetches: tuple[Fetch, ...],
        convert: Callable[[list], Any] | None,
        target: Callable[..., None],
        what: str,
        optional: bool = False,
    ):
        self.fetches = fetches
        self.convert = convert
        self.target = target
        self.what = what
        self.optional = optional


def _converter(form: Form, dynamic: bool, pieces: int) -> Callable[[list], Any] | None:
    if form is Form.NUMPY or form is Form.ARGUMENTS:
        return None
    if form is Form.LIST_NUMPY:
        return lambda values: (LocalBlob(values[0], dynamic, pieces).numpy_list(),)
    return lambda values: (LocalBlob(values[0], dynamic, pieces),)


def build_plan(graph: JobGraph, lowered: Any) -> tuple[Delivery, ...]:
    """The job's deliveries in the order they run: handlers, then host ops (each in the
    order recorded), then ``watch_model``'s writer. A ``watch_diff`` without a gradient
    (warned at lowering) is left out."""
    entries = []
    for d in sorted(graph.deliveries, key=lambda d: d.form is Form.ARGUMENTS):
        if d.diff:
            fetch = lowered.diff_fetches.get(id(d))
            if fetch is None:
                continue
            fetches = (fetch,)
        else:
            fetches = tuple(lowered.fetches[id(b)] for b in d.blobs)
        convert = _converter(d.form, bool(d.blobs) and d.blobs[0].is_dynamic, lowered.pieces)
        entries.append(Delivery(fetches, convert, d.target, d.what))
    if lowered.watch_fetches:
        entries.append(
            Delivery(
                lowered.watch_fetches,
                None,
                lowered.watch_writer,
                "flow.summary.watch_model",
                optional=True,
            )
        )
    return tuple(entries)


def deliver(
    plan: tuple[Delivery, ...],
    host_args: list[Any],
    outputs: list[np.ndarray],
    record_error: Callable[[BaseException, str], None],
) -> None:
    """Runs a call's handlers and host ops; their errors are recorded, never raised here."""
    for entry in plan:  # try/except inline: runs for every call
        if entry.optional and entry.fetches[0].index >= len(outputs):
            continue
        try:
            values = [value_of(f, host_args, outputs) for f in entry.fetches]
            entry.target(*(values if entry.convert is None else entry.convert(values)))
        except BaseException as exc:  # noqa: BLE001 - re-raised at the next sync point
            if threading.current_thread() is _MAIN and raised_by_signal(exc):
                raise  # Ctrl-C, a timeout... while handlers run inline: not a handler's error
            record_error(exc, entry.what)


class Results:
    """The plan entry of a call's results: the returned blobs as ``LocalBlob`` leaves in the
    structure the body returned; its target is the call's future (or the blocking caller)."""

    __slots__ = ("fetches", "dynamic", "tree", "pieces", "one_blob")

    def __init__(self, fetches: list[Fetch], dynamic: list[bool], tree: Any, pieces: int):
        self.fetches = fetches
        self.dynamic = dynamic
        self.tree = tree
        self.pieces = pieces
        self.one_blob = tree.num_nodes == 1 and tree.num_leaves == 1

    def __call__(self, host_args: list[Any], outputs: list[np.ndarray]) -> Any:
        pieces = self.pieces
        if self.one_blob:
            return local(value_of(self.fetches[0], host_args, outputs), self.dynamic[0], pieces)
        leaves = [
            local(value_of(f, host_args, outputs), dynamic, pieces)
            for f, dynamic in zip(self.fetches, self.dynamic)
        ]
        return jax.tree_util.tree_unflatten(self.tree, leaves)

    def array(self, host_args: list[Any], outputs: list[np.ndarray]) -> np.ndarray:
        """The one returned blob's ndarray (what ``-> tp.Numpy`` gives), without a LocalBlob."""
        return value_of(self.fetches[0], host_args, outputs)


class Deliverer:
    """Completes calls: fetches the program's outputs to the host, runs the job's plan
    (handlers and host ops: on the first process only), then hands the results to the
    call's future, whose callback it runs (in every process). Runs as a completion task,
    or inline (``Calls.run``)."""

    def __init__(self, completion: Any) -> None:
        self.completion = completion
        self._primary: bool | None = None

    @property
    def primary(self) -> bool:
        """Whether this is the first process; asked at the first delivery, when the job's run
        has started JAX (a session is made before ``flow.env.machine`` may be called)."""
        if self._primary is None:
            self._primary = is_primary()
        return self._primary

    def _callback_runner(self, callback: Any, value: Any) -> None:
        # Every process runs its own calls' result callbacks (rank-local): a loop that waits
        # for them works in each process. Handlers and host ops run in the first one only.
        self.run_callback(callback, value)

    def fetch(self, entry: Any, arrays: tuple[Any, ...]) -> list[np.ndarray] | None:
        """Host values of the program's outputs, writable as OneFlow's results were; None
        (error recorded) if the program failed."""
        try:
            shared = entry.lowered.step.forwarded
            return [host_value(a, i in shared) for i, a in enumerate(arrays)]
        except Exception as exc:  # the program itself failed at run time
            if raised_by_signal(exc):  # a handler's (the caller's timeout), not the program's
                raise
            self.fetch_failed(entry, exc)
            return None

    def fetch_failed(self, entry: Any, exc: Exception) -> None:
        named = kernel_error(exc)  # a host kernel's error names its op: raised as itself
        where = f"job {entry.traced.graph.name!r}"
        self.completion.record_error(named or exc, where, as_is=named is not None)

    def run_plan(self, entry: Any, host_args: list[Any], outputs: list[np.ndarray]) -> None:
        if self.primary:
            deliver(entry.plan, host_args, outputs, self.completion.record_error)

    def complete(
        self,
        entry: Any,
        host_args: list[Any],
        outputs: tuple[Any, ...],
        future: Any,
        slots: Any,
        recycle: bool,
        raw: bool,
    ) -> Callable[[], None] | None:
        """A queued call's completion task; returns the wake-up of its waiter (see
        CompletionQueue). ``raw``: the future gets the output values, not the results."""
        try:
            values = self.fetch(entry, outputs)
            if values is None:
                return future.set(None, self._callback_runner)
            if not entry.quiet:
                self.run_plan(entry, host_args, values)
            if not raw and entry.results is not None:
                values = entry.results(host_args, values)
            elif not raw:
                values = None
            return future.set(values, self._callback_runner)
        except Exception as exc:  # a flowjob bug: report it, and never leave a waiter blocked
            self.completion.record_error(
                exc, f"delivering a call of job {entry.traced.graph.name!r}"
            )
            return None if future.done else future.set(None, self._callback_runner)
        finally:
            if slots is not None:
                slots.release()
            # Fetching an output waited for the whole program, so it no longer reads them.
            if recycle and outputs:
                entry.staging.recycle(host_args)

    def run_callback(self, callback: Callable[[Any], None], value: Any) -> None:
        try:
            callback(value)
        except BaseException as exc:  # noqa: BLE001 - re-raised at the next sync point
            self.completion.record_error(exc, f"result callback {callback_name(callback)}")

    def register_callback(self, future: Any, callback: Callable[[Any], None]) -> None:
        future.register(
            callback, lambda cb, v: self.completion.submit(lambda: self._callback_runner(cb, v))
        )


# Up to this size copying is cheaper than the ctypes view (measured: 1-3 us against 5-7 us).
_COPY_MAX = 32 * 1024


def host_value(array: Any, forwarded: bool) -> np.ndarray:
    """One program output on the host, writable: a copy when the program forwards it from
    its inputs (the buffer is not the call's own), else :func:`writable`."""
    if forwarded:
        return np.array(array)
    view = np.asarray(array)
    # writable()'s common case, without its call
    return view.copy() if view.nbytes <= _COPY_MAX and not view.flags.writeable else writable(view)


def writable(array: np.ndarray) -> np.ndarray:
    """``array`` (a program output's host view, which JAX marks read-only), writable and,
    unless small (copying is cheaper then), without a copy. The output buffer belongs to
    this call alone (outputs that are the program's own inputs are copied instead:
    ``_program.forwarded``), so writing into it is safe; a ctypes view of its memory, which
    keeps the read-only view (and with it the buffer) alive, gives the writable array."""
    if array.flags.writeable:
        return array
    if array.nbytes <= _COPY_MAX or not array.flags.c_contiguous:
        return array.copy()
    memory = (ctypes.c_char * array.nbytes).from_address(array.ctypes.data)
    memory.owner = array  # the buffer lives as long as the writable array
    return np.frombuffer(memory, dtype=array.dtype).reshape(array.shape)


def callback_name(fn: Any) -> str:
    """The user's callable behind a wrapper (``__wrapped__``), for error messages."""
    return describe_callable(getattr(fn, "__wrapped__", fn))
