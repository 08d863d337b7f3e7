"""An OFRecord part that is not a file (issue 48, item 8): a FIFO, a link to ``/dev/zero`` or a
directory where ``part-1`` belongs is named by what it is by the reader and by ``flowjob
ofrecord inspect`` (which exits 1), never "not found", never opened for reading (a FIFO would
hang), never passed over."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
from reliability_helpers import REPO, child_env

import flowjob as flow
import flowjob.typing as tp
from tests.timeouts import scaled

pytestmark = pytest.mark.usefixtures("fresh_session")

KINDS = {
    "fifo": (os.mkfifo, "is a FIFO (named pipe), not a regular file"),
    "dev_zero": (lambda p: os.symlink("/dev/zero", p), "is a character device, not a regular"),
    "directory": (os.mkdir, "is a directory, not a regular file"),
}


def _data_set(tmp_path, kind: str, manifest: bool):
    data = tmp_path / "data"
    flow.data.write_ofrecord(data, {"x": np.arange(8, dtype=np.float32).reshape(4, 2)}, part_num=2)
    if not manifest:
        (data / "_ofrecord_manifest.json").unlink()
    part = data / "part-1"
    part.unlink()
    KINDS[kind][0](str(part))
    return data, part


@pytest.mark.parametrize("manifest", [True, False], ids=["manifest", "oneflow"])
@pytest.mark.parametrize("kind", sorted(KINDS))
def test_inspect_names_a_part_that_is_not_a_file_and_exits_1(tmp_path, kind, manifest):
    data, part = _data_set(tmp_path, kind, manifest)
    proc = subprocess.run(
        [sys.executable, "-m", "flowjob", "ofrecord", "inspect", str(data)],
        env=child_env(),
        capture_output=True,
        text=True,
        timeout=scaled(120),  # a FIFO opened for reading would hang here
        cwd=str(REPO),
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert f"DAMAGED: OFRecord file {part} {KINDS[kind][1]}" in proc.stderr, proc.stderr
    assert "missing" not in proc.stderr, proc.stderr
    if kind == "directory":
        return  # given as the path, a directory is inspected as a folder
    # the part itself, given as the path
    report = flow.data.inspect_ofrecord(part)
    assert not report.ok and KINDS[kind][1] in str(report.problems[0]), report.problems


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_the_reader_names_a_part_that_is_not_a_file(tmp_path, kind):
    data, part = _data_set(tmp_path, kind, manifest=True)

    with pytest.raises(flow.errors.OpError) as err:

        @flow.global_function(type="predict")
        def read() -> tp.Numpy:
            r = flow.data.ofrecord_reader(str(data), batch_size=2, data_part_num=2)
            return flow.data.OFRecordRawDecoder(r, "x", shape=(2,), dtype=flow.float32)

        read()
    message = str(err.value)
    assert f"part file {part} {KINDS[kind][1]}" in message and "not found" not in message
