"""The default session: its jobs and their compiled programs, put together from small parts:
``State`` (variables, runtime/_state.py), ``Calls`` (dispatch, runtime/_calls.py), the
``CompletionQueue`` (runtime/_completion.py) and the ``Deliverer`` (runtime/_delivery.py)."""

from __future__ import annotations

import atexit
import ctypes
import sys
import threading
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import kernels
from .._devices import backends_started
from .._exit_status import mark_exit_failure
from .._traceback import api_boundary
from ..errors import JobDefinitionError, describe_callable
from ..graph import JobGraph, set_trace_all
from . import _config
from ._calls import Calls, cleared_error
from ._compiled import CompiledJob
from ._completion import CompletionQueue
from ._delivery import Deliverer
from ._eager import eager_execution_enabled
from ._eager_call import run_body
from ._interrupt import WATCH
from ._lowering import lower
from ._results import ResultFuture
from ._state import State
from ._trace import trace, traced_bytes

# At exit, a wait for pending deliveries longer than this says what it waits for.
_EXIT_NOTICE_S = 1.0


class Session:
    """Owns the variables and compiled jobs of one run; see ``flow.clear_default_session``."""

    def __init__(self) -> None:
        _config.start_jax()
        self.state = State(seed=_config.process.seed)
        self.variables = self.state.variables
        self.jobs: dict[str, Any] = {}  # name -> JobFunction, in definition order
        self.compiled: dict[str, CompiledJob] = {}
        self.completion = CompletionQueue()
        # Only the first process runs handlers, host ops and callbacks (after gathering).
        self.deliverer = Deliverer(self.completion)
        self.calls = Calls(self.state, self.completion, self.deliverer)
        self._trace_lock = threading.RLock()
        self._trace_failures: dict[str, Any] = {}  # name -> job skipped by trace_all (warned)
        self.closed = False

    @property
    def primary(self) -> bool:
        """Whether this process delivers results and writes checkpoints (the first one);
        asking fixes the machines, as a job's first run does."""
        _config.start_backend()
        return self.deliverer.primary

    # -- jobs ------------------------------------------------------------------------------
    def register(self, job: Any) -> None:
        old = self.jobs.get(job.__name__)
        if old is not None and old is not job:
            _close_feeder(self.compiled.pop(job.__name__, None))
        self.jobs[job.__name__] = job

    def compiled_job(self, job: Any) -> CompiledJob:
        entry = self.compiled.get(job.__name__)
        if entry is not None and self.jobs.get(job.__name__) is job:
            return entry
        with self._trace_lock:
            if self.jobs.get(job.__name__) is not job:
                raise self._stale(job)
            entry = self.compiled.get(job.__name__)
            if entry is None:
                traced = self._sized_first(job) if _config.sizing_first_job() else None
                if traced is None:
                    _config.start_backend()
                # the machines and device count are final from here
                with WATCH:  # JAX is not interrupted while it traces: see WATCH
                    try:
                        if traced is None:
                            traced = self._trace(job)
                        lowered = lower(traced.graph, traced.returns, self.variables)
                    except KeyError as missing:
                        if not self.state.released:
                            raise
                        # another thread's flow.clear_default_session() took its variables
                        raise cleared_error(job.__name__, self.state, missing) from None
                    entry = CompiledJob.build(traced, lowered, job.config.concurrency)
                self.compiled[job.__name__] = entry
            return entry

    def _trace(self, job: Any) -> Any:
        return trace(
            job.__name__,
            job.fn,
            job.job_type,
            job.config,
            self.variables,
            job.definition_locals,
            padded_mirrored=job.padded_mirrored,
        )

    def _sized_first(self, job: Any) -> Any:
        """The first job's trace, made before JAX's backend starts so that its size can
        choose how host memory is kept (runtime/_host_memory.py), which must happen before
        any thread of the backend's first allocates: so its variables' draws wait until the
        backend started (drawing starts it), and its lowerings choose kernels for the CPU,
        where it runs (``_config.sizing_first_job``)."""
        with self.variables.values.held():
            with WATCH, kernels.lowering_for("cpu"):
                traced = self._trace(job)
            # something in the body started the backend after all: too late to choose
            _config.start_backend(None if backends_started() else traced_bytes(traced.graph))
        return traced

    def discard_compiled(self, name: str) -> None:
        """Forgets a job's compiled program (it is traced again at its next call)."""
        _close_feeder(self.compiled.pop(name, None))

    def _stale(self, job: Any) -> JobDefinitionError:
        """The error for calling a job that is not this session's job of its name."""
        name = job.__name__
        if getattr(job, "session", self) is not self:
            return JobDefinitionError(
                f"job {name!r} was defined before flow.clear_default_session() and belongs to "
                "the cleared session; run its @flow.global_function definition again to use "
                "it in the new session"
            )
        newer = self.jobs.get(name)
        where = f" ({describe_callable(newer.fn)})" if newer is not None else ""
        return JobDefinitionError(
            f"job {name!r} was redefined by a later @flow.global_function of the same name"
            f"{where}; as in OneFlow a session has one job per name and the later definition "
            "replaced this one, so it cannot run (it would share the other's TrainStep and "
            "compiled program). Call the new job, or give the functions different names"
        )

    def trace_all(self) -> list[JobGraph]:
        """Traces every defined job (so all variables exist) and returns their graphs.

        A job whose body fails to trace is skipped, with one warning naming it and its error
        (calling it still raises that error), so it never blocks other jobs' state.
        """
        graphs = []
        for job in list(self.jobs.values()):
            if job.eager:  # its variables exist once called; its body may read values
                continue
            if self._trace_failures.get(job.__name__) is job and job.__name__ not in self.compiled:
                continue  # warned already; retrying would trace (and fail) at every save
            try:
                graphs.append(self.compiled_job(job).traced.graph)
            except Exception as exc:  # noqa: BLE001 - reported, as a warning, right here
                self._trace_failures[job.__name__] = job
                warnings.warn(
                    f"job {job.__name__!r} failed to trace and is skipped (its variables are "
                    f"left out of checkpoints and get_all_variables): {type(exc).__name__}: "
                    f"{exc}",
                    UserWarning,
                    stacklevel=3,
                )
        return graphs

    # -- calls ---------------------------------------------------------------------------
    def eager_entry(self, job: Any, args: tuple[Any, ...]) -> CompiledJob:
        """Runs an eager job's body on ``args`` (runtime/_eager_call.py) and returns the call's
        own ``CompiledJob``, which ``run`` or ``launch`` then completes like a lazy one's."""
        if self.jobs.get(job.__name__) is not job:
            raise self._stale(job)
        return run_body(job, args, self.variables)

    def launch(
        self,
        job: Any,
        args: tuple[Any, ...],
        hold: bool = False,
        entry: CompiledJob | None = None,
    ) -> ResultFuture:
        """A call whose results (if any) come back through a future; see ``Calls.launch``.
        ``entry``: the caller's ``compiled_job(job)`` (or an eager call's), if it has it."""
        return self.calls.launch(job, entry or self.compiled_job(job), args, hold)

    def run(
        self, job: Any, args: tuple[Any, ...], entry: CompiledJob | None = None, array: bool = False
    ) -> Any:
        """A blocking call: its results once it (and every earlier call) completed.
        ``entry``: the caller's ``compiled_job(job)``, if it has it. ``array``: the job returns
        one blob and the caller wants its ``numpy()`` (what ``-> tp.Numpy`` gives)."""
        entry = entry or self.compiled_job(job)
        host_args, values = self.calls.run(job, entry, args)
        results = entry.results
        if values is None or results is None:  # failed (error raised unless taken), or none
            return None
        return results.array(host_args, values) if array else results(host_args, values)

    def register_callback(self, future: ResultFuture, callback: Callable[[Any], None]) -> None:
        self.deliverer.register_callback(future, callback)
        self.calls.callback_registered(future)

    def wait_for(self, future: ResultFuture) -> Any:
        return self.calls.wait_for(future)

    def sync(self) -> None:
        """Waits for every launched call and its handlers; re-raises their exceptions."""
        self.wait()
        self.completion.raise_pending()

    def wait(self) -> None:
        """Waits like ``sync`` but leaves handler errors for the next synchronisation point
        (checkpoints: an error elsewhere never takes a save's or a load's place)."""
        self.calls.wait()

    # -- variables (used by checkpoints) -----------------------------------------------------
    def variable_specs(self) -> dict[str, tuple[tuple[int, ...], Any]]:
        return self.state.specs()

    def variable_arrays(self) -> dict[str, Any]:
        self.trace_all()
        self.wait()
        return self.state.arrays()

    def assign_variables(self, arrays: dict[str, Any]) -> None:
        self.wait()
        self.state.assign(arrays)

    def defers_variables(self) -> bool:
        """Whether variables may still appear: an eager job defines its variables when it
        first runs, so values loaded for names not yet defined are kept for them."""
        return eager_execution_enabled() or any(job.eager for job in self.jobs.values())

    def defer_variables(self, arrays: dict[str, np.ndarray]) -> None:
        """Keeps loaded values for variables not defined yet (see ``defers_variables``)."""
        self.variables.pending.update(arrays)

    def close(self, at_exit: bool = False) -> int:
        """Waits for everything launched; prints errors not yet raised; returns their count
        (plus one when a second Ctrl-C abandoned pending deliveries)."""
        if self.closed:
            return 0
        self.closed = True
        abandoned = 0
        try:
            self.calls.release_held()
            self.completion.drain(_EXIT_NOTICE_S if at_exit else None)
        except KeyboardInterrupt:
            if not at_exit:
                raise
            abandoned = self.completion.pending()
            print(f"flowjob: abandoned {abandoned} pending deliveries", flush=True, file=sys.stderr)
        finally:
            for entry in list(self.compiled.values()):
                _close_feeder(entry)
            reported = self.completion.report_pending_at_exit()
        return reported + (1 if abandoned else 0)

    def release(self) -> None:
        """Drops the compiled programs, jobs and variables of a closed session (cleared by
        ``flow.clear_default_session``), whatever still refers to the session."""
        self.state.released = True  # a call racing the clear says so (Calls.execute)
        self.compiled.clear()
        self.jobs.clear()
        self._trace_failures.clear()
        self.variables.values.clear()
        self.variables.defs.clear()
        self.variables.pending.clear()
        self.completion.stop()


def _return_freed_memory() -> None:
    """Hands the memory a cleared session freed back to the system (glibc keeps freed
    blocks for reuse, so the process's resident size would not show the release)."""
    try:
        libc = ctypes.CDLL(None)
        trim = libc.malloc_trim
    except (OSError, AttributeError):  # not glibc: nothing to ask
        return
    trim(0)


def _close_feeder(entry: CompiledJob | None) -> None:
    if entry is not None and entry.feeder is not None:
        entry.feeder.close()


_default: Session | None = None
_default_lock = threading.Lock()


def default_session() -> Session:
    global _default
    if _default is None:
        with _default_lock:
            if _default is None:
                _default = Session()
    return _default


def clear_default_session() -> None:
    """Waits for the current session, then drops its jobs and variables; the device count
    goes back to one (it is the session's setting in OneFlow)."""
    global _default
    with _default_lock:
        old, _default = _default, None
    if old is not None:
        try:
            old.close()
        finally:
            old.release()
    _config.reset_device_num()
    _return_freed_memory()


def lazy_job_names() -> list[str]:
    """The lazy jobs of the default session (none if it has not started): they fix the
    execution mode (runtime/_eager.py)."""
    session = _default
    if session is None:
        return []
    return [name for name, job in session.jobs.items() if not job.eager]


@api_boundary
def sync_default_session() -> None:
    """Blocks until every call launched so far, with its handlers and callbacks, has run."""
    if _default is not None:  # nothing launched yet: do not start a session just to wait
        _default.sync()


def _trace_all_graphs() -> list[JobGraph]:
    return default_session().trace_all()


set_trace_all(_trace_all_graphs)


@atexit.register  # registered after _exit_status's hook (imported above), so it runs first
def _close_at_exit() -> None:
    if _default is not None and _default.close(at_exit=True):
        mark_exit_failure()
