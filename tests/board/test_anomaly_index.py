"""The Anomalies tab's index: with 60,000 checkpoint-like files under the log directory, a
request lists no directory again (only stats the known ones), and the records it serves are
the ones the projector wrote, per run."""

from __future__ import annotations

import json
import os
import time

import numpy as np
import pytest
from tensorboard.plugins import base_plugin
from werkzeug.test import Client

from flowjob._src.board_plugin import AnomalyPlugin
from flowjob._src.board_plugin._index import AnomalyIndex
from flowjob.summary import Projector, read_anomaly_records

CHECKPOINT_DIRS, FILES_PER_DIR = 60, 1000  # 60,000 files


def _project(logdir, run, step, outlier_row):
    rows = np.r_[np.zeros((19, 3)), [[40.0, 0.0, 0.0]]] + np.arange(20)[:, None] * 0.01
    rows[[19, outlier_row]] = rows[[outlier_row, 19]]
    with Projector(logdir / run) as projector:
        projector.create_exception_projector()
        projector.exception_projector(value=rows, tag="feat", step=step)


@pytest.fixture(scope="module")
def big_logdir(tmp_path_factory):
    logdir = tmp_path_factory.mktemp("logs")
    for d in range(CHECKPOINT_DIRS):
        ckpt = logdir / "a" / "checkpoints" / f"snapshot_{d}"
        ckpt.mkdir(parents=True)
        for i in range(FILES_PER_DIR):
            (ckpt / f"var_{i}").touch()
    _project(logdir, "a", 1, 3)
    _project(logdir, "b/trial", 2, 7)
    return logdir


def _client(logdir) -> tuple[AnomalyPlugin, Client]:
    plugin = AnomalyPlugin(base_plugin.TBContext(logdir=str(logdir)))
    apps = plugin.get_plugin_apps()

    def app(environ, start_response):
        return apps[environ["PATH_INFO"]](environ, start_response)

    return plugin, Client(app)


def test_requests_do_not_walk_the_checkpoints_again(big_logdir):
    plugin, client = _client(big_logdir)
    index = plugin._index
    index.max_age = 0.0  # every request refreshes: the worst case
    assert plugin.is_active()
    after_first = index.listings
    # The first refresh lists each directory once: 60 snapshots and the few above them.
    assert CHECKPOINT_DIRS <= after_first <= CHECKPOINT_DIRS + 10
    for _ in range(20):
        body = json.loads(client.get("/reports").data)
        assert plugin.is_active()
    assert index.listings == after_first  # nothing changed: only stats, no listing
    assert body["runs"] == ["a", "b/trial"]
    assert [(r["run"], r["step"], [s["index"] for s in r["flagged"]]) for r in body["reports"]] == [
        ("a", 1, [3]),
        ("b/trial", 2, [7]),
    ]
    only_b = json.loads(client.get("/reports?run=b/trial").data)
    assert only_b["runs"] == ["a", "b/trial"] and [r["run"] for r in only_b["reports"]] == [
        "b/trial"
    ]


def test_new_runs_and_steps_are_found_by_listing_only_what_changed(tmp_path):
    for d in range(5):
        (tmp_path / "ckpt" / str(d)).mkdir(parents=True)
    index = AnomalyIndex(str(tmp_path), max_age=0.0)
    assert index.runs() == {}
    before = index.listings
    time.sleep(0.01)  # a new mtime for the directories that change
    _project(tmp_path, "new", 5, 2)
    assert index.runs() == {"new": str(tmp_path / "new")}
    # The logdir (new entry) and the new run; not the 6 untouched checkpoint directories.
    assert index.listings - before == 2
    assert index.records("new") == read_anomaly_records(str(tmp_path / "new"))
    _project(tmp_path, "new", 6, 4)  # a later step: the config is replaced, records re-read
    assert [(r.step, r.flagged[0].index) for r in index.records("new")] == [(5, 2), (6, 4)]
    os.rename(tmp_path / "new", tmp_path / "renamed")
    assert list(index.runs()) == ["renamed"] and index.records("new") == []
