"""The rank processes of ``flowjob launch``: started so that none outlives the launcher, and
their output passed on as it comes.

* Each rank gets the default disposition of SIGINT, SIGTERM and SIGHUP (a launcher started
  with SIGINT ignored, by ``nohup`` or as a script's background job, would otherwise hand
  that on, and its forwarding would do nothing) and, on Linux, the parent-death signal
  SIGKILL (``prctl(PR_SET_PDEATHSIG)``): a launcher killed by SIGKILL takes its ranks along.
  The coordination service rank 0 hosts in a child of its own ends with the launcher too
  (it is told the launcher's pid, ``FLOWJOB_LAUNCHER_PID``; flowjob/_src/processes/_service.py).
* The ranks share one process group, apart from the launcher's: a terminal's Ctrl-C reaches
  the launcher only, which forwards it once to the whole group (:func:`signal_group`).
  Their stdin is /dev/null (a process group in the background may not read the terminal).
* Output is read in chunks, not lines: a progress bar redrawn with ``\\r`` shows as it is
  drawn, each redrawn line still prefixed with its rank.
"""

from __future__ import annotations

import ctypes
import os
import re
import signal
import subprocess
import sys
import threading
from collections.abc import Sequence
from typing import IO

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
_RESET = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
_ENDS = re.compile(rb"\r\n|\r|\n")  # where a line (or a redrawn line) ends


def _die_with(parent: int) -> None:
    """In the child before exec: SIGKILL when the launcher ends (Linux)."""
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:  # the launcher ended before prctl: follow it now
        os._exit(1)


def _prepare(parent: int, group: list[int]) -> None:
    """``preexec_fn`` of a rank (runs before any thread of the launcher exists)."""
    for number in _RESET:
        signal.signal(number, signal.SIG_DFL)
    try:
        os.setpgid(0, group[0] if group else 0)
    except OSError:  # the first rank ended already: a group of its own (signalled one by one)
        os.setpgid(0, 0)
    _die_with(parent)


def spawn(command: Sequence[str], envs: Sequence[dict[str, str]]) -> list[subprocess.Popen]:
    """Starts one process per environment, all in one new process group. Call it before
    starting any thread: ``preexec_fn`` is not safe once threads run."""
    parent = os.getpid()
    group: list[int] = []
    procs = []
    for env in envs:
        proc = subprocess.Popen(
            list(command),
            env=dict(env, FLOWJOB_LAUNCHER_PID=str(parent)),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            preexec_fn=lambda: _prepare(parent, group),  # noqa: PLW1509 - no thread yet
        )
        if not group:
            group.append(proc.pid)
        procs.append(proc)
    return procs


def signal_group(procs: Sequence[subprocess.Popen], number: int) -> None:
    """Sends ``number`` to the ranks' process group (their own children included)."""
    groups = {procs[0].pid} if procs else set()
    for proc in procs:  # a rank whose group could not be the first's has its own
        if proc.poll() is None:
            try:
                groups.add(os.getpgid(proc.pid))
            except OSError:
                pass
    for group in groups:
        try:
            os.killpg(group, number)
        except OSError:  # every process of that group has ended
            pass


def pump(stream: IO[bytes], out: IO[str], prefix: bytes, lock: threading.Lock) -> None:
    """Copies a rank's output to ``out`` as it comes, each line (or line redrawn after a
    ``\\r``) starting with ``prefix``. Goes on reading when ``out`` fails (a closed terminal),
    so that the rank never blocks on a full pipe."""
    fd = stream.fileno()
    line_start, after_cr = True, False
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        pieces, last = [], 0
        for end in _ENDS.finditer(chunk):
            pieces.append(chunk[last : end.end()])
            last = end.end()
        if last < len(chunk):
            pieces.append(chunk[last:])
        text = bytearray()
        for piece in pieces:
            if after_cr and piece.startswith(b"\n"):  # "\r\n" split between two chunks
                text += b"\n"
                piece = piece[1:]
                line_start = True
            after_cr = False
            if not piece:
                continue
            if line_start and piece != b"\r":  # a bare "\r" only moves to the line's start
                text += prefix
            text += piece
            line_start = piece.endswith((b"\n", b"\r"))
            after_cr = piece.endswith(b"\r")
        _write(out, bytes(text), lock)
    if not line_start:
        _write(out, b"\n", lock)
    stream.close()


def _write(out: IO[str], data: bytes, lock: threading.Lock) -> None:
    with lock:
        try:
            out.buffer.write(data)
            out.flush()
        except (OSError, ValueError):  # the terminal is gone: the rank goes on regardless
            pass
