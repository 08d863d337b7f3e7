"""Who the other ranks are: host, process id, process-id namespace and world size, as each
rank publishes them once it joined (``flowjob/host/<rank>``).

The process id tells a rank on the same machine (and in the same process-id namespace) that
a silent peer's process is gone (``os._exit``, a crash, a signal), a second or so after its
heartbeat stopped rather than after the whole heartbeat timeout. The world size tells ranks
started with different ``FLOWJOB_NUM_PROCESSES``.
"""

from __future__ import annotations

import os
import socket

HOSTS = "flowjob/host/"


def _namespace() -> str:
    """This process's process-id namespace ("" where it cannot be read)."""
    try:
        return os.readlink("/proc/self/ns/pid")
    except OSError:
        return ""


class Peers:
    """What this rank knows of every rank (itself included)."""

    def __init__(self, rank: int, size: int):
        self.rank, self.size = rank, size
        self.hosts: dict[int, str] = {rank: socket.gethostname()}
        self.pids: dict[int, int] = {}
        self.namespace = _namespace()
        self.sizes: dict[int, int] = {rank: size}

    def record(self) -> str:
        """This rank's entry: ``host pid size namespace``."""
        return f"{self.hosts[self.rank]} {os.getpid()} {self.size} {self.namespace}".strip()

    def read(self, entries: list[tuple[str, str]]) -> None:
        """Takes in the entries of ``flowjob/host/``.

        Examples:
            >>> peers = Peers(0, 2)
            >>> peers.read([("flowjob/host/1", "node7 4242 3 pid:[1]")])
            >>> peers.hosts[1], peers.sizes[1]
            ('node7', 3)
        """
        for key, value in entries:
            rank_text = key.rsplit("/", 1)[1]
            if not rank_text.isdigit() or int(rank_text) == self.rank:
                continue
            rank = int(rank_text)
            host, pid, size, namespace = (value.split(" ") + ["", "", ""])[:4]
            self.hosts[rank] = host
            if pid.isdigit() and namespace and namespace == self.namespace:
                if host == self.hosts[self.rank]:
                    self.pids[rank] = int(pid)
            if size.isdigit():
                self.sizes[rank] = int(size)

    def complete(self) -> bool:
        return len(self.hosts) >= self.size

    def who(self, rank: int) -> str:
        host = self.hosts.get(rank, "unknown host")
        return f"rank {rank} of {self.size} (host {host})"

    def size_mismatch(self) -> str:
        """The message naming a rank started with another ``FLOWJOB_NUM_PROCESSES``, or ""."""
        for rank, size in sorted(self.sizes.items()):
            if size != self.size:
                return (
                    f"FLOWJOB_NUM_PROCESSES differs between the ranks: {self.size} in "
                    f"{self.who(self.rank)}, {size} in rank {rank} (host {self.hosts[rank]}): "
                    "start every process with the same FLOWJOB_NUM_PROCESSES"
                )
        return ""

    def gone(self, rank: int) -> bool:
        """True when ``rank`` runs on this machine and its process no longer runs."""
        pid = self.pids.get(rank)
        if pid is None:
            return False
        try:
            with open(f"/proc/{pid}/stat") as stat:
                state = stat.read().rpartition(")")[2].split()[0]
        except (OSError, IndexError):
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return True
            except OSError:  # someone else's process now: not ours to judge
                return False
            return False
        return state in ("Z", "X")  # a zombie: it ended, its parent has not reaped it yet
