"""JAX's coordination service, hosted by a child process of rank 0 that outlives it.

``jax.distributed.initialize`` starts the coordination service inside rank 0. Had it stayed
there, a rank 0 killed by a signal would take the service with it, and JAX's client in every
other process answers the loss of the service at once with a C++ abort (a "Check failure"
stack, SIGABRT), before anything in Python can say what happened. Hosted by a child process,
the service outlives rank 0: the other ranks' watches (processes/_ranks.py) see rank 0's
heartbeat stop and end their processes with a ``RankFailedError`` naming it, as for any
other rank.

The child is the same service JAX would start (same factory, same arguments), bound to the
same address. It ignores SIGINT and SIGTERM (a Ctrl-C or a scheduler's SIGTERM reaches the
whole process group; the ranks stop themselves). It ends when rank 0 shuts the service down
(``jax.distributed.shutdown``, after every rank left its shutdown barrier), or, should rank 0
end without doing so, once the other ranks had time to notice and leave
(:func:`linger_seconds`).
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

READY = "ready"
DONE = "done"
LEAVE = "leave"  # rank 0 ends without shutting its client down: go once it has gone
START_TIMEOUT = 120.0  # seconds for the child to import jaxlib and bind, on a loaded machine


def linger_seconds(heartbeat: float) -> float:
    """How long the service stays after rank 0 ended without shutting it down: the other
    ranks notice within the heartbeat timeout, then leave."""
    return 2 * heartbeat + 10


class HostedService:
    """Rank 0's handle on the child process; JAX keeps it as its service and calls
    :meth:`shutdown` at ``jax.distributed.shutdown``."""

    def __init__(self, library: str, address: str, settings: dict[str, Any], linger: float):
        arguments = json.dumps({"library": library, "address": address, "settings": settings})
        # The file alone, not the flowjob package: the service starts in a fraction of a second.
        run = f"import runpy; runpy.run_path({__file__!r}, run_name='__main__')"
        self.process = subprocess.Popen(
            [sys.executable, "-c", run, arguments, str(linger)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,  # a terminal's Ctrl-C goes to the ranks only
        )
        self.address = address
        self._wait_until_ready()

    def _wait_until_ready(self) -> None:
        from ..errors import ConfigError

        lines: list[str] = []
        reader = threading.Thread(
            target=lambda: lines.append(self.process.stdout.readline()), daemon=True
        )
        reader.start()
        reader.join(START_TIMEOUT)
        if lines and lines[0].strip() == READY:
            return
        self.process.kill()
        error = self.process.stderr.read().strip().splitlines()[-5:]
        raise ConfigError(
            f"the coordination service for {self.address} did not start"
            + (f": {' / '.join(error)}" if error else f" within {START_TIMEOUT:.0f} s")
        )

    def shutdown(self) -> None:
        """Every rank has left: the service goes now."""
        self._say(DONE)
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()

    def leave(self) -> None:
        """Every other rank has left, and rank 0 ends: the service goes as soon as rank 0 is
        gone (before, its client would get the service's goodbye as an error)."""
        self._say(LEAVE)

    def _say(self, word: str) -> None:
        with contextlib.suppress(OSError, ValueError):  # the child is gone already
            self.process.stdin.write(word + "\n")
            self.process.stdin.close()


_hosted: list[HostedService] = []


def release() -> None:
    """Rank 0 ends after every other rank left (processes/_ranks.py): no need to linger."""
    for service in _hosted:
        service.leave()


@contextlib.contextmanager
def not_hosted(linger: float) -> Iterator[None]:
    """Ranks other than 0 host nothing."""
    yield


@contextlib.contextmanager
def hosted_by_a_child(linger: float) -> Iterator[None]:
    """While ``jax.distributed.initialize`` runs in rank 0, the service it starts is hosted
    by a child process. A JAX whose layout differs keeps the service in this process."""
    from jax._src import distributed

    library = getattr(distributed, "_jax", None)
    create = getattr(library, "get_distributed_runtime_service", None)
    if create is None:
        yield
        return

    def create_in_a_child(address: str, num_nodes: int, **settings: Any) -> HostedService:
        settings["num_nodes"] = num_nodes
        # Recoverable tasks: the service sends no client an error when a rank leaves or
        # stops beating (JAX answers one with a fatal abort of the process; the rank watch
        # names it instead), and its shutdown barrier waits for no rank that left.
        settings["recoverable"] = True
        service = HostedService(library.__name__, address, settings, linger)
        _hosted.append(service)
        return service

    library.get_distributed_runtime_service = create_in_a_child
    try:
        yield
    finally:
        library.get_distributed_runtime_service = create


def _serve(arguments: dict[str, Any], linger: float) -> None:
    """The child: starts the service, says so, and waits for ``done`` or its parent's end."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    library = importlib.import_module(arguments["library"])
    settings = arguments["settings"]
    num_nodes = settings.pop("num_nodes")
    service = library.get_distributed_runtime_service(arguments["address"], num_nodes, **settings)
    print(READY, flush=True)
    # Nobody reads these pipes any more; JAX's own log lines go nowhere.
    quiet = os.open(os.devnull, os.O_WRONLY)
    os.dup2(quiet, 1)
    os.dup2(quiet, 2)
    parent = os.getppid()
    word = _wait_for_word_or_orphan(parent)
    if word == LEAVE:  # rank 0 ends now: go once it has (at most a minute)
        deadline = time.monotonic() + 60
        while os.getppid() == parent and time.monotonic() < deadline:
            time.sleep(0.02)
    if word in (DONE, LEAVE):
        service.shutdown()
        os._exit(0)
    # Rank 0 ended without shutting the service down: killed, or it stopped on a failure
    # while other ranks may still be running. They notice its silence, then leave.
    deadline = time.monotonic() + linger
    while time.monotonic() < deadline:
        time.sleep(0.5)
        _end_with_the_launcher()
    os._exit(0)


def _wait_for_word_or_orphan(parent: int) -> str:
    """The line rank 0 sends, or "" once it is gone: the pipe closed, or this process was
    handed to another parent (a process rank 0 forked may keep the pipe open). Ends this
    process at once when ``flowjob launch`` ended (its ranks ended with it)."""
    while os.getppid() == parent:
        ready, _, _ = select.select([sys.stdin], [], [], 1.0)
        if ready:
            return sys.stdin.readline().strip()
        _end_with_the_launcher()
    return ""


def _end_with_the_launcher() -> None:
    """Under ``flowjob launch`` (``FLOWJOB_LAUNCHER_PID``), the service has nobody left to
    serve once the launcher is gone: it takes its ranks along (flowjob/_src/cli)."""
    text = os.environ.get("FLOWJOB_LAUNCHER_PID", "")
    if text.isdigit() and _gone(int(text)):
        os._exit(0)


def _gone(pid: int) -> bool:
    """Whether process ``pid`` has ended: no such process, another user's (the pid was
    reused), or a zombie that its parent has not reaped yet (it answers signal 0, but runs
    nothing: a launcher ended under a parent that waits for it later)."""
    try:
        os.kill(pid, 0)
    except OSError:  # ProcessLookupError, or PermissionError: another user's process now
        return True
    try:
        state = process_state(pid)
    except FileNotFoundError:  # ended meanwhile; without /proc, signal 0 is all there is
        return os.path.isdir("/proc/self")
    except (OSError, IndexError):
        return False
    return state in (b"Z", b"X")


def process_state(pid: int) -> bytes:
    """The state letter of ``/proc/<pid>/stat`` (R, S, Z...); raises OSError without it."""
    with open(f"/proc/{pid}/stat", "rb") as f:
        return f.read().rsplit(b")", 1)[1].split()[0]  # the name before it may hold ")"


if __name__ == "__main__":
    _serve(json.loads(sys.argv[1]), float(sys.argv[2]))
