"""The hosted coordination service's check that ``flowjob launch`` ended
(processes/_service._gone): a launcher that exited but that its parent has not reaped yet
(a zombie) counts as ended, so the service does not linger behind it."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from flowjob._src.processes._service import _gone, process_state

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc")


def test_a_running_process_is_not_gone():
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        assert not _gone(proc.pid)
    finally:
        proc.kill()
        proc.wait()


def test_an_exited_process_not_yet_reaped_is_gone_and_so_is_a_reaped_one():
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    deadline = time.monotonic() + 60
    while process_state(proc.pid) != b"Z":  # exited; Popen reaps only when asked
        assert time.monotonic() < deadline, "the child did not exit"
        time.sleep(0.05)
    assert _gone(proc.pid)
    proc.wait()
    assert _gone(proc.pid)
