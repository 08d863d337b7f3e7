"""OneFlow v0.4.0's op tests that build ops with ``flow.user_op_builder``, run unchanged through
``flowjob run`` from a clone (set FLOWJOB_ONEFLOW_SRC to a OneFlow git clone with tag v0.4.0)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.timeouts import scaled

REPO = Path(__file__).parents[2]
OPS = "oneflow/python/test/ops"
# The files whose every test the builders can run on one CPU device.
FILES = [
    "test_TestReshape.py",
    "test_TestSource.py",
    "test_TestMultiOutputOrder.py",
    "test_TestMultiInputGrad.py",
    "test_TestRandomSource.py",
    "test_TestListDataTypeAndListShapeAndListStringAttr.py",
    "test_ccrelu.py",
    "test_user_op_attr_auto_type.py",
    "test_multi_square_sum.py",
    "test_split_like.py",
    "test_TestDataTypeAttr.py",
    "test_TestDynamicSource.py",
    "test_TestSourceMultiGpuFixedOutNum.py",
    "test_cpu_only_user_op.py",
    "test_dynamic_loss_scale_schedule.py",
    "test_user_op_module.py",
]
# compared with TensorFlow by the file itself
TF_FILES = ["test_fuse_cast_scale.py"]


@pytest.fixture(scope="module")
def upstream(tmp_path_factory) -> Path:
    src = os.environ.get("FLOWJOB_ONEFLOW_SRC")
    if not src:
        pytest.skip("set FLOWJOB_ONEFLOW_SRC to a OneFlow git clone (tag v0.4.0) to run this")
    root = tmp_path_factory.mktemp("oneflow")
    archive = subprocess.run(
        ["git", "-C", src, "archive", "v0.4.0", OPS], capture_output=True, check=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(root)], input=archive, check=True)
    return root / OPS


@pytest.mark.parametrize("name", FILES + TF_FILES)
def test_upstream_file_passes(upstream, name):
    if name in TF_FILES:
        pytest.importorskip("tensorflow")
    env = dict(
        os.environ,
        PYTHONPATH=os.pathsep.join([str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])]),
    )
    proc = subprocess.run(
        [sys.executable, "-m", "flowjob", "run", name],
        cwd=upstream,
        env=env,
        capture_output=True,
        text=True,
        timeout=scaled(600),
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert "OK" in out, out
