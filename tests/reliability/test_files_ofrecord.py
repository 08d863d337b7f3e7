"""A killed OFRecord writer's staging folder is reported by ``ofrecord inspect`` and removed by
the next write of the same data set; the written folder's mode follows the umask."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
from reliability_helpers import REPO, child_env

import flowjob as flow


def test_leftover_is_reported_by_inspect_and_removed_by_the_next_write(tmp_path):
    data = tmp_path / "data"
    flow.data.write_ofrecord(data, {"x": np.arange(6, dtype=np.float32).reshape(3, 2)})
    leftover = tmp_path / ".data.0123456789ab.tmp"  # what a SIGKILLed writer leaves
    leftover.mkdir()
    (leftover / "part-0").write_bytes(b"\x05")
    report = flow.data.inspect_ofrecord(data)
    assert report.ok and any(str(leftover) in note for note in report.notes), report.notes
    proc = subprocess.run(
        [sys.executable, "-m", "flowjob", "ofrecord", "inspect", str(data)],
        env=child_env(),
        capture_output=True,
        text=True,
        timeout=120,
        cwd=str(REPO),
    )
    assert proc.returncode == 0, proc.stderr
    assert f"note: {leftover}: staging folder left by an interrupted write" in proc.stdout
    flow.data.write_ofrecord(data, {"x": np.ones((2, 2), np.float32)}, overwrite=True)
    assert sorted(os.listdir(tmp_path)) == ["data"]
    mask = os.umask(0)
    os.umask(mask)
    assert os.stat(data).st_mode & 0o777 == 0o777 & ~mask
