"""Seed 004's hparams example with ``Metric("loss")`` next to a logged ``loss`` curve: the
curve stays exactly as logged, and TensorBoard's HParams table still shows the metric."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from tensorboard.backend.event_processing import event_accumulator as ea

from tests.timeouts import scaled

PROGRAM = Path(__file__).with_name("programs") / "seed004_loss_and_hparams.py"
REPO = Path(__file__).resolve().parents[2]
LOGGED = [(i, float(np.float32(2.0 / (i + 1)))) for i in range(30)]


@pytest.fixture(scope="module")
def logdir(tmp_path_factory):
    d = tmp_path_factory.mktemp("seed004") / "log"
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH")) if p)
    proc = subprocess.run(
        [sys.executable, "-m", "flowjob", "run", str(PROGRAM), str(d)],
        env=env,
        capture_output=True,
        text=True,
        timeout=scaled(300),
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return d


def test_loss_is_exactly_the_30_logged_points(logdir):
    acc = ea.EventAccumulator(str(logdir), size_guidance={ea.SCALARS: 0})
    acc.Reload()
    assert [(e.step, e.value) for e in acc.Scalars("loss")] == LOGGED
    assert [(e.step, pytest.approx(e.value)) for e in acc.Scalars("~hparams/loss")] == [(1, 0.02)]


def test_tensorboard_shows_the_curve_and_the_metric(logdir, tb_server, load_fast):
    srv = tb_server(
        logdir, load_fast=load_fast, extra_args=("--samples_per_plugin", "scalars=100000")
    )
    rows = srv.wait_for(
        lambda: srv.get_json("/data/plugin/scalars/scalars?run=.&tag=loss"), lambda r: len(r) >= 30
    )
    assert [(step, value) for _, step, value in rows] == LOGGED
    exp = srv.wait_for(
        lambda: srv.post_json("/data/plugin/hparams/experiment", {"experimentName": ""}),
        lambda e: e.get("metricInfos"),
    )
    assert [(m["name"]["tag"], m["displayName"]) for m in exp["metricInfos"]] == [
        ("~hparams/loss", "loss")
    ]
    body = {
        "experimentName": "",
        "startIndex": 0,
        "sliceSize": 10,
        "colParams": [],
        "allowedStatuses": ["STATUS_UNKNOWN", "STATUS_SUCCESS", "STATUS_FAILURE", "STATUS_RUNNING"],
    }
    groups = srv.wait_for(
        lambda: srv.post_json("/data/plugin/hparams/session_groups", body),
        lambda r: r.get("totalSize") == 1,
    )
    (metric,) = groups["sessionGroups"][0]["metricValues"]
    assert metric["name"]["tag"] == "~hparams/loss" and metric["value"] == pytest.approx(0.02)
    assert groups["sessionGroups"][0]["hparams"]["optimizer"] == "adam"
