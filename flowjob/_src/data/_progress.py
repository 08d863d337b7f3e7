"""A plain progress line on stderr for long dataset scans and writes (no dependency)."""

from __future__ import annotations

import sys
import time
from typing import TextIO


class Progress:
    """``<what>: <done>[/<total>] <unit>`` rewritten at most every ``interval`` seconds, on a
    terminal in place (carriage return), elsewhere as separate lines; ``close`` prints the
    final count if anything was shown (a job shorter than ``interval`` prints nothing).
    Quiet when ``enabled`` is False."""

    def __init__(
        self,
        what: str,
        total: int | None = None,
        unit: str = "records",
        stream: TextIO | None = None,
        interval: float = 1.0,
        enabled: bool = True,
    ):
        self.what, self.total, self.unit = what, total, unit
        self.stream = stream if stream is not None else sys.stderr
        self.interval = interval
        self.enabled = enabled
        self.done = 0
        self._tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self._last = time.monotonic()
        self._shown = False

    def update(self, n: int = 1) -> None:
        self.done += n
        now = time.monotonic()
        if self.enabled and now - self._last >= self.interval:
            self._last = now
            self._write(final=False)

    def close(self) -> None:
        if self.enabled and self._shown:  # short jobs stay quiet
            self._write(final=True)

    def _write(self, final: bool) -> None:
        of = f"/{self.total:,}" if self.total is not None else ""
        text = f"{self.what}: {self.done:,}{of} {self.unit}"
        if self._tty:
            self.stream.write("\r" + text + ("\n" if final else ""))
        else:
            self.stream.write(text + "\n")
        self.stream.flush()
        self._shown = True
