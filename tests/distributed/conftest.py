"""The ``cleanup`` fixture of the multi-process tests: every rank a test started is killed
at its end, whatever happened (a stopped one is continued first)."""

from __future__ import annotations

import signal

import pytest


@pytest.fixture
def cleanup():
    started = []
    yield started
    for rank in started:
        if rank.proc.poll() is None:
            rank.proc.send_signal(signal.SIGCONT)
            rank.proc.kill()
