"""Calls of jobs: check the arguments, dispatch the program, queue (or run inline) the
completion. Completion order is dispatch order: both happen under one lock."""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any

import jax

from ..errors import CallbackError, JobDefinitionError
from ..graph import raise_kernel_error, running_kernel
from ..processes import stop_guard
from . import _sharding
from ._arguments import device_value, prepare_arguments
from ._compiled import CompiledJob
from ._completion import CompletionQueue
from ._delivery import Deliverer
from ._held import HeldCompletions
from ._interrupt import HOLD, WATCH
from ._results import ResultFuture
from ._state import State
from ._step_kernels import compile_step
from ._trace import outline


class Calls:
    """Dispatch of job calls: ``run`` (blocking annotations) and ``launch`` (the rest)."""

    def __init__(self, state: State, completion: CompletionQueue, deliverer: Deliverer):
        self.state = state
        self.completion = completion
        self.deliverer = deliverer
        self._lock = state.lock  # the dispatch lock
        self.held = HeldCompletions(completion)

    def launch(
        self, job: Any, entry: CompiledJob, args: tuple[Any, ...], hold: bool = False
    ) -> ResultFuture:
        """Checks and copies the arguments, dispatches the program and queues its completion.

        ``hold``: the caller is about to register a callback (``tp.Callback``, ``async_get``);
        the completion is held until it does (runtime/_held.py), so a fast completion thread
        cannot deliver this call before its callback exists.
        At most ``concurrency_width`` calls of a job are in flight; more wait for a slot.
        """
        _refuse_in_kernel(job)
        HOLD.install()
        host_args, device_args = self._arguments(job, entry, args, private=True)
        if not entry.warm:
            self._warm(entry, device_args)
        in_worker = self.completion.in_worker()
        slots = None if in_worker else entry.slots  # callbacks never wait for a slot
        # Signal handlers are held back from taking the slot to queuing the completion
        # (which then owns the slot) and storing the new state: whatever they raise comes
        # before or after, never between (a slot lost or released twice, a donated state
        # lost).
        with HOLD:
            if slots is not None and not slots.acquire(blocking=False):
                # Held calls (older) may own the last slot: queue them before waiting.
                self.held.release()
                HOLD.acquire(slots)
            return self._dispatch(
                entry, host_args, device_args, slots, hold, recycle=entry.staging is not None
            )

    def run(self, job: Any, entry: CompiledJob, args: tuple[Any, ...]) -> tuple[Any, Any]:
        """A blocking call: (host arguments, output values) once it and every earlier call
        completed (output values None: the program failed and its error was raised).

        The caller cannot touch its arguments before this returns, so they are not copied
        unless the host reads them back. When nothing is pending, the call completes on the
        caller's thread: no hop through the completion thread. Order holds because nothing
        is pending; a job with a plan also holds the completion queue while it runs
        (``CompletionQueue.begin_inline``), so later calls wait for it.
        """
        _refuse_in_kernel(job)
        HOLD.install()
        in_worker = self.completion.in_worker()
        host_args, device_args = self._arguments(
            job, entry, args, private=in_worker or entry.host_reads_inputs
        )
        if not entry.warm:
            self._warm(entry, device_args)
        if in_worker:  # a handler's call (on the main thread when its handlers run inline)
            with HOLD:
                future = self._dispatch(
                    entry,
                    host_args,
                    device_args,
                    None,
                    False,
                    recycle=entry.staging is not None,
                    raw=True,
                )
            return host_args, self.wait_for(future)
        quiet = entry.quiet
        # claimed: this thread delivers the call, and must give the claim back whatever
        # happens (every later completion waits for it)
        claimed = False
        try:
            with self._lock:
                try:
                    with HOLD:  # see launch
                        outputs = self.execute(entry, device_args)
                        # earlier calls first: if any is pending, this one queues behind them
                        own = self._completions_idle() if quiet else self._begin_inline()
                        claimed = own and not quiet
                        future = None if own else self._queue(entry, host_args, outputs, raw=True)
                except BaseException:
                    # A handler held back raised as the section ended: the call ran and its
                    # state is stored. Its delivery, if claimed, goes to the completion
                    # thread, in order (still under the dispatch lock). Entered in C, this
                    # section cannot be cut short by another handler.
                    with HOLD:
                        if claimed:
                            self._queue(entry, host_args, outputs, raw=True)
                            self.completion.end_inline()
                            claimed = False
                    raise
            if future is not None:
                return host_args, self.wait_for(future)
            values = self.deliverer.fetch(entry, outputs)
            if claimed and values is not None:
                self.deliverer.run_plan(entry, host_args, values)
        finally:
            if claimed:
                with HOLD:  # entered in C: the claim is given back even if a handler raises
                    self.completion.end_inline()
        self.completion.raise_pending()
        return host_args, values

    def run_direct(self, job: Any, entry: CompiledJob, args: tuple[Any, ...]) -> Any:
        """``run`` for a job with ``entry.direct_output`` (runtime/_compiled.py), giving the
        returned array itself: the general way of the calls that ``DirectCall``
        (runtime/_direct.py) does not take."""
        host_args, values = self.run(job, entry, args)
        return None if values is None else entry.results.array(host_args, values)

    def _arguments(
        self, job: Any, entry: CompiledJob, args: tuple[Any, ...], private: bool
    ) -> tuple[list[Any], tuple[Any, ...]]:
        lowered = entry.lowered
        staging = entry.staging if private else None
        if entry.feeder is None:
            host_args, device_args = prepare_arguments(
                job.__name__,
                entry.traced.params,
                args,
                lowered.device_inputs,
                lowered.pieces,
                private,
                entry.layouts,
                staging,
            )
        else:  # the data pipeline's inputs follow the arguments
            host_args, _ = prepare_arguments(
                job.__name__,
                entry.traced.params,
                args,
                [],
                lowered.pieces,
                private,
                entry.layouts,
                staging,
            )
            host_args.extend(entry.feeder.next(host_args))
            inputs = entry.traced.graph.inputs
            device_args = tuple(
                device_value(host_args[i], inputs[i].shape, lowered.pieces)
                for i in lowered.device_inputs
            )
        guard = stop_guard()
        if guard is not None:  # several processes: same inputs everywhere, SIGTERM
            traced = entry.traced
            guard.before_call(job.__name__, traced.params, host_args, self, lambda: outline(traced))
        if lowered.real_plan is not None:  # last in host_args, where value_of finds it
            real = lowered.real_plan.evaluate(host_args)
            host_args.append(real)
            if lowered.real_plan.size:
                device_args = (*device_args, real.vector)
        if lowered.mesh is not None:
            device_args = tuple(
                _sharding.to_global(a, sh) for a, sh in zip(device_args, lowered.input_shardings)
            )
        return host_args, device_args

    def _dispatch(
        self,
        entry: CompiledJob,
        host_args: list[Any],
        device_args: tuple[Any, ...],
        slots: threading.BoundedSemaphore | None,
        hold: bool,
        recycle: bool,
        raw: bool = False,
    ) -> ResultFuture:
        with self._lock:
            try:
                outputs = self.execute(entry, device_args)
            except BaseException:
                if slots is not None:  # no completion owns it
                    slots.release()
                raise
            future = self._queue(entry, host_args, outputs, slots, hold, recycle, raw)
        if _accelerated():  # start device->host copies early; on the CPU there is nothing to copy
            try:
                for array in outputs:
                    array.copy_to_host_async()
            except Exception:  # noqa: BLE001 - only a head start: the call is queued already
                pass
        return future

    def _queue(
        self,
        entry: CompiledJob,
        host_args: list[Any],
        outputs: tuple[Any, ...],
        slots: threading.BoundedSemaphore | None = None,
        hold: bool = False,
        recycle: bool = False,
        raw: bool = False,
    ) -> ResultFuture:
        """Queues (or holds) a dispatched call's completion; called under the dispatch lock,
        so completion order == dispatch order. ``recycle``: ``host_args`` are copies from
        ``entry.staging``, to go back to it once the outputs are fetched."""
        future = ResultFuture()
        task = functools.partial(
            self.deliverer.complete, entry, host_args, outputs, future, slots, recycle, raw
        )
        self.held.queue(task, future, hold)
        return future

    def _warm(self, entry: CompiledJob, device_args: tuple[Any, ...]) -> None:
        """Compiles a program that donates its state before its first call, outside the
        call's HOLD section; a Ctrl-C meanwhile ends it once JAX has compiled (see WATCH)."""
        lowered = entry.lowered
        if lowered.writes_state and not lowered.host_kernels and hasattr(lowered.fn, "lower"):
            with self._lock:
                try:
                    current = self.state.for_compile(lowered)
                    # read with the state, as execute does: a clear between is the same case
                    third = self.state.train_step(entry) if lowered.train else entry.counter
                except KeyError as missing:
                    raise cleared_error(entry.traced.graph.name, self.state, missing) from None

            def compile_():
                with WATCH:  # kept by jit's cache
                    lowered.fn.lower(current, device_args, third).compile()

            def state():
                with self._lock:
                    return self.state.for_call(lowered)

            compile_step(lowered, compile_, state, (device_args, third))
        entry.warm = True

    def execute(self, entry: CompiledJob, device_args: tuple[Any, ...]) -> tuple[Any, ...]:
        """Runs the program on the current state (under the dispatch lock): its outputs, the
        fetched values then the watched gradients."""
        lowered, state = entry.lowered, self.state
        try:
            current = state.for_call(lowered)
            # read with the state: a clear between the two is the same cleared session
            step = state.train_step(entry) if lowered.train else 0
        except KeyError as missing:
            raise cleared_error(entry.traced.graph.name, state, missing) from None
        # A program with host kernels may fail after it started: see _checked_run.
        run = functools.partial(_checked_run, lowered) if lowered.host_kernels else lowered.fn
        if lowered.train:
            if lowered.watch_fn is not None and step % lowered.watch_every == 0:
                # watch_model's logging steps: the variant that returns its outputs too
                run = (
                    functools.partial(_checked_run, lowered, fn=lowered.watch_fn)
                    if lowered.host_kernels
                    else lowered.watch_fn
                )
            new_state, fetched, diffs = run(current, device_args, step)
            state.variables.values.update(new_state)
            state.store_train_step(entry, step + 1)  # only once the step was dispatched
            return (*fetched, *diffs) if diffs else fetched
        counter = entry.counter % (2**32)  # Python ints: cheaper jit arguments than NumPy's
        entry.counter += 1
        if lowered.writes_state:  # a predict job that assigns variables
            new_state, fetched = run(current, device_args, counter)
            state.variables.values.update(new_state)
            return fetched
        if lowered.host_kernels:
            return _checked_run(lowered, current, device_args, counter, wait=False)
        return lowered.fn(current, device_args, counter)

    def _completions_idle(self) -> bool:
        """Queues held calls, then tells whether no completion is pending."""
        if not self.held.empty():
            self.held.release(grace=True)
        return self.completion.idle()

    def _begin_inline(self) -> bool:
        """Queues held calls, then claims the completion queue for this thread if idle."""
        if not self.held.empty():
            self.held.release(grace=True)
        return self.completion.begin_inline()

    def release_held(self) -> None:
        """Queues the completions of every call held so far (the session closes)."""
        self.held.release()

    def callback_registered(self, future: ResultFuture) -> None:
        """Queues the completion of ``future``'s call (and those it held back)."""
        self.held.registered(future)

    def wait_for(self, future: ResultFuture) -> Any:
        in_worker = self.completion.in_worker()
        self.held.release(grace=not in_worker)
        if in_worker and not future.done:
            self.completion.drain()  # raises the clear "would wait for itself" error
        value = future.wait()
        self.completion.raise_pending()
        return value

    def wait(self) -> None:
        """Waits until every call made so far has run: its completion (handlers, callbacks)
        and its program."""
        self.held.release(grace=not self.completion.in_worker())
        self.completion.drain()
        if running_kernel() is None:  # a kernel's own program would wait for the kernel
            self._wait_for_programs()

    def _wait_for_programs(self) -> None:
        """Waits until the session's variables are computed, so every program that writes
        them has run. A completion waits only for the outputs it fetches: a call that
        fetches none (a ``-> None`` train job, nothing watched) completes at once while XLA
        may still have dozens of steps queued. Under the dispatch lock, so no call donates
        an array meanwhile."""
        with self._lock:
            try:
                jax.block_until_ready(list(self.state.variables.values.values()))
            except Exception:  # noqa: BLE001 - a failed program: its call, or the next one
                pass  # that reads the state, reports it; waiting is all this is for


def _checked_run(lowered: Any, *args: Any, wait: bool = True, fn: Any = None) -> Any:
    """Runs a program with host kernels (``lowered.fn``, or ``fn``); a kernel's error is
    raised as itself, naming its op. ``wait``: the program returns a new state (not donated),
    stored only once the step succeeded, so a failed step leaves the session the state it
    had."""
    try:
        outputs = (lowered.fn if fn is None else fn)(*args)
        return jax.block_until_ready(outputs) if wait else outputs
    except Exception as exc:  # the step failed on the host (or the device)
        raise_kernel_error(exc)
        raise


def _refuse_in_kernel(job: Any) -> None:
    """A job called from a host kernel would wait for the call that runs the kernel."""
    site = running_kernel()
    if site is not None:
        raise CallbackError(
            f"job {job.__name__!r} was called from inside the Python kernel of "
            f"{site.describe()}; a kernel runs inside its job's compiled step, which a job "
            "call would wait for forever. Compute with NumPy in the kernel, or call the job "
            "before or after"
        )


@functools.cache
def _accelerated() -> bool:
    return jax.default_backend() != "cpu"


def cleared_error(job: str, state: State, missing: KeyError) -> Exception:
    """A variable of job ``job`` is missing: its session was cleared during the call (another
    thread's ``flow.clear_default_session()``), else the error as it is."""
    if not state.released:
        return missing
    return JobDefinitionError(
        f"job {job!r} was called while flow.clear_default_session() (in "
        f"another thread) cleared its session: its variables (such as {missing}) went with it; "
        "define the job again and call it in the new session"
    )
