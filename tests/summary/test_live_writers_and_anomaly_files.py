"""One open event file per run directory (``_live_writers``), and the anomaly record format
(``_anomaly_files``) read back as written."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import numpy as np
import pytest

from flowjob._src.summary import _anomaly_files as records
from flowjob._src.summary._anomaly import robust_outlier_scores
from flowjob._src.summary._live_writers import acquire_writer, live_writer, release_writer
from flowjob._src.summary._ops import close_default_writer, set_default_writer
from flowjob.summary import Projector, SummaryWriter, read_anomaly_records


def event_files(directory):
    return sorted(p for p in os.listdir(directory) if "tfevents" in p)


def test_acquire_borrows_the_users_writer_and_never_closes_it(tmp_path):
    with SummaryWriter(tmp_path) as user:
        assert live_writer(tmp_path) is user
        w = acquire_writer(tmp_path)
        assert w is user
        release_writer(w)
        assert not user.closed
    assert live_writer(tmp_path) is None


def test_acquired_writer_closes_with_its_last_user(tmp_path):
    a = acquire_writer(tmp_path)
    b = acquire_writer(str(tmp_path) + "/.")  # the same directory spelled differently
    assert a is b and len(event_files(tmp_path)) == 1
    release_writer(a)
    assert not a.closed
    release_writer(b)
    assert a.closed and live_writer(tmp_path) is None


def test_job_ops_writer_projector_and_user_writer_share_one_file(tmp_path):
    user = SummaryWriter(tmp_path)
    try:
        default = set_default_writer(str(tmp_path))
        assert default is user
        p = Projector(tmp_path)
        p.create_exception_projector()
        p.exception_projector(value=np.r_[np.zeros((9, 2)), [[9.0, 9.0]]] + 0.1, step=1)
        p.close()
        close_default_writer()
        assert not user.closed
    finally:
        user.close()
    assert len(event_files(tmp_path)) == 1


def test_projector_reacquires_after_the_borrowed_writer_closed(tmp_path):
    user = SummaryWriter(tmp_path)
    p = Projector(tmp_path)
    p.create_exception_projector()
    p.exception_projector(value=np.arange(12.0).reshape(6, 2) ** 2, step=0)
    user.close()
    p.exception_projector(value=np.arange(12.0).reshape(6, 2) ** 2, step=1)  # no error
    p.close()
    assert len(event_files(tmp_path)) == 2


def test_record_round_trip_with_nonfinite_labels_and_predictions(tmp_path):
    rows = np.r_[np.zeros((18, 2)), [[30.0, 0.0]], [[np.nan, 1.0]]] + np.arange(20)[:, None] / 50
    labels = [f"cat {i}\tx" for i in range(20)]  # whitespace is folded to single spaces
    predictions = list(range(20))
    images = np.zeros((20, 5, 5), np.uint8)
    images[18] = 200
    with pytest.warns(UserWarning, match="hold NaN or Inf"):
        with Projector(tmp_path / "run") as p:
            p.create_exception_projector()
            result = p.exception_projector(
                value=rows,
                tag="odd/ones",
                step=3,
                x=images,
                sample_name="s",
                sample_type="image",
                label=labels,
                prediction=predictions,
            )
    (rec,) = read_anomaly_records(str(tmp_path / "run"))
    assert (rec.tag, rec.step, rec.threshold, rec.num_samples, rec.num_nonfinite) == (
        "odd/ones",
        3,
        3.5,
        20,
        1,
    )
    assert [s.index for s in rec.flagged] == result.outliers.tolist() == [19, 18]
    assert math.isinf(rec.flagged[0].score)
    assert rec.flagged[1].score == pytest.approx(result.scores[18])
    assert (rec.flagged[1].label, rec.flagged[1].prediction) == ("cat 18 x", "18")
    assert (rec.sprite_path, rec.sprite_cell, rec.sprite_columns) == ("sprite.png", 5, 5)
    doc = json.loads((Path(rec.directory) / records.ANOMALY_FILE).read_bytes())
    assert doc["format"] == records.FORMAT and doc["flagged"][0]["score"] is None


def test_reader_rejects_other_formats_and_files_outside_the_run(tmp_path):
    result = robust_outlier_scores(np.r_[np.zeros((9, 1)), [[100.0]]] + np.arange(10)[:, None])
    data = records.encode_record("t", 1, result, None, None, None)
    rec = records.decode_record(data, str(tmp_path))
    assert [(s.index, s.label, s.prediction) for s in rec.flagged] == [(9, None, None)]
    assert rec.sprite_path is None
    bad = json.loads(data)
    bad["format"] = "something/2"
    with pytest.raises(records.AnomalyFormatError, match="anomaly.json: format is 'something/2'"):
        records.decode_record(json.dumps(bad).encode(), str(tmp_path))
    with pytest.raises(records.AnomalyFormatError, match="not a flowjob.anomaly/1 record"):
        records.decode_record(b"{", str(tmp_path))
    # A config pointing outside the run is ignored (as TensorBoard's projector does).
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / records.ANOMALY_FILE).write_bytes(data)
    run = tmp_path / "run"
    run.mkdir()
    (run / "projector_config.pbtxt").write_text(
        'embeddings { tensor_name: "t:00001" tensor_path: "../outside/tensors.tsv" }\n'
    )
    assert read_anomaly_records(str(run)) == []
