"""Where the coordinator is, how many processes there are, which one this is, and the
timeouts of their waits: what every module of the several-process package shares."""

from __future__ import annotations

import dataclasses
import os
import sys

from ..errors import ConfigError


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


def say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)
