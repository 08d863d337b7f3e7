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
import threading
from collections.abc import Callable
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

    def later(self, specs: dict[str, Any], compute: Callable[[], dict[str, Any]]) -> None:
        """Enters the names of ``specs`` (name -> ``jax.ShapeDtypeStruct``) with the values
        ``compute()`` returns, computed on the drawing thread after every earlier entry."""
        with self._worker_lock:
            if self._worker is None:
                self._worker = concurrent.futures.ThreadPoolExecutor(
                    1, thread_name_prefix="flowjob-initial-values"
                )
            future = self._worker.submit(compute)
        for name, spec in specs.items():
            dict.__setitem__(self, name, Drawing(future, name, spec))

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
