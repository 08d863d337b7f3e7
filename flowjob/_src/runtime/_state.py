"""The session's variables as the programs see them: the state a call reads and writes, the
TrainStep counters, and the whole-store reads and writes of checkpoints."""

from __future__ import annotations

import threading
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from ..errors import JobDefinitionError
from ..graph import VariableStore
from . import _sharding


class State:
    """Owns the ``VariableStore``; ``lock`` orders program dispatch against whole-store reads
    and writes (a checkpoint sees the variables between two calls, never during one)."""

    def __init__(self, seed: int) -> None:
        self.variables = VariableStore(seed=seed)
        self.lock = threading.Lock()
        self.released = False  # flow.clear_default_session() dropped the variables

    def for_call(self, lowered: Any) -> dict[str, Any]:
        """The state a job's program reads (moved to its devices' layout when sharded)."""
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

    def for_compile(self, lowered: Any) -> dict[str, Any]:
        """:meth:`for_call`'s state with each initial value still being drawn as its shape
        and dtype, as it will be passed (uncommitted, on the default device): the program
        compiles from it without waiting, and its first call finds it compiled."""
        if lowered.state_shardings is not None:
            return self.for_call(lowered)
        values = self.variables.values
        return {n: values.spec(n) for n in lowered.state_names}

    def train_step(self, entry: Any) -> int:
        """The job's TrainStep for this call (kept as an int; re-read after a load)."""
        stored = self.variables.values[entry.lowered.step_name]
        if stored is not entry.stored_step:  # first call, or a load / assignment since
            entry.train_step = int(host_copy(stored).reshape(-1)[0])
            entry.stored_step = stored
        return entry.train_step

    def store_train_step(self, entry: Any, step: int) -> None:
        entry.train_step = step
        # A new array each time: checkpoint snapshots may hold the previous one.
        entry.stored_step = self.variables.values[entry.lowered.step_name] = np.array(
            [step], np.int64
        )

    # -- whole-store reads and writes (checkpoints; the caller waited for pending calls) --
    def specs(self) -> dict[str, tuple[tuple[int, ...], Any]]:
        return {n: (d.shape, d.dtype) for n, d in self.variables.defs.items()}

    def arrays(self) -> dict[str, np.ndarray]:
        """Every variable on the host, as one step left them: read under the dispatch lock,
        which every step holds from dispatching its program to storing the new state, so no
        step donates an array while it is read (a save from another thread than the
        training one read deleted arrays). The read waits for the steps dispatched before."""
        with self.lock:
            return {n: host_copy(v) for n, v in self.variables.values.items()}

    def assign(self, arrays: dict[str, np.ndarray]) -> None:
        with self.lock:
            for name, value in arrays.items():
                vdef = self.variables.defs.get(name)
                if vdef is None:
                    raise JobDefinitionError(f"{name!r} is not a variable name")
                host = np.array(value, dtype=vdef.dtype.np_dtype)
                self.variables.values[name] = jnp.asarray(host)


def host_copy(value: Any) -> np.ndarray:
    """A whole host array, gathering shards that live in other processes."""
    if (
        isinstance(value, jax.Array)
        and not value.is_fully_addressable
        and not value.is_fully_replicated
    ):
        from jax.experimental import multihost_utils

        return np.asarray(multihost_utils.process_allgather(value, tiled=True))
    return np.asarray(value)
