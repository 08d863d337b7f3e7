"""A killed OFRecord writer's staging folder is reported by ``ofrecord inspect`` and removed by
the next write of the same data set; the written folder's mode follows the umask."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
from reliability_helpers import REPO, child_env

import flowjob as flow

# What a SIGKILLed writer leaves: this version's staging folder, and earlier versions' (a
# staging folder, the old set an overwrite had moved aside).
LEFTOVERS = [".data.0123456789ab.tmp", ".data.writing-0123456789ab", ".data.replaced-01234567"]


@pytest.mark.parametrize("name", LEFTOVERS)
def test_leftover_is_reported_by_inspect_and_removed_by_the_next_write(tmp_path, name):
    data = tmp_path / "data"
    flow.data.write_ofrecord(data, {"x": np.arange(6, dtype=np.float32).reshape(3, 2)})
    (tmp_path / ".data.keep").mkdir()  # a hidden folder of the user's: not a leftover
    leftover = tmp_path / name
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
    assert ".data.keep" not in proc.stdout
    flow.data.write_ofrecord(data, {"x": np.ones((2, 2), np.float32)}, overwrite=True)
    assert sorted(os.listdir(tmp_path)) == [".data.keep", "data"]
    mask = os.umask(0)
    os.umask(mask)
    assert os.stat(data).st_mode & 0o777 == 0o777 & ~mask
