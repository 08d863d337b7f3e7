"""Initial values made on a background thread while the job that needs them compiles.

A job's first call defines its variables as its body is traced, and drawing their initial
values compiles one program per distribution (``ops/_sampling``) and runs it: on a small
model that is a third of the first call (the MLP: 0.3 s of 0.8 s), time in which the job's
own program could already be compiling on the machine's other core. So the store hands each
draw to one worker thread, in definition order, and keeps a :class:`Drawing` in its place;
reading the variable waits for it. The job's program is lowered from the variables' shapes
and dtypes (:meth:`Values.spec`), so only its first run waits for the values.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import threading
from collections.abc import Callable, Iterator
from typing import Any

import jax
import numpy as np

__all__ = ["Drawing", "Values"]


class Drawing:
    """A value being computed on the drawing thread: entry ``name`` of the dict ``future``
    gives; ``spec`` is its shape and dtype."""

    __slots__ = ("future", "name", "spec")

    def __init__(self, future: concurrent.futures.Future, name: str, spec: Any) -> None:
        self.future, self.name, self.spec = future, name, spec

    def result(self) -> Any:
        return self.future.result()[self.name]


class _Held(concurrent.futures.Future):
    """A draw entered while the store held them (:meth:`Values.held`): nothing runs it
    until the hold ends, or until something asks for it, which ends the hold."""

    def __init__(self, release: Callable[[], None]) -> None:
        super().__init__()
        self._release = release

    def result(self, timeout: float | None = None) -> Any:
        self._release()
        return super().result(timeout)


def _fill(future: concurrent.futures.Future, compute: Callable[[], Any]) -> None:
    if not future.set_running_or_notify_cancel():
        return
    try:
        future.set_result(compute())
    except BaseException as exc:  # noqa: BLE001 - raised at every read of the value
        future.set_exception(exc)


class Values(dict):
    """``{variable name: jax.Array}`` whose entries may still be :class:`Drawing`: reading
    one (``[]``, ``get``, ``pop``, ``values``, ``items``, ``dict(...)``) waits for it and keeps
    the value; writing one replaces it. A draw that failed raises at every read.

    >>> values = Values()
    >>> values.later({"w": jax.ShapeDtypeStruct((2,), np.float32)}, lambda: {"w": np.ones(2)})
    >>> values.spec("w").shape, values["w"].tolist()
    ((2,), [1.0, 1.0])
    """

    def __init__(self) -> None:
        super().__init__()
        self._worker: concurrent.futures.ThreadPoolExecutor | None = None
        self._worker_lock = threading.Lock()
        self._held: list[tuple[_Held, Callable[[], Any]]] | None = None  # see held()

    def later(self, specs: dict[str, Any], compute: Callable[[], dict[str, Any]]) -> None:
        """Enters the names of ``specs`` (name -> ``jax.ShapeDtypeStruct``) with the values
        ``compute()`` returns, computed on the drawing thread after every earlier entry."""
        with self._worker_lock:
            if self._held is not None:
                future: concurrent.futures.Future = _Held(self._release)
                self._held.append((future, compute))
            else:
                future = self._start().submit(compute)
        for name, spec in specs.items():
            dict.__setitem__(self, name, Drawing(future, name, spec))

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        """Draws entered inside wait, with no thread started and no program run, until the
        block ends (or something reads one of them): the runtime traces a job's body before
        JAX's backend starts this way (runtime/_host_memory.py).

        >>> values = Values()
        >>> with values.held():
        ...     values.later({"w": jax.ShapeDtypeStruct((1,), np.float32)}, lambda: {"w": 1})
        >>> values["w"]
        1
        """
        with self._worker_lock:
            self._held = []
        try:
            yield
        finally:
            self._release()

    def _release(self) -> None:
        """Hands the held draws to the drawing thread, in the order they were entered."""
        with self._worker_lock:
            held, self._held = self._held, None
            for future, compute in held or ():
                self._start().submit(_fill, future, compute)

    def _start(self) -> concurrent.futures.ThreadPoolExecutor:
        if self._worker is None:
            self._worker = concurrent.futures.ThreadPoolExecutor(
                1, thread_name_prefix="flowjob-initial-values"
            )
        return self._worker

    def spec(self, name: str) -> Any:
        """The entry's value if it is there, else its ``jax.ShapeDtypeStruct``: what a
        program is lowered from without waiting."""
        value = dict.__getitem__(self, name)
        return value.spec if type(value) is Drawing else value

    def _resolved(self, name: str, value: Any) -> Any:
        if type(value) is Drawing:
            new = value.result()
            if dict.get(self, name) is value:  # not written meanwhile
                dict.__setitem__(self, name, new)
            return new
        return value

    def __getitem__(self, name: str) -> Any:
        value = dict.__getitem__(self, name)
        # inlined: per-call state reads (runtime/_direct.py) come through here
        return self._resolved(name, value) if type(value) is Drawing else value

    def get(self, name: str, default: Any = None) -> Any:
        return self[name] if name in self else default

    def pop(self, name: str, *default: Any) -> Any:
        if name not in self and default:
            return default[0]
        value = self[name]
        dict.pop(self, name)
        return value

    def wait(self) -> None:
        """Waits for every entry."""
        for name, value in list(dict.items(self)):
            self._resolved(name, value)

    def values(self):  # type: ignore[override]
        self.wait()
        return dict.values(self)

    def items(self):  # type: ignore[override]
        self.wait()
        return dict.items(self)

    def copy(self) -> dict[str, Any]:
        self.wait()
        return dict(dict.items(self))

    def __iter__(self):
        # Defined here so that ``dict(values)`` and ``{**values}`` read through
        # ``__getitem__``: CPython copies a dict whose iterator is dict's own entry by entry.
        return dict.__iter__(self)
