"""What the processes of a multi-process job must agree on, checked through the key-value
store of ``jax.distributed`` at *meetings* every rank attends (processes/_positions.py): the
first call of each job (the same program, and the same arguments: every process feeds the
same global batch) and work that one process does for all (a checkpoint written by rank 0
is complete before any rank's ``save`` returns; a save called by some ranks only is refused
on every rank)."""

from __future__ import annotations

import json
import time
import zlib
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..errors import JobArgumentError, RankFailedError
from ._positions import GUIDE
from ._ranks import RankWatch

MEET = "flowjob/meet/"  # <position>/<rank>: what the rank attends
DATA = "flowjob/meetdata/"  # <position>/<rank>: what it brings (JSON)
OUTLINE = "flowjob/outline/"  # <position>/<rank>: its program, read when they differ
OUTCOME = "flowjob/outcome/"  # <position>: rank 0's outcome of work done for all


def _digest(value: Any) -> str:
    """A cheap fingerprint: shape, dtype and CRC-32 of the bytes (of each piece of a list)."""
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(_digest(v) for v in value) + "]"
    array = np.ascontiguousarray(value) if not isinstance(value, np.ndarray) else value
    if array.dtype == object:
        return f"object{array.shape}"
    data = array if array.flags.c_contiguous else np.ascontiguousarray(array)
    return f"{array.dtype}{list(array.shape)}:{zlib.crc32(data.reshape(-1).view(np.uint8)):08x}"


def _crc(lines: Sequence[str]) -> str:
    return f"{len(lines)}:{zlib.crc32(chr(10).join(lines).encode()):08x}"


def _attend(watch: RankWatch, what: str, data: Any) -> tuple[str, dict[int, Any]]:
    """Waits until every rank attends the meeting ``what`` at the same point of its program;
    returns the meeting's position and what each rank brought. A rank at the same point
    attending another meeting means the programs differ (``RankFailedError`` here; the
    others find the same). A rank that goes on past it instead, or ends its program, is
    found by the watches, which end every rank."""
    position = watch.arrive(what).partition("\t")[0]
    world, client = watch.world, watch.client
    client.key_value_set(f"{DATA}{position}/{world.rank}", json.dumps(data), allow_overwrite=True)
    client.key_value_set(f"{MEET}{position}/{world.rank}", what, allow_overwrite=True)
    deadline = time.monotonic() + watch.timeouts.sync
    pause = 0.005
    while True:
        came = {
            int(k.rsplit("/", 1)[1]): v for k, v in client.key_value_dir_get(f"{MEET}{position}/")
        }
        for rank, theirs in sorted(came.items()):
            if theirs != what:
                raise RankFailedError(
                    f"the ranks' programs differ: after {watch.calls} job call(s), "
                    f"{watch.who(world.rank)} is at {what} and {watch.who(rank)} at "
                    f"{theirs}: {GUIDE}"
                )
        if len(came) >= world.size:
            break
        if time.monotonic() > deadline:
            missing = sorted(set(range(world.size)) - set(came))
            raise RankFailedError(
                f"{what}: {', '.join(watch.who(r) for r in missing)} did not come to it within "
                f"{watch.timeouts.sync:g} s (FLOWJOB_SYNC_TIMEOUT), while "
                f"{watch.who(world.rank)} waited there after {watch.calls} job call(s): {GUIDE}"
            )
        time.sleep(pause)
        pause = min(0.1, pause * 2)
    brought = {
        int(k.rsplit("/", 1)[1]): json.loads(v)
        for k, v in client.key_value_dir_get(f"{DATA}{position}/")
    }
    return position, brought


def check_first_call(
    watch: RankWatch,
    job_name: str,
    params: Any,
    host_args: list[Any],
    outline: Callable[[], list[str]],
) -> None:
    """At the first call of ``job_name``: every rank calls it at the same point of its
    program, with the same program (``outline()``: one line per op) and the same arguments.
    Raises ``RankFailedError`` naming the first op that differs, or ``JobArgumentError``
    naming the first argument that differs (on every rank)."""
    names = [getattr(p, "name", f"#{i}") for i, p in enumerate(params)]
    lines = outline()
    mine = {"program": _crc(lines), "inputs": [_digest(v) for v in host_args[: len(names)]]}
    held = False
    try:
        client = watch.client
        what = f"the first call of job {job_name!r}"
        key = f"{OUTLINE}{watch.calls}/{job_name}/"
        client.key_value_set(f"{key}{watch.world.rank}", json.dumps(lines), allow_overwrite=True)
        _, theirs = _attend(watch, what, mine)
        programs = {r: d["program"] for r, d in theirs.items()}
        if len(set(programs.values())) > 1:
            raise RankFailedError(_program_difference(watch, job_name, key, programs))
        for index, name in enumerate(names):
            values = {
                r: d["inputs"][index] if index < len(d["inputs"]) else None
                for r, d in theirs.items()
            }
            if len(set(values.values())) > 1:
                shown = ", ".join(f"rank {r}: {v}" for r, v in sorted(values.items()))
                raise JobArgumentError(
                    f"job {job_name!r}: argument {name!r} differs between the processes on the "
                    f"first call ({shown}). Every process must pass the same global batch: "
                    "flowjob splits it among all devices of all processes (the consistent view); "
                    "read or generate the data identically in each process (same files, same seed)"
                )
        held = True
    finally:
        watch.depart(held)


def _program_difference(watch: RankWatch, job: str, key: str, programs: dict[int, str]) -> str:
    """Names the first op where another rank's program of ``job`` differs from rank 0's."""
    client = watch.client
    timeout_ms = int(watch.timeouts.sync * 1000)
    first = json.loads(client.blocking_key_value_get(f"{key}0", timeout_ms))
    other = min(r for r, p in programs.items() if p != programs[0])
    second = json.loads(client.blocking_key_value_get(f"{key}{other}", timeout_ms))
    index = next(
        (i for i, (a, b) in enumerate(zip(first, second)) if a != b), min(len(first), len(second))
    )
    shown = {0: first, other: second}
    ops = "; ".join(
        f"{watch.who(r)} has {ops[index] if index < len(ops) else 'no op there'} "
        f"({len(ops)} ops in all)"
        for r, ops in shown.items()
    )
    return f"job {job!r} differs between the ranks at its op #{index + 1}: {ops}: {GUIDE}"


def share_outcome(watch: RankWatch, what: str, work: Callable[[], None]) -> None:
    """Every rank comes to ``what``; rank 0 runs ``work``; every rank returns once it
    finished, or raises its error. Called by some ranks only, it is refused on every rank
    (the watches find a rank that went on instead)."""
    held = False
    try:
        position, _ = _attend(watch, what, None)
        key = f"{OUTCOME}{position}"
        world = watch.world
        if world.rank == 0:
            try:
                work()
            except BaseException as exc:
                watch.client.key_value_set(key, f"{type(exc).__name__}: {exc}")
                raise
            watch.client.key_value_set(key, "")
            held = True
            return
        timeout_ms = int(watch.timeouts.sync * 1000)
        try:
            error = watch.client.blocking_key_value_get(key, timeout_ms)
        except Exception as exc:  # noqa: BLE001 - JAX's timeout names no rank
            raise TimeoutError(
                f"{what}: rank {world.rank} waited {watch.timeouts.sync:g} s "
                f"(FLOWJOB_SYNC_TIMEOUT) for rank 0 to finish it: {exc}"
            ) from None
        held = True
        if error:
            raise RuntimeError(f"{what} failed on rank 0, which does it for every rank: {error}")
    finally:
        watch.depart(held)
