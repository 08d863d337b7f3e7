"""End to end: projector and anomaly logs served by a real TensorBoard (both data loaders)."""

from __future__ import annotations

import io
import os
import re
import urllib.parse

import numpy as np
import pytest
from PIL import Image

from flowjob._src.cli.board import SAMPLES_PER_PLUGIN
from flowjob._src.summary._projector import Projector
from flowjob._src.summary._writer import SummaryWriter

KEEP_ALL = ("--samples_per_plugin", SAMPLES_PER_PLUGIN)


def q(value: str) -> str:
    return urllib.parse.quote(value, safe="")


@pytest.fixture(scope="module")
def logdir(tmp_path_factory):
    d = tmp_path_factory.mktemp("projector_e2e")
    rng = np.random.default_rng(7)
    # The user's own run ("."), written while the projector writes into the same logdir.
    with SummaryWriter(d) as user:
        user.scalar("loss", 0.5, 1)
        emb = Projector(d)
        emb.create_embedding_projector()
        value = rng.normal(size=(20, 4)).astype(np.float32)
        thumbs = rng.integers(0, 256, size=(20, 8, 8), dtype=np.uint8)
        emb.embedding_projector(
            value=value,
            label=np.arange(20) % 3,
            tag="emb",
            step=1,
            sample_name="s",
            sample_type="image",
            x=thumbs,
        )

        exc = Projector(d)
        exc.create_exception_projector()
        x = rng.integers(60, 90, size=(30, 6, 6), dtype=np.uint8)
        x[[4, 11]] = 250
        scores = exc.exception_projector(
            value=x.reshape(30, -1).astype(np.float32),
            tag="exc",
            step=3,
            sample_name="s",
            sample_type="image",
            x=x,
        )
        exc.close()
        user.scalar("loss", 0.25, 2)
    return d, value, thumbs, x, scores


def test_projector_and_anomaly_over_http(logdir, tb_server, load_fast):
    d, value, thumbs, x, scores = logdir
    assert np.flatnonzero(scores.is_outlier).tolist() == [4, 11]
    # The fixture's "--samples_per_plugin scalars=0,..." makes TensorBoard return 0 points
    # per tag; the last flag wins, so use the board's keep-everything setting instead.
    srv = tb_server(d, load_fast=load_fast, extra_args=KEEP_ALL)
    base = "/data/plugin/projector"
    runs = srv.wait_for(lambda: srv.get_json(f"{base}/runs"), ok=lambda r: "." in r)
    assert runs == ["."]
    info = srv.get_json(f"{base}/info?run=.")
    emb = {e["tensorName"]: e for e in info["embeddings"]}
    assert set(emb) == {"emb:00001", "exc:00003"}
    assert emb["emb:00001"]["tensorShape"] == [20, 4]
    assert emb["emb:00001"]["sprite"]["singleImageDim"] == [8, 8]
    assert emb["exc:00003"]["tensorShape"] == [30, 36]

    got = srv.get(f"{base}/tensor?run=.&name={q('emb:00001')}")
    assert got == value.astype("<f4").tobytes()  # 20 x 4 x 4 bytes
    assert (
        srv.get(f"{base}/tensor?run=.&name={q('exc:00003')}")
        == x.reshape(30, -1).astype("<f4").tobytes()
    )

    meta = srv.get(f"{base}/metadata?run=.&name={q('emb:00001')}").decode().splitlines()
    assert meta == ["index\tlabel"] + [f"{i}\t{i % 3}" for i in range(20)]
    exc_meta = srv.get(f"{base}/metadata?run=.&name={q('exc:00003')}").decode().splitlines()
    assert exc_meta[0] == "index\tanomaly_score\tis_outlier"
    assert [r.split("\t")[2] for r in exc_meta[1:]] == [
        "true" if i in (4, 11) else "false" for i in range(30)
    ]

    png = srv.get(f"{base}/sprite_image?run=.&name={q('emb:00001')}")
    sprite = np.asarray(Image.open(io.BytesIO(png)))
    assert sprite.shape == (40, 40)  # ceil(sqrt(20)) = 5 per row, 8 px each
    np.testing.assert_array_equal(sprite[8:16, 0:8], thumbs[5])

    # Anomaly summaries go into the user's open writer: one run ".", intact.
    assert srv.get_json("/data/runs") == ["."]
    loss = srv.wait_for(
        lambda: srv.get_json("/data/plugin/scalars/scalars?run=.&tag=loss"),
        ok=lambda r: len(r) >= 2,
    )
    assert [(s, v) for _, s, v in loss] == [(1, 0.5), (2, 0.25)]
    outl = srv.wait_for(
        lambda: srv.get_json(f"/data/plugin/scalars/scalars?run=.&tag={q('~anomaly/exc/outliers')}")
    )
    assert [(s, v) for _, s, v in outl] == [(3, 2.0)]
    (report,) = srv.wait_for(
        lambda: srv.get_json(f"/data/plugin/text/text?run=.&tag={q('~anomaly/exc/report')}")
    )
    assert report["step"] == 3 and "<table>" in report["text"]
    header = re.findall(r"<th>(.*?)</th>", report["text"], flags=re.S)
    cells = re.findall(r"<td>(.*?)</td>", report["text"], flags=re.S)
    cells = [re.sub(r"<[^>]+>", "", c).strip() for c in cells]
    assert header == ["rank", "sample", "score", "threshold"]  # a real header row
    assert sorted(cells[1::4]) == ["11", "4"] and cells[3::4] == ["3.5", "3.5"]

    (img,) = srv.wait_for(
        lambda: srv.get_json(f"/data/plugin/images/images?run=.&tag={q('~anomaly/exc/samples')}")
    )
    blob = srv.get(f"/data/plugin/images/individualImage?{img['query']}")
    grid = np.asarray(Image.open(io.BytesIO(blob)))
    assert grid.shape == (6, 12)  # two flagged 6 x 6 samples side by side
    assert (grid == 250).all()


def test_config_stays_valid_for_tensorboard_while_rewritten(tmp_path):
    # Every rewrite is atomic: no temp files are left and the config always parses.
    from google.protobuf import text_format
    from tensorboard.plugins.projector.projector_config_pb2 import ProjectorConfig

    p = Projector(tmp_path)
    p.create_embedding_projector()
    for step in range(5):
        p.embedding_projector(value=np.full((3, 2), step + 1.5), tag="e", step=step)
        text = (tmp_path / "projector_config.pbtxt").read_text()
        assert len(text_format.Parse(text, ProjectorConfig()).embeddings) == step + 1
    assert not [f for f in os.listdir(tmp_path) if f.endswith(".tmp")]
