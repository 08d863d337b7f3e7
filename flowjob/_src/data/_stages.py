"""Image ops done image by image, and chains of them run as one pass per image.

OneFlow's training input is a chain of batch ops (decode with a random crop, resize,
crop-mirror-normalize), each of which waits for the whole batch of the one before. An op
that works image by image describes itself as a `Stage`. Alone, it runs its images on the
image pool (`run_chain` with one stage). A chain of them whose intermediate batches nothing
else reads (the data pipeline finds those: runtime/_feed.py) runs as one task per image:
each image is decoded, resized and normalized in one go, staying a Pillow image between
the steps, with no wait between the ops and no intermediate batch. The pipeline starts a
chain (`start_chain`) and goes on to its next batch while the pool works, so the pool is
not idle while a batch's last images finish (issue 47: ~1.3x the images per second of the
op-by-op way on 2 cores).

A stage's `start(inputs, count, last)` does its batch-order work on the pipeline's thread
(reading fields, numbering the batch) and returns a `Pass`, whose `one(i, item)` runs on
the pool for image `i`, and whose `end(items)` gives the op's value. `inputs` are the op's
input values, the first one None when the stage follows another in a chain (its images
then arrive one by one as `item`).
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from typing import Any, Protocol

import numpy as np

from ..errors import FlowJobError
from ._parallel import submit_all


class Picture:
    """A decoded image still in Pillow (``L`` or ``RGB``): what a stage hands the next one in
    a chain. ``bgr``: its array is wanted with the channels reversed."""

    __slots__ = ("image", "bgr")

    def __init__(self, image: Any, bgr: bool):
        self.image = image
        self.bgr = bgr

    @property
    def channels(self) -> int:
        return 1 if self.image.mode == "L" else 3


class Recycler:
    """An op's output batches, handed out again once nothing else refers to them.

    A fresh batch of a few MB costs page faults and cold memory on every call (issue 47: the
    image pipeline ran ~5% faster with its batches reused). Whoever holds a batch (the
    queue of ready inputs, the program reading it, a caller that kept a returned value, a
    view) holds a reference to it, so a batch that only this object refers to is free.
    At most ``keep`` batches of a shape are kept, for as long as the op exists."""

    def __init__(self, keep: int = 8):
        self.keep = keep
        self._kept: dict[tuple[tuple[int, ...], np.dtype], list[np.ndarray]] = {}
        self._lock = threading.Lock()
        probe = [object()]
        self._alone = sys.getrefcount(probe[0])  # an object only a list refers to

    def empty(self, shape: tuple[int, ...], dtype: Any) -> np.ndarray:
        """A batch of ``shape`` and ``dtype``: a kept one nothing refers to, else a new one
        (kept while fewer than ``keep`` are)."""
        key = (tuple(shape), np.dtype(dtype))
        with self._lock:
            kept = self._kept.setdefault(key, [])
            for k in range(len(kept)):
                if sys.getrefcount(kept[k]) == self._alone:
                    return kept[k]
            array = np.empty(*key)
            if len(kept) < self.keep:
                kept.append(array)
            return array


def as_array(item: Any, contiguous: bool = True) -> np.ndarray:
    """An item as an HWC array: a `Picture`'s pixels (channels in its order; with
    ``contiguous`` False a reversed view instead of a copy), an array as it is."""
    if not isinstance(item, Picture):
        return item
    array = np.asarray(item.image)
    if array.ndim == 2:
        return array[:, :, None]
    if not item.bgr:
        return array
    return np.ascontiguousarray(array[:, :, ::-1]) if contiguous else array[:, :, ::-1]


class Pass(Protocol):
    """One batch of a stage (see the module's docstring)."""

    count: int  # images in the batch

    def item(self, i: int) -> Any:
        """Image ``i`` of the stage's own first input (asked of a chain's first stage)."""

    def one(self, i: int, item: Any) -> Any:
        """Image ``i`` done; returns what the next stage gets (the last stage: anything)."""

    def end(self, items: list[Any]) -> Any:
        """The op's value (a tuple for several outputs) from what ``one`` returned."""


class Stage(Protocol):
    def start(self, inputs: Sequence[Any], count: int | None, last: bool) -> Pass:
        """``count``: the batch size when the stage follows another (else from ``inputs``);
        ``last``: whether it ends its chain (only then its value is made)."""


Namer = Callable[[int, FlowJobError], BaseException]


def run_chain(
    stages: Sequence[Stage], inputs: Sequence[Sequence[Any]], named: Namer | None = None
) -> Any:
    """The last stage's value: ``stages[k]`` reads ``stages[k - 1]``'s images,
    ``inputs[k]`` are stage ``k``'s input values. ``named(k, error)``: the error to raise
    for stage ``k``'s flowjob error (one naming its op)."""
    return start_chain(stages, inputs, named).result()


def start_chain(
    stages: Sequence[Stage], inputs: Sequence[Sequence[Any]], named: Namer | None = None
) -> Running:
    """`run_chain`'s work started: the stages' batch-order part done here, the images
    queued on the pool; ``result()`` waits for them. The data pipeline starts its next
    batch meanwhile, so the pool is not idle while a batch's last images finish."""

    def at(k: int, fn: Callable[[], Any]) -> Any:
        try:
            return fn()
        except FlowJobError as exc:
            if named is None:
                raise
            raise named(k, exc) from None

    last = len(stages) - 1
    passes = [at(0, lambda: stages[0].start(inputs[0], None, last == 0))]
    count = passes[0].count
    for k in range(1, last + 1):
        passes.append(at(k, lambda k=k: stages[k].start(inputs[k], count, k == last)))

    def one(i: int) -> Any:
        item = at(0, lambda: passes[0].item(i))
        for k, p in enumerate(passes):
            item = at(k, lambda p=p, item=item: p.one(i, item))
        return item

    return Running(
        submit_all(one, range(count)), lambda done: at(last, lambda: passes[-1].end(done))
    )


class Running:
    """A chain's batch on the image pool (`start_chain`)."""

    def __init__(self, images: list[Future], end: Callable[[list[Any]], Any]):
        self._images = images
        self._end = end

    def result(self) -> Any:
        """The chain's value, once its images are done; raises the first failed image's
        error (the images not yet started are dropped). An interrupt while waiting leaves
        the batch whole: a later ``result()`` still gives it."""
        try:
            done = [f.result() for f in self._images]
        except Exception:
            for f in self._images:
                f.cancel()
            raise
        return self._end(done)


def ready(value: Any) -> Any:
    """``value``, or a `Running` chain's value once it is done."""
    return value.result() if isinstance(value, Running) else value


def single(stage: Stage) -> Callable[..., Any]:
    """A feed op's function for ``stage`` alone: ``fn(*inputs)``."""
    return lambda *inputs: run_chain([stage], [inputs])
