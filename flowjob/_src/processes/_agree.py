"""What the processes of a multi-process job must agree on, checked through the key-value
store of ``jax.distributed``: the arguments of each job's first call (every process feeds
the same global batch), and the outcome of work that one process does for all (a
checkpoint written by rank 0 is complete before any rank's ``save`` returns)."""

from __future__ import annotations

import itertools
import json
import zlib
from collections.abc import Callable
from typing import Any

import numpy as np

from ..errors import JobArgumentError
from ._ranks import RankWatch

_outcomes = itertools.count()


def _digest(value: Any) -> str:
    """A cheap fingerprint: shape, dtype and CRC-32 of the bytes (of each piece of a list)."""
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(_digest(v) for v in value) + "]"
    array = np.ascontiguousarray(value) if not isinstance(value, np.ndarray) else value
    if array.dtype == object:
        return f"object{array.shape}"
    data = array if array.flags.c_contiguous else np.ascontiguousarray(array)
    return f"{array.dtype}{list(array.shape)}:{zlib.crc32(data.reshape(-1).view(np.uint8)):08x}"


def check_inputs(watch: RankWatch, job_name: str, params: Any, host_args: list[Any]) -> None:
    """Compares the first call's arguments of ``job_name`` across ranks; raises
    ``JobArgumentError`` naming the first argument that differs (on every rank)."""
    names = [getattr(p, "name", f"#{i}") for i, p in enumerate(params)]
    mine = [_digest(v) for v in host_args[: len(names)]]
    world = watch.world
    key = f"flowjob/inputs/{job_name}/"
    watch.client.key_value_set(f"{key}{world.rank}", json.dumps(mine), allow_overwrite=True)
    timeout_ms = int(watch.timeouts.sync * 1000)
    theirs = {
        r: json.loads(watch.client.blocking_key_value_get(f"{key}{r}", timeout_ms))
        for r in range(world.size)
    }
    for index, name in enumerate(names):
        values = {r: d[index] if index < len(d) else None for r, d in theirs.items()}
        if len(set(values.values())) > 1:
            shown = ", ".join(f"rank {r}: {v}" for r, v in sorted(values.items()))
            raise JobArgumentError(
                f"job {job_name!r}: argument {name!r} differs between the processes on the "
                f"first call ({shown}). Every process must pass the same global batch: "
                "flowjob splits it among all devices of all processes (the consistent view); "
                "read or generate the data identically in each process (same files, same seed)"
            )


def share_outcome(watch: RankWatch, what: str, work: Callable[[], None]) -> None:
    """Rank 0 runs ``work``; every rank returns once it finished, or raises its error."""
    key = f"flowjob/outcome/{next(_outcomes)}"
    world = watch.world
    if world.rank == 0:
        try:
            work()
        except BaseException as exc:
            watch.client.key_value_set(key, f"{type(exc).__name__}: {exc}")
            raise
        watch.client.key_value_set(key, "")
        return
    timeout_ms = int(watch.timeouts.sync * 1000)
    try:
        error = watch.client.blocking_key_value_get(key, timeout_ms)
    except Exception as exc:  # noqa: BLE001 - JAX's timeout names no rank
        raise TimeoutError(
            f"{what}: rank {world.rank} waited {watch.timeouts.sync:g} s "
            f"(FLOWJOB_SYNC_TIMEOUT) for rank 0 to finish it: {exc}"
        ) from None
    if error:
        raise RuntimeError(f"{what} failed on rank 0, which does it for every rank: {error}")
