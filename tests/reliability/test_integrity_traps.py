"""Integrity traps in files (issue 48, item 9): a saved model whose manifest was deleted and
whose ``saved_model.json`` was edited to say ``format_version: 1`` is never loaded silently
without a check (loading warns, naming the folder, as ``flowjob doctor`` does); a
``snapshot_done`` that is a FIFO is damage for both ``checkpoint.get`` and ``flowjob doctor``,
never "a v0.4 checkpoint without the marker"."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
from reliability_helpers import run_doctor

import flowjob as flow
import flowjob.typing as tp
from flowjob._src.export._loader import UncheckedModelWarning

X = np.arange(32, dtype=np.float32).reshape(8, 4) / 10


def test_a_model_downgraded_to_format_1_without_manifest_is_not_loaded_silently(tmp_path):
    flow.clear_default_session()

    @flow.global_function(type="predict")
    def predict(x: tp.Numpy.Placeholder((8, 4))) -> tp.Numpy:
        return flow.layers.dense(x, 3, name="out")

    root = tmp_path / "model"
    flow.saved_model.ModelBuilder(str(root)).ModelName("m").Version(1).AddFunction(
        predict
    ).OwnerModelBuilder().Save()
    expected = predict(X)
    version = root / "1"
    (version / "saved_model.manifest.json").unlink()
    meta = json.loads((version / "saved_model.json").read_text())
    meta["format_version"] = 1
    (version / "saved_model.json").write_text(json.dumps(meta))
    with pytest.warns(UncheckedModelWarning) as caught:
        loaded = flow.saved_model.load(str(root))
    message = str(caught[0].message)
    assert f"saved model {version} has no saved_model.manifest.json" in message
    assert "none of its files can be checked" in message
    np.testing.assert_allclose(loaded(X), expected, rtol=1e-6)  # old models still load
    proc = run_doctor(root)
    assert proc.returncode != 0 or "WARN" in proc.stdout, proc.stdout
    assert f"{version}" in proc.stdout and "none of its files can be checked" in proc.stdout
    assert "match the manifest" not in proc.stdout, proc.stdout


def test_a_fifo_snapshot_done_is_damage_for_get_and_doctor(tmp_path):
    ckpt = tmp_path / "ckpt"
    flow.checkpoint.save(str(ckpt), {"w": np.arange(4, dtype=np.float32)})
    marker = ckpt / "snapshot_done"
    marker.unlink()
    os.mkfifo(marker)
    with pytest.raises(flow.checkpoint.CheckpointError) as err:
        flow.checkpoint.get(str(ckpt))
    expected = f"{marker} is a FIFO (named pipe), not a regular file"
    assert expected in str(err.value)
    proc = run_doctor("--checkpoint", ckpt)  # must not hang on the FIFO
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert f"DAMAGED {ckpt}: {expected}" in proc.stdout, proc.stdout
