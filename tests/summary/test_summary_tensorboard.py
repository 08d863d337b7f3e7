"""End to end: logs written by SummaryWriter, served by a real TensorBoard (both data servers).

Endpoints and response shapes: visualization.md 5.3.
"""

from __future__ import annotations

import io
import urllib.parse
import warnings

import numpy as np
import pytest
from PIL import Image
from tensorboard.backend.event_processing.event_file_loader import EventFileLoader
from tensorboard.util import tensor_util

import flowjob.summary as fs
from flowjob._src.summary._histogram import histogram_buckets
from flowjob.summary import SummaryWriter

N_STEPS = 1200  # > 1000: every point must come back (--samples_per_plugin scalars=0)
NONFINITE = {5: float("nan"), 6: float("inf"), 7: float("-inf")}
RNG = np.random.default_rng(42)
LOSS = RNG.normal(size=N_STEPS).astype(np.float32)
WEIGHTS = [RNG.normal(size=500) for _ in range(2)]
PICS = RNG.integers(0, 256, (2, 4, 5, 3), dtype=np.uint8)
TRIALS = {"trial-a": (0.01, 2, "adam", True, 0.5), "trial-b": (0.05, 4, "sgd", False, 0.25)}


def _trial_dict(lr, layers, opt, bn):
    return {
        fs.HParam("lr", fs.RealRange(1e-3, 1e-1)): lr,
        fs.HParam("layers", fs.IntegerRange(1, 8)): layers,
        fs.HParam("optimizer", fs.ValueSet(["adam", "sgd"])): opt,
        "use_bn": bn,
    }


@pytest.fixture(scope="module")
def logdir(tmp_path_factory):
    root = tmp_path_factory.mktemp("tb") / "logs"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the NaN report is expected
        with SummaryWriter(root / "kinds") as w:
            for step, v in enumerate(LOSS):
                w.scalar("loss", NONFINITE.get(step, float(v)), step)
            for step, d in enumerate(WEIGHTS):
                w.histogram("weights", d, step)
            w.image("pics", PICS, 1)
            w.text("md", "**bold** text", 1)
            w.text("list", ["vgg16", "resnet50"], 1)
    for run, (lr, layers, opt, bn, final_loss) in TRIALS.items():
        with SummaryWriter(root / run) as w:
            w.hparams(_trial_dict(lr, layers, opt, bn), metrics={"loss": 1.0})
            w.scalar(fs.metric_tag("loss"), final_loss, 100)  # the table shows the last value
            w.scalar("loss", 7.0, 100)  # a series of the metric's name is not the column
    return root


@pytest.fixture(scope="module", params=[False, True], ids=["load_fast=false", "load_fast=true"])
def server(request, logdir, tb_server_module):
    srv = tb_server_module(logdir, load_fast=request.param)
    srv.wait_for(
        lambda: srv.get_json("/data/runs"),
        lambda runs: {"kinds", "trial-a", "trial-b"} <= set(runs),
    )
    return srv


def _q(**kw) -> str:
    return urllib.parse.urlencode(kw)


def _as_float(x) -> float:
    return (
        {"NaN": np.nan, "Infinity": np.inf, "-Infinity": -np.inf}.get(x, x)
        if isinstance(x, str)
        else float(x)
    )


def test_scalars_every_point_and_nonfinite_strings(server):
    path = "/data/plugin/scalars/scalars?" + _q(run="kinds", tag="loss")
    rows = server.wait_for(lambda: server.get_json(path), lambda r: len(r) == N_STEPS)
    assert [r[1] for r in rows] == list(range(N_STEPS))
    assert rows[5][2] == "NaN" and rows[6][2] == "Infinity" and rows[7][2] == "-Infinity"
    expect = LOSS.astype(np.float64)
    for step, v in NONFINITE.items():
        expect[step] = v
    np.testing.assert_array_equal([_as_float(r[2]) for r in rows], expect)


def test_nonfinite_report_is_visible_without_a_plugin(server):
    path = "/data/plugin/scalars/scalars?" + _q(run="kinds", tag="~anomaly/nonfinite_count")
    rows = server.wait_for(lambda: server.get_json(path))
    assert [(r[1], r[2]) for r in rows] == [(5, 1.0), (6, 2.0), (7, 3.0)]
    text = server.get_json("/data/plugin/text/text?" + _q(run="kinds", tag="~anomaly/report"))
    assert text[0]["step"] == 5 and "<table>" in text[0]["text"] and "loss" in text[0]["text"]


def test_histograms(server):
    path = "/data/plugin/histograms/histograms?" + _q(run="kinds", tag="weights")
    rows = server.wait_for(lambda: server.get_json(path), lambda r: len(r) == 2)
    for (_, _step, buckets), data in zip(rows, WEIGHTS):
        expect, _ = histogram_buckets(data, 30)
        np.testing.assert_allclose(np.array(buckets, dtype=float), expect, rtol=1e-12)
    assert [r[1] for r in rows] == [0, 1]
    dist = server.get_json(
        "/data/plugin/distributions/distributions?" + _q(run="kinds", tag="weights")
    )
    assert len(dist) == 2 and len(dist[0][2]) == 9  # nine percentile bands


def _written_pngs(logdir) -> list[bytes]:
    (path,) = (logdir / "kinds").iterdir()
    for e in EventFileLoader(str(path)).Load():
        for v in e.summary.value:
            if v.tag == "pics":
                return list(tensor_util.make_ndarray(v.tensor)[2:])
    raise AssertionError("no image in the event file")


def test_images_bytes_equal_the_png(server, logdir):
    tags = server.get_json("/data/plugin/images/tags")
    assert tags["kinds"]["pics"]["samples"] == 2
    pngs = _written_pngs(logdir)
    for i in range(2):
        (entry,) = server.get_json(
            "/data/plugin/images/images?" + _q(run="kinds", tag="pics", sample=i)
        )
        assert entry["step"] == 1
        blob = server.get("/data/plugin/images/individualImage?" + entry["query"])
        assert blob == pngs[i]
        np.testing.assert_array_equal(np.asarray(Image.open(io.BytesIO(blob))), PICS[i])


def test_text_markdown_vs_table(server):
    md = server.get_json("/data/plugin/text/text?" + _q(run="kinds", tag="md"))
    assert md[0]["text"].strip() == "<p><strong>bold</strong> text</p>"
    table = server.get_json("/data/plugin/text/text?" + _q(run="kinds", tag="list"))[0]["text"]
    assert "<table>" in table and "vgg16" in table and "resnet50" in table


def test_hparams_experiment_domains_and_metrics(server):
    exp = server.wait_for(
        lambda: server.post_json("/data/plugin/hparams/experiment", {"experimentName": ""}),
        lambda e: e.get("hparamInfos"),
    )
    infos = {h["name"]: h for h in exp["hparamInfos"]}
    assert set(infos) == {"lr", "layers", "optimizer", "use_bn"}
    assert infos["lr"]["type"] == "DATA_TYPE_FLOAT64"
    assert infos["lr"]["domainInterval"] == {"minValue": 1e-3, "maxValue": 1e-1}
    assert infos["layers"]["domainInterval"] == {"minValue": 1, "maxValue": 8}
    assert infos["optimizer"]["type"] == "DATA_TYPE_STRING"
    assert sorted(infos["optimizer"]["domainDiscrete"]) == ["adam", "sgd"]
    assert infos["use_bn"]["type"] == "DATA_TYPE_BOOL"
    assert sorted(infos["use_bn"]["domainDiscrete"]) == [False, True]
    assert [(m["name"]["tag"], m["displayName"]) for m in exp["metricInfos"]] == [
        ("~hparams/loss", "loss")
    ]


def test_hparams_two_sibling_trials_are_two_rows(server):
    body = {
        "experimentName": "",
        "startIndex": 0,
        "sliceSize": 100,
        "colParams": [],
        "allowedStatuses": ["STATUS_UNKNOWN", "STATUS_SUCCESS", "STATUS_FAILURE", "STATUS_RUNNING"],
    }
    result = server.wait_for(
        lambda: server.post_json("/data/plugin/hparams/session_groups", body),
        lambda r: r.get("totalSize") == 2,
    )
    rows = {g["sessions"][0]["name"]: g for g in result["sessionGroups"]}
    assert set(rows) == set(TRIALS)
    for run, (lr, layers, opt, bn, final_loss) in TRIALS.items():
        g = rows[run]
        assert g["hparams"] == {"lr": lr, "layers": layers, "optimizer": opt, "use_bn": bn}
        assert type(g["hparams"]["use_bn"]) is bool  # not 1.0
        (metric,) = g["metricValues"]
        assert metric["name"]["tag"] == "~hparams/loss" and metric["value"] == final_loss
        assert g["sessions"][0]["status"] == "STATUS_SUCCESS"


def test_live_values_appear_while_the_writer_is_open(tb_server, tmp_path):
    import time

    flush_secs, reload_secs, slack = 0.5, 1.0, 4.0  # slack: a loaded 2-core test machine
    w = SummaryWriter(tmp_path / "live", flush_secs=flush_secs)
    try:
        w.scalar("x", 1.0, 0)
        srv = tb_server(tmp_path)
        path = "/data/plugin/scalars/scalars?" + _q(run="live", tag="x")
        srv.wait_for(lambda: srv.get_json(path), lambda r: len(r) == 1)
        t0 = time.monotonic()
        w.scalar("x", 2.0, 1)  # no flush(): only the periodic flush makes it visible
        rows = srv.wait_for(lambda: srv.get_json(path), lambda r: len(r) == 2, timeout=20)
        assert time.monotonic() - t0 <= flush_secs + reload_secs + slack
        assert [(r[1], r[2]) for r in rows] == [(0, 1.0), (1, 2.0)]
    finally:
        w.close()
