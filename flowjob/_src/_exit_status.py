"""The process's exit status when something was lost at interpreter exit (a callback raised,
an event file could not be written): status 1 instead of 0.

A shared leaf so that runtime/ and summary/ mark failures without knowing each other. Its exit
hook is registered when this module is first imported, before any hook of the modules that
import it, so it runs after them (atexit runs hooks last-in, first-out).
"""

from __future__ import annotations

import atexit
import os
import sys

_failed = False


def mark_exit_failure() -> None:
    """Makes the process exit with status 1 once every other exit hook has run."""
    global _failed
    _failed = True


@atexit.register
def _exit_if_failed() -> None:
    if not _failed:
        return
    # atexit hooks cannot change the exit status; end the process with status 1 instead, once
    # the output that exiting normally would still write is out.
    if "logging" in sys.modules:
        sys.modules["logging"].shutdown()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001 - a closed stream: nothing more to write
            pass
    os._exit(1)
