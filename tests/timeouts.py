"""Time bounds of the tests' waits (subprocesses, servers, browsers), scaled to the machine.

A bound that suits an idle machine fails a correct test on a busy one: the suite shares its
cores with whatever else runs. ``scaled(seconds)`` multiplies a bound by the machine's load
(the 1-minute load average per CPU core, read when the wait starts, at least 1) and by
``FLOWJOB_TEST_TIMEOUT_SCALE`` (default 1) when that is larger, so a loaded machine makes the
suite slower, never red. Every bound on a wait in the tests goes through it.
"""

from __future__ import annotations

import os

__all__ = ["load_factor", "scaled"]


def load_factor() -> float:
    """How many runnable tasks share each CPU core now (at least 1)."""
    try:
        load = os.getloadavg()[0]
    except OSError:  # no load average on this platform
        return 1.0
    return max(1.0, load / (os.cpu_count() or 1))


def scaled(seconds: float) -> float:
    """``seconds`` stretched by the machine's load or ``FLOWJOB_TEST_TIMEOUT_SCALE``."""
    factor = max(load_factor(), float(os.environ.get("FLOWJOB_TEST_TIMEOUT_SCALE", "1")))
    return seconds * factor
