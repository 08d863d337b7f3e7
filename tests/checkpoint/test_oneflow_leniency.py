"""OneFlow v0.4 read any folder of ``<var>/out`` (+ ``meta``) without looking for
``snapshot_done``; a 2021 pruning tool wrote such folders with NumPy. flowjob reads them with a
warning naming the folder (once), and still refuses files whose sizes disagree with their meta."""

from __future__ import annotations

import os
import warnings

import numpy as np
import pytest

import flowjob as flow
import flowjob.typing as tp
from flowjob.checkpoint import CheckpointError

pytestmark = pytest.mark.usefixtures("fresh_session")

PRUNED = {
    "conv_w": np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 7,
    "conv_b": np.array([0.5, -1.5], dtype=np.float32),
}


def _write_pruned(root) -> None:
    """What the pruning tool did: one folder per variable, ``out`` by ndarray.tofile and a
    text ``meta``; no snapshot_done."""
    for name, value in PRUNED.items():
        os.makedirs(root / name)
        value.tofile(str(root / name / "out"))
        dims = "".join(f"  dim: {d}\n" for d in value.shape)
        (root / name / "meta").write_text(f"shape {{\n{dims}}}\ndata_type: kFloat\n")


def _model():
    @flow.global_function()
    def infer(x: tp.Numpy.Placeholder((2, 3, 4))) -> tp.Numpy:
        w = flow.get_variable("conv_w", (2, 3, 4), initializer=flow.zeros_initializer())
        b = flow.get_variable("conv_b", (2,), initializer=flow.zeros_initializer())
        return flow.math.reduce_sum(x * w, axis=[1, 2]) + b

    return infer


def _expected(x):
    return (x * PRUNED["conv_w"]).sum(axis=(1, 2)) + PRUNED["conv_b"]


@pytest.mark.parametrize("api", ["CheckPoint().load", "checkpoint.get"])
def test_a_pruned_folder_without_snapshot_done_loads_with_one_warning(tmp_path, api):
    root = tmp_path / "pruned_model"
    _write_pruned(root)
    infer = _model()
    with pytest.warns(UserWarning, match=f"{root}.*snapshot_done") as record:
        if api == "CheckPoint().load":
            flow.train.CheckPoint().load(str(root))
        else:
            flow.load_variables(flow.checkpoint.get(str(root)))
    assert sum("snapshot_done" in str(w.message) for w in record) == 1
    x = np.ones((2, 3, 4), np.float32)
    np.testing.assert_allclose(infer(x), _expected(x), rtol=1e-6)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the second read of the same folder is quiet
        flow.checkpoint.get(str(root))


def test_a_pruned_folder_with_a_short_file_is_still_refused(tmp_path):
    root = tmp_path / "pruned_bad"
    _write_pruned(root)
    out = root / "conv_w" / "out"
    os.truncate(out, 40)  # 10 floats where meta says 24
    _model()
    with pytest.raises(CheckpointError, match=f"{out}: holds 40 bytes"):
        flow.train.CheckPoint().load(str(root))
