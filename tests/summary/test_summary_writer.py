"""SummaryWriter: every kind read back with TensorBoard's own readers; NaN/Inf reporting."""

from __future__ import annotations

import io
import warnings

import numpy as np
import pytest
from PIL import Image
from summary_helpers import rendered_table
from tensorboard.backend.event_processing import event_accumulator as ea
from tensorboard.backend.event_processing.event_file_loader import EventFileLoader
from tensorboard.compat.proto import graph_pb2, summary_pb2
from tensorboard.plugins.hparams import api_pb2, metadata
from tensorboard.util import tensor_util

import flowjob.summary as fs
from flowjob.summary import SummaryWriter

ALL = {
    ea.COMPRESSED_HISTOGRAMS: 0,
    ea.IMAGES: 0,
    ea.AUDIO: 0,
    ea.SCALARS: 0,
    ea.HISTOGRAMS: 0,
    ea.TENSORS: 0,
}


def accumulate(logdir) -> ea.EventAccumulator:
    acc = ea.EventAccumulator(str(logdir), size_guidance=ALL)
    acc.Reload()
    return acc


def test_scalars_round_trip(tmp_path):
    values = np.random.default_rng(0).normal(size=1500)
    with SummaryWriter(tmp_path) as w:
        for i, v in enumerate(values):
            w.scalar("loss", v, i)
        w.scalar("int_like", np.int64(3), np.int64(10))
        w.scalar("one_elem", np.array([2.5]), 11)
    acc = accumulate(tmp_path)
    got = acc.Scalars("loss")
    assert [e.step for e in got] == list(range(1500))  # size guidance 0 keeps everything
    np.testing.assert_array_equal([e.value for e in got], values.astype(np.float32))
    assert [(e.step, e.value) for e in acc.Scalars("int_like")] == [(10, 3.0)]
    assert [(e.step, e.value) for e in acc.Scalars("one_elem")] == [(11, 2.5)]


def test_scalar_too_large_for_float32_becomes_inf(tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with SummaryWriter(tmp_path) as w:
            w.scalar("big", 1e300, 0)
    assert accumulate(tmp_path).Scalars("big")[0].value == np.inf


def test_histograms_round_trip_as_k_by_3_tensors(tmp_path):
    rng = np.random.default_rng(1)
    data = [rng.normal(size=(20, 30)).astype(np.float32) for _ in range(3)]
    with SummaryWriter(tmp_path, histogram_bins=20) as w:
        for step, d in enumerate(data):
            w.histogram("w", d, step)
        w.histogram("ints", np.arange(10), 0, bins=5)
    acc = accumulate(tmp_path)
    assert acc.Tags()["tensors"] == ["w", "ints"]
    assert acc.SummaryMetadata("w").plugin_data.plugin_name == "histograms"
    events = acc.Tensors("w")
    assert [e.step for e in events] == [0, 1, 2]
    for e, d in zip(events, data):
        arr = tensor_util.make_ndarray(e.tensor_proto)
        counts, edges = np.histogram(d.astype(np.float64), bins=20)
        assert arr.shape == (20, 3)
        np.testing.assert_allclose(arr[:, 0], edges[:-1])
        np.testing.assert_allclose(arr[:, 1], edges[1:])
        assert abs(arr[:, 2] - counts).sum() <= 2 and arr[:, 2].sum() == d.size
    ints = tensor_util.make_ndarray(acc.Tensors("ints")[0].tensor_proto)
    np.testing.assert_array_equal(ints[:, 2], np.histogram(np.arange(10), bins=5)[0])


def test_metadata_is_sent_with_the_first_value_of_a_tag_only(tmp_path):
    with SummaryWriter(tmp_path) as w:
        for step in range(3):
            w.histogram("h", np.arange(5.0), step)
    events = [e for e in _legacy_events(w.path) if e.HasField("summary")]
    assert [e.summary.value[0].HasField("metadata") for e in events] == [True, False, False]


def _legacy_events(path):
    from tensorboard.backend.event_processing.event_file_loader import LegacyEventFileLoader

    return list(LegacyEventFileLoader(str(path)).Load())


def test_images_round_trip_as_samples_of_one_tag(tmp_path):
    rng = np.random.default_rng(2)
    batch = rng.integers(0, 256, (3, 8, 6, 3), dtype=np.uint8)
    gray = rng.integers(0, 256, (5, 7), dtype=np.uint8)
    with SummaryWriter(tmp_path) as w:
        w.image("batch", batch, 4)
        batch[:] = 0  # the writer copied the data: reusing the buffer must not matter
        w.image("gray", gray, 5)
    acc = accumulate(tmp_path)
    (event,) = acc.Tensors("batch")
    assert event.step == 4
    strings = tensor_util.make_ndarray(event.tensor_proto)
    assert strings[0] == b"6" and strings[1] == b"8" and len(strings) == 5
    expect = np.random.default_rng(2).integers(0, 256, (3, 8, 6, 3), dtype=np.uint8)
    for i in range(3):
        np.testing.assert_array_equal(np.asarray(Image.open(io.BytesIO(strings[2 + i]))), expect[i])
    (g,) = acc.Tensors("gray")
    np.testing.assert_array_equal(
        np.asarray(Image.open(io.BytesIO(tensor_util.make_ndarray(g.tensor_proto)[2]))), gray
    )
    assert acc.SummaryMetadata("gray").plugin_data.plugin_name == "images"


def test_text_round_trip(tmp_path):
    with SummaryWriter(tmp_path) as w:
        w.text("md", "# Title\nsome *markdown*", 1)
        w.text("list", ["a", "b"], 2)
        w.text("table", [["h1", "h2"], ["x", "y"]], 3)
    acc = accumulate(tmp_path)
    md = tensor_util.make_ndarray(acc.Tensors("md")[0].tensor_proto)
    assert md.shape == () and md.item() == b"# Title\nsome *markdown*"
    assert tensor_util.make_ndarray(acc.Tensors("list")[0].tensor_proto).tolist() == [b"a", b"b"]
    assert tensor_util.make_ndarray(acc.Tensors("table")[0].tensor_proto).shape == (2, 2)
    assert acc.SummaryMetadata("md").plugin_data.plugin_name == "text"


def test_pb_accepts_a_summary_or_its_text_format(tmp_path):
    s = fs.text(["vgg16", "resnet50"])
    with SummaryWriter(tmp_path) as w:
        w.pb(s, 1)
        w.pb(np.frombuffer(str(s).encode(), np.int8), 2)
        w.pb('value { tag: "acc" simple_value: 0.75 }', 3)
        with pytest.raises(ValueError, match="not a text-format Summary"):
            w.pb("value { nonsense: 1 }", 4)
    acc = accumulate(tmp_path)
    assert [e.step for e in acc.Tensors("text")] == [1, 2]
    assert [(e.step, e.value) for e in acc.Scalars("acc")] == [(3, 0.75)]


def test_hparams_session_and_end_status(tmp_path):
    with SummaryWriter(tmp_path / "trial") as w:
        w.hparams({fs.HParam("lr", fs.RealRange(0.0, 1.0)): 0.1, "bn": True}, metrics={"loss": 0.5})
        w.scalar("loss", 0.25, 10)
        w.scalar(fs.metric_tag("loss"), 0.125, 10)
    with pytest.raises(RuntimeError), SummaryWriter(tmp_path / "failed") as w2:
        w2.hparams({"lr": 0.2})
        raise RuntimeError("training crashed")
    contents = {}
    for run in ("trial", "failed"):
        for e in EventFileLoader(str(next((tmp_path / run).iterdir()))).Load():
            for v in e.summary.value:
                contents.setdefault((run, v.tag), v)
    exp = metadata.parse_experiment_plugin_data(
        contents["trial", metadata.EXPERIMENT_TAG].metadata.plugin_data.content
    )
    assert [m.name.tag for m in exp.metric_infos] == ["~hparams/loss"]
    ends = {
        run: metadata.parse_session_end_info_plugin_data(
            contents[run, metadata.SESSION_END_INFO_TAG].metadata.plugin_data.content
        ).status
        for run in ("trial", "failed")
    }
    assert ends == {"trial": api_pb2.STATUS_SUCCESS, "failed": api_pb2.STATUS_FAILURE}
    trial = accumulate(tmp_path / "trial")
    assert [e.value for e in trial.Scalars("loss")] == [0.25]  # the user's series only
    assert [e.value for e in trial.Scalars("~hparams/loss")] == [0.5, 0.125]


def test_graph_def(tmp_path):
    g = graph_pb2.GraphDef()
    g.node.add(name="job/dense", op="matmul")
    with SummaryWriter(tmp_path) as w:
        w.graph_def(g.SerializeToString())
    assert accumulate(tmp_path).Graph().node[0].name == "job/dense"


def test_nonfinite_values_are_reported_once_as_summaries_and_a_warning(tmp_path):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with SummaryWriter(tmp_path) as w:
            w.scalar("loss", 1.0, 0)
            w.scalar("loss", float("nan"), 3)
            w.scalar("loss", float("inf"), 4)
            w.histogram("weights", np.array([1.0, np.nan, -np.inf, 2.0]), 5)
            w.pb('value { tag: "acc" simple_value: nan }', 6)
    runtime_warnings = [w for w in caught if issubclass(w.category, RuntimeWarning)]
    assert len(runtime_warnings) == 1
    assert "'loss' at step 3" in str(runtime_warnings[0].message)
    acc = accumulate(tmp_path)
    loss = acc.Scalars("loss")
    assert np.isnan(loss[1].value) and loss[2].value == np.inf  # still logged as is
    counts = [(e.step, e.value) for e in acc.Scalars("~anomaly/nonfinite_count")]
    assert counts == [(3, 1.0), (4, 2.0), (5, 4.0), (6, 5.0)]
    reports = acc.Tensors("~anomaly/report")
    assert [e.step for e in reports] == [3, 5, 6]  # a new tag joins the table
    markdown = tensor_util.make_ndarray(reports[-1].tensor_proto).item().decode()
    header, rows = rendered_table(markdown)
    assert header == ["tag", "first step", "NaN", "+Inf", "-Inf"]
    assert rows == [
        ["loss", "3", "1", "0", "0"],
        ["weights", "5", "1", "0", "1"],
        ["acc", "6", "1", "0", "0"],
    ]
    assert w.nonfinite.total == 5 and list(w.nonfinite.first_seen) == ["loss", "weights", "acc"]


def test_nonfinite_summaries_never_step_back(tmp_path):
    # Tags reach a NaN in any order: the count and report keep their own steps increasing,
    # so TensorBoard keeps every count point.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        with SummaryWriter(tmp_path) as w:
            w.scalar("train|loss_*", float("nan"), 10)
            w.scalar("val", float("inf"), 5)
            w.scalar("val", float("nan"), 12)
    acc = accumulate(tmp_path)
    assert [(e.step, e.value) for e in acc.Scalars("~anomaly/nonfinite_count")] == [
        (10, 1.0),
        (10, 2.0),
        (12, 3.0),
    ]
    reports = acc.Tensors("~anomaly/report")
    assert [e.step for e in reports] == [10, 10]  # "val" joined at step 5: written at 10
    _, rows = rendered_table(tensor_util.make_ndarray(reports[-1].tensor_proto).item().decode())
    assert rows == [["train|loss_*", "10", "1", "0", "0"], ["val", "5", "0", "1", "0"]]


def test_kind_of_a_tag_is_fixed(tmp_path):
    with SummaryWriter(tmp_path) as w:
        w.scalar("x", 1.0, 0)
        with pytest.raises(ValueError, match="'x' was logged as scalar"):
            w.histogram("x", np.ones(3), 1)


@pytest.mark.parametrize(
    "call, err, match",
    [
        (lambda w: w.scalar("t", "abc", 0), TypeError, "value must be a real number"),
        (lambda w: w.scalar("t", np.ones(2), 0), TypeError, "1-element"),
        (lambda w: w.scalar("", 1.0, 0), TypeError, "tag must be a non-empty str"),
        (lambda w: w.scalar(["t"], 1.0, 0), TypeError, "tag"),
        (lambda w: w.scalar("t", 1.0, 1.5), TypeError, "step must be an int"),
        (lambda w: w.scalar("t", 1.0, None), TypeError, "step"),
        (lambda w: w.image("i", np.zeros((2, 2, 2), np.uint8), 0), ValueError, "C in"),
        (lambda w: w.text("s", 5, 0), TypeError, "SummaryWriter.text"),
        (lambda w: w.hparams({"a": 1}, metrics=[1]), TypeError, "metrics must be a dict"),
        (lambda w: w.graph_def("abc"), TypeError, "GraphDef"),
    ],
)
def test_bad_input_is_named(tmp_path, call, err, match):
    with SummaryWriter(tmp_path) as w:
        with pytest.raises(err, match=match):
            call(w)


def test_logging_after_close_fails(tmp_path):
    w = SummaryWriter(tmp_path)
    w.close()
    with pytest.raises(ValueError, match="closed"):
        w.scalar("x", 1.0, 0)


def test_summary_value_kinds_from_pb_are_checked(tmp_path):
    with SummaryWriter(tmp_path) as w:
        w.text("t", "a", 0)
        bad = summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag="t", simple_value=1.0)])
        with pytest.raises(ValueError, match="'t' was logged as text"):
            w.pb(bad, 1)


@pytest.mark.parametrize("step", [2**63, -(2**63) - 1, np.uint64(2**64 - 1)])
def test_steps_outside_int64_are_clear_errors(tmp_path, step):
    with SummaryWriter(tmp_path) as w:
        with pytest.raises(ValueError, match=r"SummaryWriter\.scalar: step must fit in int64"):
            w.scalar("s", 1.0, step)
        with pytest.raises(ValueError, match=r"SummaryWriter\.histogram: step must fit"):
            w.histogram("h", [1.0], step)
        w.scalar("s", 1.0, -(2**63))  # the int64 extremes themselves are fine
        w.scalar("s", 2.0, 2**63 - 1)
    assert [e.step for e in accumulate(tmp_path).Scalars("s")] == [-(2**63), 2**63 - 1]
