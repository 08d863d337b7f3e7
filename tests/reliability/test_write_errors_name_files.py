"""A write that hits a file-size limit (EFBIG, a real ``RLIMIT_FSIZE`` in a child) or a full disk
names the file being written, for the ONNX and OFRecord writers too (issue 48, item 8): bare
"[Errno 27] File too large" named nothing. The error keeps its errno and type, and nothing is
left behind."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from reliability_helpers import REPO, child_env

import flowjob as flow
from tests.timeouts import scaled

pytest.importorskip("onnx")

_LIMITED = textwrap.dedent("""
    import json, os, resource, signal, sys, warnings
    warnings.simplefilter("ignore")
    import numpy as np
    import flowjob as flow
    import flowjob.typing as tp

    folder, out = sys.argv[1:3]
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG instead of being killed
    limit = 64 << 10
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    @flow.global_function(type="predict")
    def job(x: tp.Numpy.Placeholder((4, 64))) -> tp.Numpy:
        return flow.layers.dense(x, 512, name="big")  # 128 KiB of weights

    big = np.zeros((4, 40_000), np.uint8)  # 160 KiB of records
    cases = {
        "ofrecord_one_part": lambda: flow.data.write_ofrecord(
            os.path.join(folder, "one"), {"x": big}),
        "ofrecord_two_parts": lambda: flow.data.write_ofrecord(
            os.path.join(folder, "two"), {"x": big}, part_num=2),
        "onnx": lambda: flow.onnx.export(job, None, os.path.join(folder, "m.onnx")),
        "onnx_external": lambda: flow.onnx.export(
            job, None, os.path.join(folder, "e.onnx"), external_data=True),
    }
    result = {}
    for name, write in cases.items():
        try:
            write()
            result[name] = None
        except OSError as exc:
            result[name] = [type(exc).__name__, exc.errno, str(exc)]
    with open(out, "w") as f:
        json.dump(result, f)
""")


def test_efbig_from_the_onnx_and_ofrecord_writers_names_the_file(tmp_path):
    out = tmp_path / "result.json"
    work = tmp_path / "work"
    work.mkdir()
    proc = subprocess.run(
        [sys.executable, "-c", _LIMITED, str(work), str(out)],
        env=child_env(),
        capture_output=True,
        text=True,
        timeout=scaled(300),
        cwd=str(REPO),
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads(out.read_text())
    expected = {
        "ofrecord_one_part": f"writing OFRecord part file {work / 'one' / 'part-0'} failed",
        "ofrecord_two_parts": f"writing OFRecord part file {work / 'two' / 'part-0'} failed",
        "onnx": f"writing ONNX model {work / 'm.onnx'} failed",
        "onnx_external": f"writing ONNX model {work / 'e.onnx'} (weights: e.onnx.data) failed",
    }
    for case, start in expected.items():
        kind, code, message = result[case]
        assert code == errno.EFBIG and start in message and "File too large" in message, (
            case,
            message,
        )
    assert os.listdir(work) == []  # nothing half-written became visible


def test_a_full_disk_while_writing_ofrecord_names_the_part(tmp_path, monkeypatch):
    real_open = open

    class Full:
        def __init__(self, f):
            self.f = f

        def write(self, data):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        def __getattr__(self, name):
            return getattr(self.f, name)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return self.f.__exit__(*exc)

    def full_open(file, mode="r", *args, **kw):
        f = real_open(file, mode, *args, **kw)
        return Full(f) if "w" in mode and "part-" in os.fspath(file) else f

    import flowjob._src.data._writer as writer

    monkeypatch.setattr(writer, "open", full_open, raising=False)
    with pytest.raises(OSError) as err:
        flow.data.write_ofrecord(tmp_path / "data", {"x": np.ones((3, 2), np.float32)})
    assert err.value.errno == errno.ENOSPC
    assert f"writing OFRecord part file {tmp_path / 'data' / 'part-0'} failed" in str(err.value)
    assert not (tmp_path / "data").exists()
