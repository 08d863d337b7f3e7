"""``exception_projector``: anomaly metadata columns and summaries read back with TensorBoard's
event readers (size guidance 0 = keep everything)."""

from __future__ import annotations

import io
import os

import numpy as np
import pytest
from google.protobuf import text_format
from PIL import Image
from summary_helpers import rendered_table
from tensorboard.backend.event_processing import event_accumulator, plugin_event_accumulator
from tensorboard.plugins.projector import projector_plugin as tbp
from tensorboard.plugins.projector.projector_config_pb2 import ProjectorConfig

from flowjob._src.summary._projector import Projector
from flowjob._src.summary._writer import SummaryWriter


def reference_scores(x: np.ndarray) -> np.ndarray:
    """Robust z of the distance to the median row, written independently of the library."""
    x = x.astype(np.float64)
    center = np.percentile(x, 50, axis=0)
    dist = np.sqrt(np.einsum("ij,ij->i", x - center, x - center))
    med = np.percentile(dist, 50)
    sigma = np.percentile(np.abs(dist - med), 50) / 0.6744897501960817
    return (dist - med) / sigma


def planted_images(seed=0, n=40, side=8, outliers=(5, 17, 33)):
    """Images whose flattened pixels are the embedding; outliers are much brighter."""
    rng = np.random.default_rng(seed)
    x = rng.integers(60, 90, size=(n, side, side), dtype=np.uint8)
    for k, i in enumerate(outliers):
        x[i] = 200 + 10 * k
    return x, list(outliers)


def read_metadata(logdir, name):
    config_path = os.path.join(logdir, "projector_config.pbtxt")
    with open(config_path, encoding="utf-8") as f:
        config = text_format.Parse(f.read(), ProjectorConfig())
    (info,) = [e for e in config.embeddings if e.tensor_name == name]
    with open(tbp._rel_to_abs_asset_path(info.metadata_path, config_path)) as f:
        lines = f.read().splitlines()
    return info, [line.split("\t") for line in lines]


def accumulators(directory):
    legacy = event_accumulator.EventAccumulator(
        str(directory), size_guidance={event_accumulator.SCALARS: 0, event_accumulator.TENSORS: 0}
    )
    legacy.Reload()
    tensors = plugin_event_accumulator.EventAccumulator(
        str(directory), size_guidance={plugin_event_accumulator.TENSORS: 0}
    )
    tensors.Reload()
    return legacy, tensors


def test_exception_projector_metadata_and_summaries(tmp_path):
    x, outliers = planted_images()
    value = x.reshape(len(x), -1).astype(np.float32)
    labels = np.array([f"c{i % 4}" for i in range(len(x))])
    p = Projector(tmp_path)
    p.create_exception_projector()
    res = p.exception_projector(
        value=value, tag="exc", step=7, sample_name="digit", sample_type="image", x=x, label=labels
    )
    p.close()
    ref = reference_scores(value)
    np.testing.assert_allclose(res.scores, ref, rtol=1e-9)
    assert np.flatnonzero(res.is_outlier).tolist() == outliers

    info, rows = read_metadata(tmp_path, "exc:00007")
    assert info.tensor_path.startswith("projector/exception/exc/7/")
    assert rows[0] == ["index", "label", "anomaly_score", "is_outlier"]
    assert len(rows) == len(x) + 1
    for i, row in enumerate(rows[1:]):
        assert row[0] == str(i) and row[1] == labels[i]
        assert float(row[2]) == pytest.approx(ref[i], rel=1e-5, abs=1e-9)
        assert row[3] == ("true" if i in outliers else "false")
    assert info.sprite.image_path  # the exception embedding also gets its sprite

    legacy, tensors = accumulators(tmp_path)
    assert [(e.step, e.value) for e in legacy.Scalars("~anomaly/exc/outliers")] == [(7, 3.0)]
    assert [e.value for e in legacy.Scalars("~anomaly/exc/nonfinite")] == [0.0]
    assert legacy.Scalars("~anomaly/exc/max_score")[0].value == pytest.approx(ref.max(), rel=1e-6)

    (report,) = tensors.Tensors("~anomaly/exc/report")
    assert report.step == 7
    assert not report.tensor_proto.tensor_shape.dim  # one Markdown table: header and all rows
    header, rows = rendered_table(report.tensor_proto.string_val[0].decode())
    table = np.array([header, *rows])
    assert table[0].tolist() == ["rank", "sample", "score", "threshold", "label"]
    order = sorted(outliers, key=lambda i: -ref[i])
    assert [int(v) for v in table[1:, 1]] == order
    assert [v for v in table[1:, 4]] == [labels[i] for i in order]
    np.testing.assert_allclose([float(v) for v in table[1:, 2]], ref[order], rtol=1e-5)

    (img_event,) = tensors.Tensors("~anomaly/exc/samples")
    width, height, png = img_event.tensor_proto.string_val[:3]
    grid = np.asarray(Image.open(io.BytesIO(png)))
    assert (int(width), int(height)) == (16, 16) and grid.shape == (16, 16)  # 2 x 2 cells
    for k, i in enumerate(order):  # flagged samples, highest score first, row-major
        r, c = divmod(k, 2)
        np.testing.assert_array_equal(grid[r * 8 : (r + 1) * 8, c * 8 : (c + 1) * 8], x[i])


def test_no_outliers_and_nonfinite_rows(tmp_path):
    rng = np.random.default_rng(3)
    value = rng.normal(size=(30, 4)).astype(np.float32)
    p = Projector(tmp_path, outlier_threshold=50.0)
    p.create_exception_projector()
    res = p.exception_projector(value=value, step=0)
    assert not res.is_outlier.any()
    value[4, 1] = np.nan
    with pytest.warns(UserWarning, match="1 of 30 rows of value hold NaN or Inf"):
        res = p.exception_projector(value=value, step=1)
    p.close()
    assert np.flatnonzero(res.is_outlier).tolist() == [4] and np.isposinf(res.scores[4])
    _, rows = read_metadata(tmp_path, "exception_projector:00001")
    assert rows[0] == ["index", "anomaly_score", "is_outlier", "nonfinite"]
    # A finite stand-in (the threshold here) keeps the column numeric for the projector.
    assert rows[5][1:] == ["50", "true", "true"]
    assert all(r[3] == "false" for i, r in enumerate(rows[1:]) if i != 4)

    legacy, tensors = accumulators(tmp_path)
    outl = legacy.Scalars("~anomaly/exception_projector/outliers")
    assert [(e.step, e.value) for e in outl] == [(0, 0.0), (1, 1.0)]
    nonfinite = legacy.Scalars("~anomaly/exception_projector/nonfinite")
    assert [e.value for e in nonfinite] == [0.0, 1.0]
    first = tensors.Tensors("~anomaly/exception_projector/report")[0].tensor_proto
    assert not first.tensor_shape.dim  # rank 0: a Markdown sentence
    assert b"No outliers among 30 samples" in first.string_val[0]
    assert "~anomaly/exception_projector/samples" not in tensors.Tags()["tensors"]


def test_user_writer_is_used_and_left_open(tmp_path):
    with SummaryWriter(tmp_path / "run") as writer:
        p = Projector(tmp_path, writer=writer)
        p.create_exception_projector()
        p.exception_projector(value=np.r_[np.zeros((9, 2)), [[50.0, 50.0]]] + 0.25, step=2)
        p.close()
        assert not writer.closed
        writer.scalar("loss", 1.5, 2)
    legacy, _ = accumulators(tmp_path / "run")
    assert [e.value for e in legacy.Scalars("~anomaly/exception_projector/outliers")] == [1.0]
    assert [e.value for e in legacy.Scalars("loss")] == [1.5]
    assert not (tmp_path / "projector").exists() or not [
        f for f in os.listdir(tmp_path / "projector") if "tfevents" in f
    ]


def test_projectors_share_one_event_file(tmp_path):
    a, b = Projector(tmp_path), Projector(tmp_path)
    for p in (a, b):
        p.create_exception_projector()
        p.exception_projector(value=np.arange(10.0).reshape(5, 2) ** 2, step=0, tag=f"t{id(p)}")
    a.close()
    b.close()
    # In the run itself (TensorBoard shows it once), not in a "projector" run beside it.
    files = [str(f.relative_to(tmp_path)) for f in tmp_path.rglob("*tfevents*")]
    assert len(files) == 1 and "/" not in files[0]


def test_seed_004_program(tmp_path):
    # The docs' example as written: value (100,100,100) but 10 labels and 10 image samples.
    projector = Projector(tmp_path)
    projector.create_embedding_projector()
    projector.create_exception_projector()
    rng = np.random.default_rng(4)
    value = rng.random((100, 100, 100)).astype(np.float32)
    label = (rng.random(10) * 10).astype(np.int64)
    x = (rng.random((10, 10, 10)) * 255).astype(np.uint8)
    for _ in range(2):
        with pytest.warns(UserWarning, match="x holds 10 samples but value has 100 rows"):
            res = projector.exception_projector(
                value=value,
                tag="exception_projector",
                step=1,
                sample_name="sample",
                sample_type="image",
                x=x,
            )
        with (
            pytest.warns(UserWarning, match="label has shape"),
            pytest.warns(UserWarning, match="x holds 10 samples"),
        ):
            projector.embedding_projector(
                value=value,
                label=label,
                tag="embedding_projector",
                step=1,
                sample_name="sample",
                sample_type="image",
                x=x,
            )
    projector.close()
    np.testing.assert_allclose(res.scores, reference_scores(value.reshape(100, -1)), rtol=1e-6)
    config = text_format.Parse((tmp_path / "projector_config.pbtxt").read_text(), ProjectorConfig())
    assert sorted(e.tensor_name for e in config.embeddings) == [
        "embedding_projector:00001",
        "exception_projector:00001",
    ]
    legacy, tensors = accumulators(tmp_path)
    outl = legacy.Scalars("~anomaly/exception_projector/outliers")
    assert [(e.step, e.value) for e in outl] == [(1, float(res.is_outlier.sum()))] * 2
    assert "~anomaly/exception_projector/samples" not in tensors.Tags()["tensors"]
