"""Host memory that stays with the process between steps, instead of going back to the kernel
and being faulted in again at the next step, for programs large enough to gain from it.

XLA:CPU allocates a program's temporary buffers at every execution and frees them at its
end. With glibc's default malloc, each of XLA's pool threads allocates in an arena of its own,
large buffers are ``mmap``-ed, and freed heaps are unmapped or trimmed, so every step faults
all its pages in again: training ResNet-50 at batch 8 on a 2-core machine took ~350,000 minor
page faults and ~0.8 s of kernel time per step (bench/NOTES.md). One arena, no ``mmap``-ed
chunks and no trimming keep the pages for the next step: no faults, ~0.03 s of kernel
time. These are glibc's ``MALLOC_ARENA_MAX=1``, ``MALLOC_MMAP_MAX_=0`` and
``MALLOC_TRIM_THRESHOLD_`` (off) settings, made through ``mallopt`` when flowjob starts the JAX
backend (before XLA's threads first allocate: glibc gives a thread its arena at its first
``malloc``), never at import.

The price: freed memory is kept for reuse rather than returned to the system, and the kept
heap grows past one step's peak (small allocations take pieces of the freed step buffer, so
the next step's buffer no longer fits in it: ResNet-50 batch 8, 3.2-4.6 GB against 2.0-2.4
GB), and the one arena that all threads share costs a small program's step a few percent
(the MLP: ~5%). So ``FLOWJOB_HOST_MALLOC`` chooses:

- ``auto`` (the default): kept when the first job the process compiles is large, its traced
  ops' outputs reaching ``LARGE`` bytes (its step buffer then reaches the 32 MB from which
  glibc ``mmap``-s every request), else glibc's own settings. The runtime traces that job before
  the backend starts to know its size (runtime/_session.py), where the program can only
  run on the CPU and in one process; elsewhere nothing changes;
- ``system``: glibc's settings as they are;
- ``retain``: kept, whatever the size.

Malloc settings of the user's own (``MALLOC_*`` variables, glibc tunables) are left alone.
"""

from __future__ import annotations

import ctypes
import functools
import os
import platform
import sys

__all__ = ["ENV", "LARGE", "deciding", "retain_host_memory"]

ENV = "FLOWJOB_HOST_MALLOC"
_CHOICES = ("auto", "system", "retain")
LARGE = 32 << 20  # bytes of a traced job's op outputs from which ``auto`` keeps host memory

# mallopt parameters (glibc's malloc.h) and the values that keep freed memory in the process.
_M_TRIM_THRESHOLD, _M_MMAP_MAX, _M_ARENA_MAX = -1, -4, -8
_SETTINGS = ((_M_ARENA_MAX, 1), (_M_MMAP_MAX, 0), (_M_TRIM_THRESHOLD, -1))  # -1: never trim
# The user's own malloc configuration, which flowjob does not override.
_USER_KNOBS = ("MALLOC_ARENA_MAX", "MALLOC_MMAP_MAX_", "MALLOC_TRIM_THRESHOLD_", "MALLOC_TOP_PAD_")

_applied: bool | None = None


def _choice() -> str:
    choice = os.environ.get(ENV, "auto")
    if choice not in _CHOICES:
        raise ValueError(f"{ENV} must be one of {', '.join(_CHOICES)}; got {choice!r}")
    return choice


def deciding() -> bool:
    """Whether the choice waits for the size of the first job (``auto``, not made yet, on a
    glibc whose malloc the user left alone); raises for an unknown ``FLOWJOB_HOST_MALLOC``.

    >>> deciding() in (True, False)
    True
    """
    return _choice() == "auto" and _applied is None and _user_left_malloc_alone() and _glibc()


def retain_host_memory(program_bytes: int | None = None) -> bool:
    """Sets glibc's malloc to keep freed memory for the process (see the module's text),
    once, as ``FLOWJOB_HOST_MALLOC`` says; ``program_bytes``: the traced size of the first
    job (``auto`` keeps the memory from ``LARGE`` bytes; ``None``, not known: it does not).
    Returns whether the settings are in force.

    >>> retain_host_memory() in (True, False)
    True
    """
    global _applied
    choice = _choice()
    if _applied is None:
        large = program_bytes is not None and program_bytes >= LARGE
        wanted = choice == "retain" or (choice == "auto" and large)
        _applied = wanted and _user_left_malloc_alone() and _mallopt_all()
    return _applied


def _user_left_malloc_alone() -> bool:
    if any(k in os.environ for k in _USER_KNOBS):
        return False
    return "malloc" not in os.environ.get("GLIBC_TUNABLES", "")


@functools.cache
def _glibc() -> bool:
    return sys.platform.startswith("linux") and platform.libc_ver()[0] == "glibc"


def _mallopt_all() -> bool:
    if not _glibc():
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt  # the process's own malloc
    except (OSError, AttributeError):
        return False
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    return all(mallopt(param, value) == 1 for param, value in _SETTINGS)
