"""A program ``flowjob launch`` runs in the launcher tests (no job: it starts no JAX).

``python -m flowjob launch --nproc N _launched_program.py SCENARIO WORKDIR``:
``wait``: says its pid and its SIGINT handler, then waits (for a signal);
``progress``: draws a progress line with ``\\r`` (no newline) and ends the line only once the
file WORKDIR/go exists.
"""

import os
import signal
import sys
import time

SCENARIO, WORKDIR = sys.argv[1], sys.argv[2]
RANK = os.environ["FLOWJOB_PROCESS_ID"]

if SCENARIO == "wait":
    handler = signal.getsignal(signal.SIGINT)
    print(f"pid {os.getpid()} sigint {getattr(handler, '__name__', handler)}", flush=True)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        time.sleep(0.1)
if SCENARIO == "progress":
    for step in range(1, 4):
        sys.stdout.write(f"\rprogress {step}/3")
        sys.stdout.flush()
        time.sleep(0.05)
    deadline = time.monotonic() + 120
    while not os.path.exists(os.path.join(WORKDIR, "go")) and time.monotonic() < deadline:
        time.sleep(0.05)
    print("\nline ended", flush=True)
