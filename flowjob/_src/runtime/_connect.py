"""Joining the processes of a multi-process job through ``jax.distributed``.

Rank 0 hosts the coordinator, bound to the address the user named only (JAX binds every
interface unless told), after checking that its port is free (a busy port otherwise crashes
the coordination service); a child process of rank 0 runs it, so that it outlives rank 0
(runtime/_service.py). While the others have not joined, each process says whom it waits
for within :data:`NOTICE_AFTER` seconds, and gives up at ``FLOWJOB_INIT_TIMEOUT``. Once all
joined, runtime/_ranks.py watches the other ranks (fail fast) and SIGTERM.
"""

from __future__ import annotations

import dataclasses
import errno
import os
import socket
import sys
import threading
import time

from ..errors import ConfigError, RankFailedError

NOTICE_AFTER = 5.0  # seconds before the first "waiting for rank ..." notice
NOTICE_EVERY = 30.0


@dataclasses.dataclass(frozen=True)
class Timeouts:
    """Seconds, from ``FLOWJOB_INIT_TIMEOUT`` (wait for every process to join; default 300),
    ``FLOWJOB_HEARTBEAT_TIMEOUT`` (a process silent this long is declared dead; default 10)
    and ``FLOWJOB_SYNC_TIMEOUT`` (wait at a checkpoint barrier or input check; default 600)."""

    init: float = 300.0
    heartbeat: float = 10.0
    sync: float = 600.0

    @classmethod
    def from_env(cls) -> Timeouts:
        values = {}
        for field in dataclasses.fields(cls):
            name = f"FLOWJOB_{field.name.upper()}_TIMEOUT"
            text = os.environ.get(name)
            if text is None:
                continue
            try:
                value = float(text)
            except ValueError:
                value = -1.0
            if not value > 0:
                raise ConfigError(f"{name} must be a positive number of seconds, got {text!r}")
            values[field.name] = value
        return cls(**values)


@dataclasses.dataclass(frozen=True)
class World:
    """Where the coordinator is, how many processes there are and which one this is."""

    host: str
    port: int
    size: int
    rank: int

    @classmethod
    def parse(cls, coordinator: str, count: str, rank: str) -> World:
        host, sep, port = coordinator.rpartition(":")
        host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
        if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise ConfigError(
                f"FLOWJOB_COORDINATOR must be HOST:PORT (e.g. 127.0.0.1:29500), got {coordinator!r}"
            )
        try:
            size, index = int(count), int(rank)
        except ValueError:
            raise ConfigError(
                f"FLOWJOB_NUM_PROCESSES and FLOWJOB_PROCESS_ID must be integers, got {count!r} "
                f"and {rank!r}"
            ) from None
        if size < 1 or not 0 <= index < size:
            raise ConfigError(
                f"FLOWJOB_PROCESS_ID must be in [0, FLOWJOB_NUM_PROCESSES), got rank {index} of "
                f"{size}"
            )
        return cls(host, int(port), size, index)

    @property
    def address(self) -> str:
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"

    def others_text(self) -> str:
        """Whom this process waits for while joining."""
        if self.rank:
            return f"rank 0 of {self.size} (the coordinator) at {self.address}"
        missing = self.size - 1
        who = "rank 1" if missing == 1 else f"ranks 1-{missing} (or some of them)"
        return f"{who} of {self.size} to join the coordinator at {self.address}"


def check_port_free(world: World) -> None:
    """Binds the coordinator's address once, so that a busy port or an address that is not
    this machine's is a clear error rather than a crash of the coordination service."""
    try:
        infos = socket.getaddrinfo(world.host, world.port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise ConfigError(
            f"coordinator {world.address}: cannot resolve host {world.host!r} ({exc})"
        ) from None
    family, kind, proto, _, sockaddr = infos[0]
    with socket.socket(family, kind, proto) as probe:
        try:
            probe.bind(sockaddr)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise ConfigError(
                    f"coordinator port {world.port} on {world.host} is already in use (another "
                    "program, or an earlier run still exiting): choose another port in "
                    "FLOWJOB_COORDINATOR (flowjob launch --coordinator HOST:PORT)"
                ) from None
            raise ConfigError(
                f"rank 0 hosts the coordinator but cannot bind {world.address} ({exc.strerror}): "
                "run rank 0 on that host, or name one of its addresses in FLOWJOB_COORDINATOR"
            ) from None


class _JoinNotice:
    """Says whom a joining process waits for, and ends it at the init timeout (JAX's own
    timeout, set longer, aborts the process with a C++ stack)."""

    def __init__(self, world: World, timeouts: Timeouts):
        self.world, self.timeouts = world, timeouts
        self.done = threading.Event()
        self.started = time.monotonic()
        self.thread = threading.Thread(target=self._run, name="flowjob-join", daemon=True)

    def _run(self) -> None:
        limit = self.timeouts.init  # before JAX's own, which aborts the process
        wait = NOTICE_AFTER
        while not self.done.wait(min(wait, max(0.1, limit - self.elapsed()))):
            if self.elapsed() >= limit:
                say(f"flowjob: flowjob.errors.{RankFailedError.__name__}: {self.gave_up()}")
                os._exit(1)
            say(
                f"flowjob: rank {self.world.rank} of {self.world.size}: waiting for "
                f"{self.world.others_text()} ({self.elapsed():.0f} s so far; giving up after "
                f"{self.timeouts.init:.0f} s, FLOWJOB_INIT_TIMEOUT)"
            )
            wait = NOTICE_EVERY

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def gave_up(self) -> str:
        return (
            f"rank {self.world.rank} of {self.world.size} gave up after "
            f"{self.elapsed():.0f} s waiting for {self.world.others_text()} "
            "(FLOWJOB_INIT_TIMEOUT): start every process with the same FLOWJOB_COORDINATOR and "
            "FLOWJOB_NUM_PROCESSES, one per FLOWJOB_PROCESS_ID"
        )


def connect(world: World, timeouts: Timeouts) -> None:
    """Starts ``jax.distributed`` for this process, then the rank watch."""
    import jax

    from . import _ranks, _service

    if world.rank == 0:
        check_port_free(world)
    # flowjob stops all ranks on SIGTERM itself (runtime/_ranks.py); JAX's preemption
    # notifier would swallow the signal.
    jax.config.update("jax_enable_preemption_service", False)
    notice = _JoinNotice(world, timeouts)
    notice.thread.start()
    hosting = _service.hosted_by_a_child if world.rank == 0 else _service.not_hosted
    try:
        with hosting(_service.linger_seconds(timeouts.heartbeat)):
            jax.distributed.initialize(
                coordinator_address=world.address,
                num_processes=world.size,
                process_id=world.rank,
                initialization_timeout=int(timeouts.init + 60),
                coordinator_bind_address=world.address,
                # flowjob's own watch (heartbeat timeout) reports a lost rank first and
                # clearly; JAX's, which aborts the process, stays as a backstop.
                heartbeat_timeout_seconds=int(max(60.0, 4 * timeouts.heartbeat)),
                shutdown_timeout_seconds=int(max(30.0, 2 * timeouts.heartbeat)),
            )
    except Exception as exc:  # noqa: BLE001 - JAX's errors name no rank and no remedy
        raise RankFailedError(
            f"rank {world.rank} of {world.size} could not join the coordinator at "
            f"{world.address}: {exc}"
        ) from None
    finally:
        notice.done.set()
    _ranks.start(world, timeouts)


def say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)
