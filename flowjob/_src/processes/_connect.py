"""Joining the processes of a multi-process job through ``jax.distributed``.

Rank 0 hosts the coordinator, bound to the address the user named only (JAX binds every
interface unless told), after checking that its port is free (a busy port otherwise crashes
the coordination service); a child process of rank 0 runs it, so that it outlives rank 0
(processes/_service.py). While the others have not joined, each process says whom it waits
for within :data:`NOTICE_AFTER` seconds, and gives up at ``FLOWJOB_INIT_TIMEOUT``. Once all
joined, processes/_ranks.py watches the other ranks (fail fast) and SIGTERM.
"""

from __future__ import annotations

import errno
import os
import socket
import sys
import tempfile
import threading
import time

from ..errors import ConfigError, RankFailedError
from . import _client, _hooks, _service, _stop
from ._world import Timeouts, World, say

NOTICE_AFTER = 5.0  # seconds before the first "waiting for rank ..." notice
NOTICE_EVERY = 30.0


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


_claims: list[int] = []  # the lock file rank 0 holds for its life


def _claim_path(world: World) -> str:
    return os.path.join(tempfile.gettempdir(), f"flowjob-coordinator-{world.port}.lock")


def claim_coordinator(world: World) -> None:
    """Rank 0 locks a file named by the coordinator's port on this machine for its life.
    A second process started as rank 0 (``FLOWJOB_PROCESS_ID=0`` twice) is refused naming
    the first, and leaves a line the first one's join notices repeat; otherwise both would
    host a coordinator on the one port and wait for rank 1."""
    try:
        import fcntl
    except ImportError:  # not POSIX: the port check alone
        return
    path = _claim_path(world)
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
    except OSError:  # another user's file: the port check alone
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        lines = os.pread(fd, 65536, 0).decode(errors="replace").split("\n")
        holder = next((ln.split()[1] for ln in reversed(lines) if ln.startswith("rank0 ")), "?")
        os.write(fd, f"twice {os.getpid()} {socket.gethostname()}\n".encode())
        os.close(fd)
        raise ConfigError(
            f"two processes are rank 0 of the job at {world.address}: process {holder} on this "
            f"machine is rank 0 already (FLOWJOB_PROCESS_ID=0 twice): give each process its own "
            f"FLOWJOB_PROCESS_ID, 0 to {world.size - 1}"
        ) from None
    if os.fstat(fd).st_size > 65536:
        os.ftruncate(fd, 0)
    mine = f"rank0 {os.getpid()}\n".encode()
    os.write(fd, mine)
    _claims.append(fd)


def duplicates(world: World) -> str:
    """Processes refused as a second rank 0 since this one claimed the coordinator."""
    if not _claims:
        return ""
    text = os.pread(_claims[0], 65536, 0).decode(errors="replace")
    mine = f"rank0 {os.getpid()}\n"
    after = text[text.rfind(mine) + len(mine) :] if mine in text else ""
    pids = list(dict.fromkeys(ln.split()[1] for ln in after.split("\n") if ln.startswith("twice ")))
    if not pids:
        return ""
    return (
        f"; process {', '.join(pids)} was started as rank 0 too (FLOWJOB_PROCESS_ID=0 twice): "
        f"give each process its own FLOWJOB_PROCESS_ID, 0 to {world.size - 1}"
    )


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
                f"{self.timeouts.init:.0f} s, FLOWJOB_INIT_TIMEOUT){duplicates(self.world)}"
            )
            wait = NOTICE_EVERY

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def gave_up(self) -> str:
        return (
            f"rank {self.world.rank} of {self.world.size} gave up after "
            f"{self.elapsed():.0f} s waiting for {self.world.others_text()} "
            "(FLOWJOB_INIT_TIMEOUT): start every process with the same FLOWJOB_COORDINATOR and "
            f"FLOWJOB_NUM_PROCESSES, one per FLOWJOB_PROCESS_ID{duplicates(self.world)}"
        )


def connect(world: World, timeouts: Timeouts) -> None:
    """Starts ``jax.distributed`` for this process, then the rank watch."""
    import jax

    if world.rank == 0:
        claim_coordinator(world)
        check_port_free(world)
    # flowjob stops all ranks on SIGTERM itself (processes/_ranks.py); JAX's preemption
    # notifier would swallow the signal.
    jax.config.update("jax_enable_preemption_service", False)
    notice = _JoinNotice(world, timeouts)
    notice.thread.start()
    hosting = _service.hosted_by_a_child if world.rank == 0 else _service.not_hosted
    try:
        with hosting(_service.linger_seconds(timeouts.heartbeat)), _client.on_flowjobs_terms():
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
    watch = _hooks.start(world, timeouts)
    _stop.start(watch)
    watch.start()
