"""The default session: jobs, variables, dispatch and the completion of calls."""

from __future__ import annotations

import atexit
import functools
import threading
import warnings
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from .._exit_status import mark_exit_failure
from ..errors import JobDefinitionError, describe_callable
from ..graph import JobGraph, VariableStore, set_trace_all
from . import _config, _distributed, _sharding
from ._arguments import prepare_arguments
from ._compiled import CompiledJob, diff_of, results, value_of
from ._completion import CompletionQueue
from ._lowering import LoweredJob, lower
from ._results import LocalBlob, ResultFuture
from ._trace import trace


class Session:
    """Owns the variables and compiled jobs of one run; see ``flow.clear_default_session``."""

    def __init__(self) -> None:
        _distributed.init()
        # Only the first process runs handlers, host ops and callbacks (after gathering).
        self.primary = jax.process_index() == 0
        self.variables = VariableStore(seed=_config.process.seed)
        self.jobs: dict[str, Any] = {}  # name -> JobFunction, in definition order
        self.compiled: dict[str, CompiledJob] = {}
        self.completion = CompletionQueue()
        self._trace_lock = threading.RLock()
        self._dispatch_lock = threading.Lock()
        self._held_lock = threading.Lock()
        self._held: Callable[[], None] | None = None
        self._trace_failures: dict[str, Any] = {}  # name -> job skipped by trace_all (warned)
        self.closed = False

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
                traced = trace(job.__name__, job.fn, job.job_type, job.config, self.variables,
                               job.definition_locals)
                lowered = lower(traced.graph, traced.returns, self.variables)
                entry = CompiledJob.build(traced, lowered, job.config.concurrency)
                self.compiled[job.__name__] = entry
            return entry

    def _stale(self, job: Any) -> JobDefinitionError:
        """The error for calling a job that is not this session's job of its name."""
        name = job.__name__
        if getattr(job, "session", self) is not self:
            return JobDefinitionError(
                f"job {name!r} was defined before flow.clear_default_session() and belongs to "
                "the cleared session; run its @flow.global_function definition again to use "
                "it in the new session")
        newer = self.jobs.get(name)
        where = f" ({describe_callable(newer.fn)})" if newer is not None else ""
        return JobDefinitionError(
            f"job {name!r} was redefined by a later @flow.global_function of the same name"
            f"{where}; as in OneFlow a session has one job per name and the later definition "
            "replaced this one, so it cannot run (it would share the other's TrainStep and "
            "compiled program). Call the new job, or give the functions different names")

    def trace_all(self) -> list[JobGraph]:
        """Traces every defined job (so all variables exist) and returns their graphs.

        A job whose body fails to trace is skipped, with one warning naming it and its error
        (calling it still raises that error), so it never blocks other jobs' state.
        """
        graphs = []
        for job in list(self.jobs.values()):
            if self._trace_failures.get(job.__name__) is job and job.__name__ not in \
                    self.compiled:
                continue  # warned already; retrying would trace (and fail) at every save
            try:
                graphs.append(self.compiled_job(job).traced.graph)
            except Exception as exc:  # noqa: BLE001 - reported, as a warning, right here
                self._trace_failures[job.__name__] = job
                warnings.warn(
                    f"job {job.__name__!r} failed to trace and is skipped (its variables are "
                    f"left out of checkpoints and get_all_variables): {type(exc).__name__}: "
                    f"{exc}", UserWarning, stacklevel=3)
        return graphs

    # -- calls -----------------------------------------------------------------------------
    def launch(self, job: Any, args: tuple[Any, ...], hold: bool = False) -> ResultFuture:
        """Checks and copies the arguments, dispatches the program and queues its completion.

        ``hold``: the caller is about to register a callback (``tp.Callback``, ``async_get``);
        the completion is queued when it does, or when anything else is launched or waited
        for, so a fast completion thread cannot deliver this call before its callback exists.
        At most ``concurrency_width`` calls of a job are in flight; more wait for a slot.
        """
        entry = self.compiled_job(job)
        host_args, device_args = self._arguments(job, entry, args, private=True)
        in_worker = self.completion.in_worker()
        if not in_worker and not entry.slots.acquire(blocking=False):
            # The held call (older) may own the last slot: queue it before waiting for one.
            self.release_held()
            entry.slots.acquire()  # callbacks may launch jobs; they never wait for a slot
        slots = None if in_worker else entry.slots
        try:
            return self._dispatch(entry, host_args, device_args, slots, hold,
                                  recycle=entry.staging is not None)
        except BaseException:
            if slots is not None:
                slots.release()
            raise

    def run(self, job: Any, args: tuple[Any, ...], entry: CompiledJob | None = None,
            array: bool = False) -> Any:
        """A blocking call: returns its results once it (and every earlier call) completed.

        The caller cannot touch its arguments before this returns, so they are not copied
        unless the host reads them back (results, handlers). When nothing is pending, the call
        completes on the caller's thread: no hop through the completion thread. Order holds
        because nothing is pending; a job with handlers or host ops also holds the completion
        queue while they run (``CompletionQueue.begin_inline``), so later calls wait for them.
        ``entry``: the caller's ``compiled_job(job)``, if it has it. ``array``: the job returns
        one blob and the caller wants its ``numpy()`` (what ``-> tp.Numpy`` gives).
        """
        entry = entry or self.compiled_job(job)
        in_worker = self.completion.in_worker()
        host_args, device_args = self._arguments(job, entry, args,
                                                 private=in_worker or entry.host_reads_inputs)
        # Queued completions hand back the output values; this thread builds the results,
        # which keeps that work off the completion thread's path to waking it.
        if in_worker:
            future = self._dispatch(entry, host_args, device_args, None, False,
                                    recycle=entry.staging is not None, raw=True)
            return self._finish(entry, host_args, self.wait_for(future), array)
        quiet = entry.quiet
        with self._dispatch_lock:
            fetched, diffs = self._execute(entry, device_args)
            # earlier calls first: if any is pending, this one queues behind them
            own = self._completions_idle() if quiet else self._begin_inline()
            future = None if own else self._queue_completion(entry, host_args, fetched, diffs,
                                                             raw=True)
        if future is not None:
            return self._finish(entry, host_args, self.wait_for(future), array)
        if quiet:
            values = self._fetch(entry, fetched)
        else:
            try:
                values = self._fetch(entry, (*fetched, *diffs))
                if values is not None and self.primary:  # other processes run no handlers
                    self._run_handlers(entry, host_args, values, values[len(fetched):])
            finally:
                self.completion.end_inline()
        self.completion.raise_pending()
        return self._finish(entry, host_args, values, array)

    @staticmethod
    def _finish(entry: CompiledJob, host_args: list[Any], values: list[np.ndarray] | None,
                array: bool) -> Any:
        if values is None:  # the program failed; the error was raised unless already taken
            return None
        if array:
            return value_of(entry.return_fetches[0][0], host_args, values)
        return results(entry, host_args, values)

    def _arguments(self, job: Any, entry: CompiledJob, args: tuple[Any, ...],
                   private: bool) -> tuple[list[Any], tuple[Any, ...]]:
        lowered = entry.lowered
        if entry.feeder is None:
            host_args, device_args = prepare_arguments(job.__name__, entry.traced.params, args,
                                                       lowered.device_inputs, lowered.pieces,
                                                       private, entry.layouts,
                                                       entry.staging if private else None)
        else:  # the data pipeline's inputs follow the arguments
            host_args, _ = prepare_arguments(job.__name__, entry.traced.params, args, [],
                                             lowered.pieces, private, entry.layouts,
                                             entry.staging if private else None)
            host_args.extend(entry.feeder.next())
            device_args = tuple(host_args[i] for i in lowered.device_inputs)
        if lowered.real_plan is not None:  # last in host_args, where value_of finds it
            real = lowered.real_plan.evaluate(host_args)
            host_args.append(real)
            if lowered.real_plan.size:
                device_args = (*device_args, real.vector)
        if lowered.mesh is not None:
            device_args = tuple(_sharding.to_global(a, sh)
                                for a, sh in zip(device_args, lowered.input_shardings))
        return host_args, device_args

    def _dispatch(self, entry: CompiledJob, host_args: list[Any], device_args: tuple[Any, ...],
                  slots: threading.BoundedSemaphore | None, hold: bool,
                  recycle: bool = False, raw: bool = False) -> ResultFuture:
        """``recycle``: ``host_args`` are copies from ``entry.staging``, to go back to it.
        ``raw``: the future gets the output values, not the built results."""
        with self._dispatch_lock:
            fetched, diffs = self._execute(entry, device_args)
            future = self._queue_completion(entry, host_args, fetched, diffs, slots, hold,
                                            recycle, raw)
        if _accelerated():  # start device->host copies early; on the CPU there is nothing to copy
            try:
                for array in (*fetched, *diffs):
                    array.copy_to_host_async()
            except Exception:  # noqa: BLE001 - only a head start: the call is queued already
                pass
        return future

    def _queue_completion(self, entry: CompiledJob, host_args: list[Any], fetched, diffs,
                          slots: threading.BoundedSemaphore | None = None, hold: bool = False,
                          recycle: bool = False, raw: bool = False) -> ResultFuture:
        """Queues (or holds) a dispatched call's completion; called under the dispatch lock,
        so completion order == dispatch order."""
        future = ResultFuture()
        task = functools.partial(self._complete, entry, host_args, fetched, diffs, future,
                                 slots, recycle, raw)
        with self._held_lock:
            self._release_held_locked()
            if hold:
                self._held = task
            else:
                self.completion.submit(task)
        return future

    def _execute(self, entry: CompiledJob, device_args: tuple[Any, ...]) -> tuple[Any, Any]:
        """Runs the program on the current state (under the dispatch lock): (fetched, diffs)."""
        lowered = entry.lowered
        state = self._state_for(lowered)
        if lowered.train:
            step = self._train_step(entry)
            new_state, fetched, diffs = lowered.fn(state, device_args, step)
            self.variables.values.update(new_state)
            self._store_train_step(entry, step + 1)  # only once the step was dispatched
            return fetched, diffs
        counter = entry.counter % (2**32)  # Python ints: cheaper jit arguments than NumPy's
        entry.counter += 1
        return lowered.fn(state, device_args, counter), ()

    def _completions_idle(self) -> bool:
        """Queues a held call, then tells whether no completion is pending."""
        # Lock-free first look (the common case): release_held submits before it clears
        # _held, so seeing no held call and nothing pending is never stale in the unsafe way.
        if self._held is None and self.completion.idle():
            return True
        with self._held_lock:
            self._release_held_locked()
            return self.completion.idle()

    def _begin_inline(self) -> bool:
        """Queues a held call, then claims the completion queue for this thread if idle."""
        if self._held is not None:
            self.release_held()
        return self.completion.begin_inline()

    def _release_held_locked(self) -> None:
        if self._held is not None:
            self.completion.submit(self._held)
            self._held = None

    def release_held(self) -> None:
        """Queues the completion of a call kept back for its callback registration."""
        with self._held_lock:
            self._release_held_locked()

    def _train_step(self, entry: CompiledJob) -> int:
        """The job's TrainStep for this call (kept as an int; re-read after a load)."""
        stored = self.variables.values[entry.lowered.step_name]
        if stored is not entry.stored_step:  # first call, or a load / assignment since
            entry.train_step = int(_host_copy(stored).reshape(-1)[0])
            entry.stored_step = stored
        return entry.train_step

    def _store_train_step(self, entry: CompiledJob, step: int) -> None:
        entry.train_step = step
        # A new array each time: checkpoint snapshots may hold the previous one.
        entry.stored_step = self.variables.values[entry.lowered.step_name] = np.array(
            [step], np.int64)

    def _state_for(self, lowered: LoweredJob) -> dict[str, Any]:
        values = self.variables.values
        if lowered.state_shardings is None:
            return {n: values[n] for n in lowered.state_names}
        state = {}
        for name in lowered.state_names:
            target = lowered.state_shardings[name]
            if getattr(values[name], "sharding", None) != target:
                values[name] = _sharding.to_global(values[name], target)
            state[name] = values[name]
        return state

    def _complete(self, entry: CompiledJob, host_args: list[Any], fetched, diffs,
                  future: ResultFuture, slots: threading.BoundedSemaphore | None,
                  recycle: bool = False, raw: bool = False) -> Callable[[], None] | None:
        """A call's completion task; returns the wake-up of its waiter (see CompletionQueue)."""
        try:
            return self._deliver(entry, host_args, fetched, diffs, future, raw)
        except Exception as exc:  # a flowjob bug: report it, and never leave a waiter blocked
            self.completion.record_error(
                exc, f"delivering a call of job {entry.traced.graph.name!r}")
            return None if future.done else future.set(None, self._run_callback)
        finally:
            if slots is not None:
                slots.release()
            # Fetching an output waited for the whole program, so it no longer reads them.
            if recycle and (fetched or diffs):
                entry.staging.recycle(host_args)

    def _fetch(self, entry: CompiledJob, arrays) -> list[np.ndarray] | None:
        """Host values of the program's outputs; None (error recorded) if the program failed."""
        try:
            return [np.asarray(a) for a in arrays]
        except Exception as exc:  # the program itself failed at run time
            self.completion.record_error(exc, f"job {entry.traced.graph.name!r}")
            return None

    def _deliver(self, entry: CompiledJob, host_args, fetched, diffs, future: ResultFuture,
                 raw: bool = False) -> Callable[[], None] | None:
        device_values = self._fetch(entry, (*fetched, *diffs))
        if device_values is None:
            return future.set(None, self._run_callback)
        diff_values = device_values[len(fetched):]
        if self.primary and not entry.quiet:  # other processes run no handlers
            self._run_handlers(entry, host_args, device_values, diff_values)
        value = device_values if raw else results(entry, host_args, device_values)
        return future.set(value, self._run_callback if self.primary else _ignore_callback)

    def _run_handlers(self, entry: CompiledJob, host_args, device_values, diff_values) -> None:
        pieces = entry.lowered.pieces
        for w, fetch, diff in entry.handler_plan:  # try/except inline: runs for every call
            value = (diff_of(entry, w, host_args, diff_values[diff]) if fetch is None
                     else value_of(fetch, host_args, device_values))
            if w.convert != "numpy":
                local = LocalBlob(value, w.blob.is_dynamic, pieces)
                value = local.numpy_list() if w.convert == "list_numpy" else local
            try:
                w.deliver(value)
            except BaseException as exc:  # noqa: BLE001 - re-raised at the next sync point
                self.completion.record_error(
                    exc, f"watch handler {_name(w.deliver)} of {w.blob.lbn}")
        for host, fetches in entry.host_op_plan:
            inputs = [value_of(f, host_args, device_values) for f in fetches]
            try:
                host.fn(*inputs)
            except BaseException as exc:  # noqa: BLE001
                self.completion.record_error(exc, f"op {host.op.name!r} ({host.op.op_type})")

    def _run_callback(self, callback: Callable[[Any], None], value: Any) -> None:
        try:
            callback(value)
        except BaseException as exc:  # noqa: BLE001 - re-raised at the next sync point
            self.completion.record_error(exc, f"result callback {_name(callback)}")

    def register_callback(self, future: ResultFuture,
                          callback: Callable[[Any], None]) -> None:
        future.register(callback, lambda cb, v: self.completion.submit(
            lambda: self._run_callback(cb, v)))
        self.release_held()

    def wait_for(self, future: ResultFuture) -> Any:
        self.release_held()
        if self.completion.in_worker() and not future.done:
            self.completion.drain()  # raises the clear "would wait for itself" error
        value = future.wait()
        self.completion.raise_pending()
        return value

    def sync(self) -> None:
        """Waits for every launched call and its handlers; re-raises their exceptions."""
        self.wait()
        self.completion.raise_pending()

    def wait(self) -> None:
        """Waits like ``sync`` but leaves handler errors for the next synchronisation point
        (checkpoints: an error elsewhere never takes a save's or a load's place)."""
        self.release_held()
        self.completion.drain()

    # -- variables (used by checkpoints) -----------------------------------------------------
    def variable_specs(self) -> dict[str, tuple[tuple[int, ...], Any]]:
        return {n: (d.shape, d.dtype) for n, d in self.variables.defs.items()}

    def variable_arrays(self) -> dict[str, np.ndarray]:
        self.trace_all()
        self.wait()
        with self._dispatch_lock:
            values = dict(self.variables.values)
        return {n: _host_copy(v) for n, v in values.items()}

    def assign_variables(self, arrays: dict[str, np.ndarray]) -> None:
        self.wait()
        with self._dispatch_lock:
            for name, value in arrays.items():
                vdef = self.variables.defs.get(name)
                if vdef is None:
                    raise JobDefinitionError(f"{name!r} is not a variable name")
                host = np.array(value, dtype=vdef.dtype.np_dtype)
                self.variables.values[name] = jnp.asarray(host)

    def close(self) -> int:
        """Waits for everything launched; prints errors not yet raised; returns their count."""
        if self.closed:
            return 0
        self.closed = True
        try:
            self.release_held()
            self.completion.drain()
        finally:
            for entry in list(self.compiled.values()):
                _close_feeder(entry)
            reported = self.completion.report_pending_at_exit()
        return reported


def _close_feeder(entry: CompiledJob | None) -> None:
    if entry is not None and entry.feeder is not None:
        entry.feeder.close()


def _ignore_callback(callback: Callable[[Any], None], value: Any) -> None:
    pass


@functools.cache
def _accelerated() -> bool:
    return jax.default_backend() != "cpu"


def _host_copy(value: Any) -> np.ndarray:
    """A whole host array, gathering shards that live in other processes."""
    if isinstance(value, jax.Array) and not value.is_fully_addressable \
            and not value.is_fully_replicated:
        from jax.experimental import multihost_utils

        return np.asarray(multihost_utils.process_allgather(value, tiled=True))
    return np.asarray(value)


def _name(fn: Any) -> str:
    return describe_callable(getattr(fn, "__wrapped__", fn))


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
    """Waits for the current session, then drops its jobs and variables."""
    global _default
    with _default_lock:
        old, _default = _default, None
    if old is not None:
        old.close()


def sync_default_session() -> None:
    """Blocks until every call launched so far, with its handlers and callbacks, has run."""
    if _default is not None:  # nothing launched yet: do not start a session just to wait
        _default.sync()


def _trace_all_graphs() -> list[JobGraph]:
    return default_session().trace_all()


set_trace_all(_trace_all_graphs)


@atexit.register  # registered after _exit_status's hook (imported above), so it runs first
def _close_at_exit() -> None:
    if _default is not None and _default.close():
        mark_exit_failure()
