"""The stand-ins for private data, without a OneFlow clone: the checkpoint layout (read back by
flowjob's own reader), the ResNet-50 and AlexNet weights' names and shapes, the cache of the
reference losses and its hash check, and the data the customized scripts read."""

from __future__ import annotations

import json
import sys
import types

import numpy as np
import pytest

from . import _standin_checkpoint as ckpt
from . import _standin_resnet as resnet
from ._standin_customized import alexnet_shapes, prepare_customized, write_png227

SCRIPT = 'data_dir = "/dataset/imagenet_16_same_pics/ofrecord"\n'


def test_checkpoint_has_oneflows_layout_and_flowjob_reads_it(tmp_path):
    import flowjob as flow

    values = {"a.weight": np.arange(6, dtype=np.float32).reshape(2, 3), "b": np.float64([1.5])}
    path = ckpt.write_checkpoint(tmp_path / "model", values)
    assert sorted(p.name for p in path.iterdir()) == ["a.weight", "b", "snapshot_done"]
    assert (path / "a.weight" / "meta").read_text() == (
        "shape {\n  dim: 2\n  dim: 3\n}\ndata_type: kFloat\n"
    )
    assert (path / "b" / "meta").read_text() == "shape {\n  dim: 1\n}\ndata_type: kDouble\n"
    assert (path / "a.weight" / "out").read_bytes() == values["a.weight"].tobytes()
    back = ckpt.read_checkpoint(path)
    loaded = flow.checkpoint.get(str(path))
    for name, value in values.items():
        np.testing.assert_array_equal(back[name], value)
        np.testing.assert_array_equal(loaded[name].numpy(), value)
        assert loaded[name].numpy().dtype == value.dtype
    with pytest.raises(TypeError, match="int32"):
        ckpt.write_checkpoint(tmp_path / "bad", {"n": np.int32([1])})


def test_resnet50_weights_have_the_models_names_and_shapes():
    shapes = {n: s for n, s, _ in ckpt.resnet50_convs()}
    assert len(shapes) == 53  # 1 stem + 16 blocks x 3 + 4 projections
    assert shapes["layer2.0.conv2"] == (128, 128, 3, 3)  # stride on the 3 x 3 (v1.5)
    assert shapes["layer4.0.downsample.0"] == (2048, 1024, 1, 1)
    assert ckpt.norm_name("layer3.1.conv2") == "layer3.1.bn2"
    assert ckpt.norm_name("layer3.0.downsample.0") == "layer3.0.downsample.1"
    weights = ckpt.resnet50_fixup()
    # torchvision's resnet50 has 25,557,032 parameters: convolutions, fc, norm weights, biases
    learned = [v.size for k, v in weights.items() if not k.endswith(("_mean", "_var"))]
    assert sum(learned) == 25_557_032
    assert all(v.dtype == np.float32 for v in weights.values())
    assert np.all(weights["layer1.0.bn3.weight"] == 1) and np.all(weights["bn1.bias"] == 0)
    assert np.all(weights["bn1.running_mean"] == 0) and np.all(weights["bn1.running_var"] == 1)
    stem = weights["conv1.weight"].std()
    assert stem == pytest.approx(np.sqrt(2 / 147) * ckpt.STEM_SCALE, rel=0.02)
    last = weights["layer1.0.conv3.weight"].std()
    assert last == pytest.approx(np.sqrt(2 / 64) * ckpt.BRANCH_SCALE, rel=0.02)
    np.testing.assert_array_equal(ckpt.resnet50_fixup()["fc.weight"], weights["fc.weight"])


@pytest.fixture
def small_reference(tmp_path, monkeypatch):
    """``reference_losses`` on a tiny checkpoint and batch, its cache in ``tmp_path``."""
    path = ckpt.write_checkpoint(tmp_path / "model", {"w": np.float32([1, 2])})
    batches = [np.ones((2, 3), np.float32)], [np.int32([0, 1])]
    monkeypatch.setattr(resnet, "LOSSES_FILE", tmp_path / "losses.json")
    monkeypatch.setattr(resnet, "reference_batches", lambda: batches)
    calls = []
    monkeypatch.setattr(resnet, "torch_losses", lambda *a: calls.append(a) or [1.0, 0.5])
    return path, batches, calls


def test_cached_losses_are_used_while_their_hash_matches(small_reference, monkeypatch):
    path, (x, y), calls = small_reference
    digest = resnet.inputs_sha256(x, y, path, "9.9")
    record = {"torch": "9.9", "sha256": digest, "losses": [3.0, 2.0]}
    resnet.LOSSES_FILE.write_text(json.dumps(record))
    monkeypatch.setitem(sys.modules, "torch", None)  # not needed: nothing is recomputed
    assert resnet.reference_losses(path) == [3.0, 2.0]
    assert not calls
    assert resnet.inputs_sha256(x, y, path, "9.8") != digest  # the version is hashed
    (path / "w" / "out").write_bytes(np.float32([1, 3]).tobytes())  # other weights
    with pytest.raises(RuntimeError, match="needs PyTorch"):
        resnet.reference_losses(path)


def test_losses_are_recomputed_and_cached_when_the_inputs_change(small_reference, monkeypatch):
    path, (x, y), calls = small_reference
    resnet.LOSSES_FILE.write_text(json.dumps({"torch": "1", "sha256": "0" * 64, "losses": [9]}))
    monkeypatch.setitem(sys.modules, "torch", types.SimpleNamespace(__version__="2.0"))
    assert resnet.reference_losses(path) == [1.0, 0.5]
    assert len(calls) == 1
    record = json.loads(resnet.LOSSES_FILE.read_text())
    assert record["losses"] == [1.0, 0.5] and record["torch"] == "2.0"
    assert record["sha256"] == resnet.inputs_sha256(x, y, path, "2.0")


def test_the_committed_losses_belong_to_the_standin(tmp_path):
    """The cached losses were computed from exactly the stand-in's inputs and weights."""
    pytest.importorskip("cv2")
    record = json.loads(resnet.LOSSES_FILE.read_text())
    assert len(record["losses"]) == resnet.STEPS
    path = ckpt.write_checkpoint(tmp_path / "resnet50_pretrained", ckpt.resnet50_fixup())
    x, y = resnet.reference_batches()
    assert [b.shape for b in x] == [(32, 3, 224, 224)] * 2
    assert resnet.inputs_sha256(x, y, path, record["torch"]) == record["sha256"]


def test_the_losses_literal_is_replaced():
    text = "x = 0\n    gt_of_losses = [\n        6.8,\n        6.7,\n    ]\n    y = [1]\n"
    new = resnet.with_losses(text, [1.25, 0.5])
    body = "".join(f"\n            {v}," for v in (1.25, 0.5))
    assert new == f"x = 0\n    gt_of_losses = [{body}\n        ]\n    y = [1]\n"
    with pytest.raises(ValueError, match="found 0"):
        resnet.with_losses("losses = [1]", [1.0])


def test_torch_reference_runs_the_resnet50_layout():
    torch = pytest.importorskip("torch")
    weights = {k: torch.tensor(v) for k, v in ckpt.resnet50_fixup().items()}
    with torch.no_grad():
        logits = resnet._forward(weights, torch.zeros(1, 3, 224, 224) + 1)
    assert logits.shape == (1, 1000)


def test_customized_standins(tmp_path):
    import flowjob as flow

    shapes = alexnet_shapes()
    size = 227
    for k, stride, pool in ((11, 4, True), (5, 1, True), (3, 1, False), (3, 1, False)):
        size = (size - k) // stride + 1 if stride > 1 else size  # VALID / SAME
        size = (size - 3) // 2 + 1 if pool else size  # 3 x 3 average pools, stride 2
    size = (size - 3) // 2 + 1  # pool5
    assert shapes["fc1-weight"] == (4096, 256 * size * size)
    assert shapes["fc3-weight"] == (1001, 4096) and shapes["conv2-weight"] == (192, 64, 5, 5)
    parts = write_png227(tmp_path / "png", parts=4)
    names = sorted(p.name for p in parts.glob("part-*"))
    assert names == ["part-0", "part-1", "part-2", "part-3"]
    assert flow.data.inspect_ofrecord(str(parts)).records == 8
    script = tmp_path / "modules" / "new_data_pre.py"
    script.parent.mkdir()
    script.write_text(SCRIPT)
    work = tmp_path / "work"
    work.mkdir()
    copy = prepare_customized(script, work)
    data = work / "dataset" / "imagenet_16_same_pics" / "ofrecord"
    assert copy.read_text() == f'data_dir = "{data}"\n'
    assert (work / "output").is_dir()
    assert (data / "part-0").read_bytes() == (data / "part-00000").read_bytes()
    assert not (data / "_ofrecord_manifest.json").exists()  # it would name one part only
    assert flow.data.inspect_ofrecord(str(data)).records == 32  # 16 records in each of 2 files
