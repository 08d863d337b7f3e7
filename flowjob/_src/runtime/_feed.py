"""Runs a job's host data pipeline (its feed ops) ahead of the calls that consume it.

One thread per compiled job evaluates the whole pipeline once per call, in call order, and
keeps up to ``depth`` calls' worth of inputs ready (as OneFlow's data readers kept a buffer of
four batches), so reading and decoding overlap the programs of earlier calls. A failure in
the pipeline (a truncated file, the end of a finite dataset) is raised by the call that would
have used the failed batch, and by every later call. A pipeline that reads the job's
arguments (tensor lists, image sizes) cannot run ahead: it runs in the calling thread,
on that call's arguments.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..data import Running, ready, start_chain
from ..errors import FlowJobError, describe_frame
from ..graph import Blob, JobGraph, is_host_only

DEPTH = 4


class _Failed:
    def __init__(self, exc: BaseException):
        self.exc = exc


class Feeder:
    """Values of ``graph.inputs[first:]`` (the pipeline's program inputs) for each call."""

    def __init__(self, graph: JobGraph, first: int, depth: int = DEPTH, kept: Sequence[Blob] = ()):
        self.graph = graph
        self.wanted: list[Blob] = graph.inputs[first:]
        # ``kept``: blobs the call reads besides the program's inputs (its returns)
        self.steps, self.skipped = _steps(graph, kept)
        # job arguments the pipeline reads: their index in a call's host values
        read = {id(b) for f in graph.feeds for b in f.op.inputs}
        self.arguments = {id(b): i for i, b in enumerate(graph.inputs[:first]) if id(b) in read}
        self._streams: dict[int, Any] | None = None
        self.depth = depth
        self.produced = 0  # calls' worth of inputs computed so far (read by tests)
        self._queue: queue.Queue = queue.Queue(maxsize=depth)
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._closed = threading.Event()
        self._failure: BaseException | None = None
        self._taken: list[Any] | None = None  # a batch whose call was interrupted

    def next(self, host_args: list[Any]) -> list[np.ndarray]:
        """The next call's pipeline inputs (waits for them; starts the thread on first use).
        ``host_args``: the call's checked arguments, for a pipeline that reads them."""
        if self._failure is not None:
            raise self._failure
        if self.arguments:
            with self._lock:
                if self._streams is None:
                    self._streams = {id(f.op): f.fn() for f in self.graph.feeds if f.source}
                self.produced += 1
                # this call's own batch: a failure is this call's, not every later one's
                return self._finished(self._step(self._streams, host_args), remember=False)
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name=f"flowjob-feed-{self.graph.name}", daemon=True
                )
                self._thread.start()
        item, self._taken = (self._taken, None) if self._taken is not None else (None, None)
        if item is None:
            item = self._queue.get()
        if isinstance(item, _Failed):
            self._failure = item.exc
            raise item.exc
        try:
            return self._finished(item)
        except Exception:
            raise
        except BaseException:  # interrupted while waiting (Ctrl-C): the next call's batch
            self._taken = item
            raise

    def _finished(self, values: list[Any], remember: bool = True) -> list[Any]:
        """``values`` with image chains still on the pool waited for (and checked); with
        ``remember``, a failure is raised by every later call too (the thread stops)."""
        try:
            return [
                checked_feed(blob, v.result()) if isinstance(v, Running) else v
                for blob, v in zip(self.wanted, values)
            ]
        except Exception as exc:
            if remember:
                self._failure = exc
                self._closed.set()
            raise

    def close(self) -> None:
        """Stops the thread (within 0.1 s when it waits on a full queue)."""
        self._closed.set()

    # -- the pipeline thread -----------------------------------------------------------------
    def _run(self) -> None:
        try:
            streams = {id(f.op): f.fn() for f in self.graph.feeds if f.source}
        except BaseException as exc:  # noqa: BLE001 - delivered to the calling thread
            self._put(_Failed(exc))
            return
        while not self._closed.is_set():
            try:
                values = self._step(streams)
            except BaseException as exc:  # noqa: BLE001 - delivered to the calling thread
                self._put(_Failed(exc))
                return
            self.produced += 1
            if not self._put(values):
                return

    def _put(self, item: Any) -> bool:
        while not self._closed.is_set():
            try:
                self._queue.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def _step(self, streams: dict[int, Any], host_args: list[Any] | None = None) -> list[Any]:
        env: dict[int, Any] = {bid: _argument(host_args[i]) for bid, i in self.arguments.items()}
        name = self.graph.name
        for step in self.steps:
            op = step[-1].op
            if step[0].stage is None:
                inputs = [ready(env[id(b)]) for b in op.inputs]
                out = feed_value(name, step[0], streams.get(id(op)), inputs)
            else:  # image stages: a chain's later ops get their first input image by image
                inputs = [
                    [None if k and j == 0 else ready(env[id(b)]) for j, b in enumerate(f.op.inputs)]
                    for k, f in enumerate(step)
                ]
                out = start_chain(
                    [f.stage for f in step],
                    inputs,
                    lambda k, exc, step=step: _named(name, step[k].op, exc),
                )
                # one output: left running while the next batch starts (Feeder.next waits)
                out = out if len(op.outputs) == 1 else out.result()
            outs = out if len(op.outputs) > 1 else (out,)
            for blob, value in zip(op.outputs, outs):
                env[id(blob)] = value
        skipped = self.skipped
        values = []
        for blob in self.wanted:
            value = None if id(blob) in skipped else env[id(blob)]
            running = value is None or isinstance(value, Running)
            values.append(value if running else checked_feed(blob, value))
        return values


def _steps(graph: JobGraph, kept: Sequence[Blob]) -> tuple[list[list[Any]], set[int]]:
    """The pipeline's ops in order, each alone or, for image stages (data/_stages.py) that
    feed one another and whose intermediate values nothing else reads, as one chain at the
    place of its last op; and the ids of the blobs no step makes (those values)."""
    readers: dict[int, int] = {}
    for op in graph.ops:
        for b in op.inputs:
            readers[id(b)] = readers.get(id(b), 0) + 1
    for b in [*kept, *(b for d in graph.deliveries for b in d.blobs)]:
        readers[id(b)] = readers.get(id(b), 0) + 2  # read outside the ops: never skipped
    for _, value in graph.assigns:
        readers[id(value)] = readers.get(id(value), 0) + 2
    makers = {id(b): f for f in graph.feeds for b in f.op.outputs}
    after: dict[int, Any] = {}  # id(feed) -> the stage that reads its images
    for feed in graph.feeds:
        if feed.stage is None or not feed.op.inputs:
            continue
        images = feed.op.inputs[0]
        maker = makers.get(id(images))
        if (
            maker is not None
            and maker.stage is not None
            and images is maker.op.outputs[0]
            and readers.get(id(images)) == 1
            and not any(readers.get(id(b)) for b in maker.op.outputs[1:])
        ):
            after[id(maker)] = feed
    followed = {id(f) for f in after.values()}
    steps, skipped = [], set()
    chains: dict[int, list[Any]] = {}  # id(last feed) -> its chain
    for feed in graph.feeds:
        if id(feed) in followed:
            continue
        chain = [feed]
        while id(chain[-1]) in after:
            chain.append(after[id(chain[-1])])
        chains[id(chain[-1])] = chain
        for f in chain[:-1]:
            skipped.update(id(b) for b in f.op.outputs)
    for feed in graph.feeds:
        if id(feed) in chains:
            steps.append(chains[id(feed)])
    return steps, skipped


def feed_value(job_name: str, feed: Any, stream: Any, inputs: list[Any]) -> Any:
    """One pipeline op's value (a tuple for several outputs): a source's ``stream()`` (its
    next batch), else ``fn(*inputs)``; flowjob errors name the op and where it was made."""
    try:
        return stream() if feed.source else feed.fn(*inputs)
    except FlowJobError as exc:
        raise _named(job_name, feed.op, exc) from None


def _named(job_name: str, op: Any, exc: FlowJobError) -> FlowJobError:
    return type(exc)(
        f"{exc}\n  in data pipeline op {op.name!r} ({op.op_type}) of job {job_name!r}, "
        f"created at {describe_frame(op.user_frame)}"
    )


def _argument(value: Any) -> Any:
    """A job argument as a pipeline op reads it: a ListNumpy list as one array (the devices'
    pieces concatenated), anything else (an array, a tensor list) as it is."""
    if isinstance(value, list):
        return value[0] if len(value) == 1 else np.concatenate(value)
    return value


def checked_feed(blob: Blob, value: Any) -> np.ndarray | list[np.ndarray]:
    """A pipeline value as the program input its blob promised (shape and dtype); a dynamic
    blob's value as a one-array list of its real shape, as a ListNumpy argument arrives.
    Host-only values (a returned tensor list) pass as they are."""
    if is_host_only(blob):
        return value
    array = np.ascontiguousarray(value, dtype=blob.dtype.np_dtype)
    if blob.is_dynamic:
        if array.ndim == len(blob.shape) and all(a <= m for a, m in zip(array.shape, blob.shape)):
            return [array]
        raise ValueError(
            f"data pipeline op {blob.op.name!r} ({blob.op.op_type}) produced shape "
            f"{array.shape}, which does not fit within its dynamic blob {blob.lbn} of "
            f"shape {blob.shape}"
        )
    if array.shape != blob.shape:
        raise ValueError(
            f"data pipeline op {blob.op.name!r} ({blob.op.op_type}) produced shape "
            f"{array.shape}, but its blob {blob.lbn} has shape {blob.shape}"
        )
    return array
