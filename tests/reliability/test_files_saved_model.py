"""Saved models read only what they hold: confined paths, checked fields, a CRC-32C manifest,
the signature checked against the program; written staged, mode from the umask."""

from __future__ import annotations

import json
import os
import shutil
import stat

import numpy as np
import pytest

import flowjob as flow
import flowjob.typing as tp
from flowjob._src.export import ExportError
from flowjob._src.runtime import default_session


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    """A saved model (version 1, free batch size) and the job's output for ``X``."""
    flow.clear_default_session()

    @flow.global_function(type="predict")
    def predict(x: tp.Numpy.Placeholder((8, 4))) -> tp.Numpy:
        return flow.layers.dense(x, 3, name="out")

    root = tmp_path_factory.mktemp("sm") / "model"
    flow.saved_model.ModelBuilder(str(root)).ModelName("m").Version(1).AddFunction(
        predict
    ).OwnerModelBuilder().Save()
    return root, predict(X)


X = np.arange(32, dtype=np.float32).reshape(8, 4) / 10


def _copy(model, tmp_path):
    dst = tmp_path / "copy"
    shutil.copytree(model[0], dst)
    return dst, dst / "1"


def _edit_meta(version, edit):
    path = version / "saved_model.json"
    meta = json.loads(path.read_text())
    edit(meta)
    path.write_text(json.dumps(meta))
    # re-list the edited file in the manifest, so only the field check can catch the edit
    manifest = json.loads((version / "saved_model.manifest.json").read_text())
    import google_crc32c

    for entry in manifest["files"]:
        if entry["name"] == "saved_model.json":
            data = path.read_bytes()
            entry["bytes"] = len(data)
            entry["crc32c"] = int.from_bytes(google_crc32c.Checksum(data).digest(), "big")
    (version / "saved_model.manifest.json").write_text(json.dumps(manifest))


def _sig(meta):
    return meta["graphs"]["predict"]["signatures"]["default"]


def test_loads_and_runs(model):
    out = flow.saved_model.load(model[0])(x=X)
    np.testing.assert_allclose(out, model[1], rtol=1e-5, atol=1e-6)


def test_version_folder_mode_follows_the_umask(model):
    mask = os.umask(0)
    os.umask(mask)
    mode = stat.S_IMODE(os.stat(model[0] / "1").st_mode)
    assert mode == 0o777 & ~mask, oct(mode)  # 0755 under umask 022, not mkdtemp's 0700
    listed = json.loads((model[0] / "1" / "saved_model.manifest.json").read_text())["files"]
    assert {f["name"] for f in listed} == {
        "saved_model.json",
        "variables.safetensors",
        "programs/predict/default.jaxexport",
    }


@pytest.mark.parametrize(
    "field, value, why",
    [
        ("program", "/dev/zero", "is an absolute path"),
        ("program", "../../etc/passwd", "leaves"),
        ("checkpoint_dir", "/tmp/other.safetensors", "is an absolute path"),
        ("checkpoint_dir", "../1/variables.safetensors", "leaves"),
        ("checkpoint_dir", "programs", "is a directory, not a regular file"),
    ],
)
def test_paths_in_saved_model_json_stay_inside(model, tmp_path, field, value, why):
    _, version = _copy(model, tmp_path)

    def edit(meta):
        (_sig(meta) if field == "program" else meta)[field] = value

    _edit_meta(version, edit)
    with pytest.raises(ExportError) as info:
        flow.saved_model.load(version)
    text = str(info.value)
    assert str(version / "saved_model.json") in text and why in text
    assert field in text


def test_symlink_out_of_the_folder_is_refused(model, tmp_path):
    _, version = _copy(model, tmp_path)
    target = version / "programs" / "predict" / "default.jaxexport"
    target.unlink()
    target.symlink_to("/dev/zero")
    with pytest.raises(ExportError, match="resolves outside"):
        flow.saved_model.load(version)


@pytest.mark.parametrize(
    "edit, field",
    [
        (lambda m: m.pop("graphs"), "graphs"),
        (lambda m: m.update(name=7), "name"),
        (lambda m: _sig(m).pop("outputs"), "graphs.predict.signatures.default.outputs"),
        (lambda m: _sig(m)["inputs"]["x"].update(shape=["8", 4]), "shape"),
        (lambda m: _sig(m)["inputs"]["x"].update(dtype="float99"), "dtype"),
        (lambda m: m.update(default_graph_name="nope"), "default_graph_name"),
    ],
)
def test_damaged_metadata_names_file_and_field(model, tmp_path, edit, field):
    _, version = _copy(model, tmp_path)
    _edit_meta(version, edit)
    with pytest.raises(ExportError, match="field") as info:
        flow.saved_model.load(version)
    assert str(version / "saved_model.json") in str(info.value) and field in str(info.value)


@pytest.mark.parametrize("name", ["variables.safetensors", "programs/predict/default.jaxexport"])
def test_flipped_bit_is_caught_at_load(model, tmp_path, name):
    _, version = _copy(model, tmp_path)
    path = version / name
    data = bytearray(path.read_bytes())
    data[len(data) - 5] ^= 0x10
    path.write_bytes(bytes(data))
    with pytest.raises(ExportError, match="CRC-32C") as info:
        flow.saved_model.load(version)  # at load, not at the first call
    assert str(path) in str(info.value)


def test_output_declared_with_another_shape_is_refused_at_load(model, tmp_path):
    _, version = _copy(model, tmp_path)
    _edit_meta(version, lambda m: next(iter(_sig(m)["outputs"].values())).update(shape=[8, 10]))
    with pytest.raises(ExportError, match=r"output .out-bias_add. is declared \(8, 10\) float32"):
        flow.saved_model.load(version)


def test_batch_zero_is_a_clear_error(model):
    fn = flow.saved_model.load(model[0])
    with pytest.raises(ExportError, match="batch size 0"):
        fn(x=np.zeros((0, 4), np.float32))


@pytest.mark.parametrize("kind", ["fifo", "devzero"])
def test_variables_file_that_is_not_a_file_is_named_as_such(model, tmp_path, kind):
    _, version = _copy(model, tmp_path)
    path = version / "variables.safetensors"
    path.unlink()
    if kind == "fifo":
        os.mkfifo(path)
        why = "FIFO"
    else:
        path.symlink_to("/dev/zero")
        why = "resolves outside"
    with pytest.raises(ExportError, match=why) as info:
        flow.saved_model.load(version)
    assert "does not exist" not in str(info.value)
    assert "variables.safetensors" in str(info.value)


def test_fifo_and_device_variables_via_checkpoint_get(tmp_path):
    os.mkfifo(tmp_path / "v.safetensors")
    with pytest.raises(flow.checkpoint.CheckpointError, match="is a FIFO"):
        flow.checkpoint.get(str(tmp_path / "v.safetensors"))
    with pytest.raises(flow.checkpoint.CheckpointError, match="/dev/zero is a character device"):
        flow.checkpoint.get("/dev/zero")


def test_latest_picks_the_newest_complete_version(model, tmp_path):
    root, _ = _copy(model, tmp_path)
    (root / "2").mkdir()  # a copy cut short: programs, no metadata
    shutil.copytree(root / "1" / "programs", root / "2" / "programs")
    (root / "3").mkdir()
    shutil.copy(root / "1" / "saved_model.json", root / "3")  # metadata, no manifest
    fn = flow.saved_model.load(root)
    assert fn.model.path == str(root / "1")
    sess = flow.serving.InferenceSession()
    sess.load_saved_model(str(root), flow.serving.ModelVersionPolicy.LATEST)
    assert sess.checkpoint_path == str(root / "1" / "variables.safetensors")


# What a SIGKILLed Save of version 2 leaves: this version's staging folder, and an earlier
# version's (made by tempfile.mkdtemp).
@pytest.mark.parametrize("name", [".2.0123456789ab.tmp", ".2-a1b2c_d3"])
def test_killed_save_leftover_is_reported_then_removed_by_the_next_save(model, tmp_path, name):
    from flowjob._src.cli import doctor

    root, _ = _copy(model, tmp_path)
    leftover = root / name
    (leftover / "programs").mkdir(parents=True)
    report = doctor.Report()
    doctor.check_checkpoint(str(root), report)
    assert report.warnings == 1 and report.lines[0].startswith(f"WARNING {leftover}: ")
    predict = default_session().jobs["predict"]
    flow.saved_model.ModelBuilder(str(root)).Version(2).AddFunction(
        predict
    ).OwnerModelBuilder().Save()
    assert sorted(os.listdir(root)) == ["1", "2"]


def test_doctor_checks_saved_models_against_their_manifests(model, tmp_path):
    from flowjob._src.cli import doctor

    root, version = _copy(model, tmp_path)
    report = doctor.Report()
    doctor.check_checkpoint(str(root), report)
    assert report.lines == [f"OK      {version}: saved model, 3 file(s) match the manifest"]
    leftover = root / ".2.0123456789ab.tmp"
    leftover.mkdir()
    with open(version / "variables.safetensors", "r+b") as f:
        f.seek(-1, 2)
        last = f.read(1)
        f.seek(-1, 2)
        f.write(bytes([last[0] ^ 4]))
    report = doctor.Report()
    doctor.check_checkpoint(str(root), report)
    assert report.damaged == 1 and report.warnings == 1, report.lines
    assert report.lines[0].startswith(f"WARNING {leftover}: temporary directory left")
    assert report.lines[1].startswith(f"DAMAGED {version}: saved model file ")
    assert "CRC-32C" in report.lines[1]
