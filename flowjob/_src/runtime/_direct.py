"""The short way of a blocking ``-> tp.Numpy`` job call, set up once per compiled job.

A batch-1 predict call's program runs for tens of microseconds, and the Python around it
runs with cold caches: the program has just streamed the weights through them, so every
object the call touches costs a cache miss (bench/NOTES.md, issue 35: ~0.1-0.5 us each, more
than the work done on it). ``DirectCall`` keeps what such a call needs in one object's slots
and touches little else: the arguments' exact fit, four "nothing else going on" checks, the
program, one output.

Whatever it does not take (a first call, a wrong or converted argument, pending or held
completions, a call from a handler or a host kernel, several processes, a job redefined or
its session cleared: either drops the compiled job) goes the general way
(``Calls.run_direct``), which checks, converts, orders and reports as before.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..graph import running_kernel
from ..processes import stop_guard
from ._delivery import host_value
from ._interrupt import HOLD, raised_by_signal

NOT_TAKEN = object()  # DirectCall.run: the call must go the general way


class DirectCall:
    """``run(args)``: the returned array, or ``NOT_TAKEN`` having done nothing."""

    __slots__ = (
        "compiled",
        "name",
        "calls",
        "completion",
        "held",
        "lock",
        "fn",
        "shapes",
        "dtypes",
        "names",
        "values",
        "inputs",
        "index",
        "forwarded",
        "guarded",
        "__weakref__",  # jobs hold it weakly
    )

    def __init__(self, session: Any, name: str, entry: Any) -> None:
        lowered = entry.lowered
        self.compiled = session.compiled
        self.name = name  # the job's, which keys session.compiled
        calls = self.calls = session.calls
        self.completion = calls.completion
        self.held = calls.held.calls  # the deque itself: never rebound
        self.lock = calls.state.lock
        # None: the state (donated) goes through Calls.execute, under HOLD
        self.fn = None if entry.writes_state else lowered.fn
        self.shapes = tuple(shape for shape, _ in entry.layouts)
        self.dtypes = tuple(dtype for _, dtype in entry.layouts)
        self.names = lowered.state_names
        self.values = session.state.variables.values  # the store's dict, never rebound
        self.inputs = None if entry.device_inputs_all else tuple(lowered.device_inputs)
        self.index = entry.direct_output
        # known once the program was traced (the entry is warm)
        self.forwarded = entry.direct_output in lowered.step.forwarded
        # several processes (their guard is installed before the first job compiles, so
        # before this object exists): every call goes the general way, through the guard
        self.guarded = stop_guard() is not None

    def run(self, args: tuple[Any, ...]) -> Any:
        # a method, not __call__: a method call skips the bound method that calling the
        # object makes
        shapes, dtypes = self.shapes, self.dtypes
        if len(args) != len(shapes) or self.guarded:
            return NOT_TAKEN
        # Still the session's job of this name (a redefinition, or flow.clear_default_session,
        # drops the compiled job). Looked up, not held: the compiled job holds this object.
        entry = self.compiled.get(self.name)
        if entry is None or entry.direct_call is not self:
            return NOT_TAKEN
        for v, shape, dtype in zip(args, shapes, dtypes):  # runtime/_arguments.fit_exactly
            if type(v) is not np.ndarray or v.shape != shape or v.dtype != dtype:
                return NOT_TAKEN
        inputs = self.inputs
        device_args = args if inputs is None else tuple(args[i] for i in inputs)
        fn, completion = self.fn, self.completion
        with self.lock:
            # Nothing pending or held, so this thread is not the completion worker and no
            # earlier call waits to complete; a host kernel's call is refused by the
            # general way.
            if self.held or completion.tasks or running_kernel() is not None:
                return NOT_TAKEN
            if fn is None:  # see Calls.run: a handler raising between dispatch and store
                HOLD.install()  # would lose the state
                with HOLD:
                    outputs = self.calls.execute(entry, device_args)
            else:  # nothing donated or stored: an interrupt only loses this call's outputs
                counter = entry.counter % (2**32)  # as in Calls.execute
                entry.counter += 1
                values, names = self.values, self.names
                try:
                    state = {n: values[n] for n in names}
                except KeyError:  # the session was cleared meanwhile: the general way says so
                    return NOT_TAKEN
                outputs = fn(state, device_args, counter)
        try:
            value = host_value(outputs[self.index], self.forwarded)  # waits for the program
        except Exception as exc:  # the program failed: reported as Calls.run reports it
            if raised_by_signal(exc):  # the caller's own (a timeout), not the program's
                raise
            self.calls.deliverer.fetch_failed(entry, exc)
            value = None
        completion.raise_pending()  # and what earlier calls' callbacks raised
        return value
