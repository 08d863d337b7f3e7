"""Host memory that stays with the process between steps, instead of going back to the kernel
and being faulted in again at the next step (opt-in: ``FLOWJOB_HOST_MALLOC=retain``).

XLA:CPU allocates a program's temporary buffers at every execution and frees them at its
end. With glibc's default malloc, each of XLA's pool threads allocates in an arena of its own,
large buffers are ``mmap``-ed, and freed heaps are unmapped or trimmed, so every step faults
all its pages in again: training ResNet-50 at batch 8 on a 2-core machine took ~350,000 minor
page faults and ~0.8 s of kernel time per step (bench/NOTES.md). One arena, no ``mmap``-ed
chunks and no trimming keep the pages for the next step: no faults, ~0.03 s of kernel
time. These are glibc's ``MALLOC_ARENA_MAX=1``, ``MALLOC_MMAP_MAX_=0`` and
``MALLOC_TRIM_THRESHOLD_`` (off) settings, made through ``mallopt`` when flowjob starts the JAX
backend (before XLA's threads first allocate), never at import.

The price: memory the process frees is kept for reuse rather than returned to the system,
and the kept heap grows past one step's peak, because small allocations take pieces of the
freed step buffer and the next step's buffer no longer fits in it (ResNet-50 batch 8: 3.2-4.6
GB against 2.0-2.4 GB; bench/NOTES.md): so it is not the default. ``system`` (the default)
keeps glibc's settings; malloc settings of the user's own (``MALLOC_*`` variables, glibc
tunables) are left as they are.
"""

from __future__ import annotations

import ctypes
import os
import platform
import sys

__all__ = ["ENV", "retain_host_memory"]

ENV = "FLOWJOB_HOST_MALLOC"
_CHOICES = ("system", "retain")

# mallopt parameters (glibc's malloc.h) and the values that keep freed memory in the process.
_M_TRIM_THRESHOLD, _M_MMAP_MAX, _M_ARENA_MAX = -1, -4, -8
_SETTINGS = ((_M_ARENA_MAX, 1), (_M_MMAP_MAX, 0), (_M_TRIM_THRESHOLD, -1))  # -1: never trim
# The user's own malloc configuration, which flowjob does not override.
_USER_KNOBS = ("MALLOC_ARENA_MAX", "MALLOC_MMAP_MAX_", "MALLOC_TRIM_THRESHOLD_", "MALLOC_TOP_PAD_")

_applied: bool | None = None


def retain_host_memory() -> bool:
    """Sets glibc's malloc to keep freed memory for the process (see the module's text),
    once; returns whether the settings are in force.

    ``FLOWJOB_HOST_MALLOC`` is ``system`` (the default: nothing changes) or ``retain``;
    anything else raises.
    Nothing is changed off Linux/glibc, or where the user configured malloc already.

    >>> retain_host_memory() in (True, False)
    True
    """
    global _applied
    choice = os.environ.get(ENV, "system")
    if choice not in _CHOICES:
        raise ValueError(f"{ENV} must be one of {', '.join(_CHOICES)}; got {choice!r}")
    if _applied is None:
        _applied = choice == "retain" and _user_left_malloc_alone() and _mallopt_all()
    return _applied


def _user_left_malloc_alone() -> bool:
    if any(k in os.environ for k in _USER_KNOBS):
        return False
    return "malloc" not in os.environ.get("GLIBC_TUNABLES", "")


def _mallopt_all() -> bool:
    if not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc":
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt  # the process's own malloc
    except (OSError, AttributeError):
        return False
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    return all(mallopt(param, value) == 1 for param, value in _SETTINGS)
