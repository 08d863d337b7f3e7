"""The summary job ops of seed 004, run through real jobs and read back with TensorBoard."""

from __future__ import annotations

import io
import warnings

import numpy as np
import pytest
from PIL import Image
from tensorboard.backend.event_processing import event_accumulator as ea
from tensorboard.plugins.hparams import metadata
from tensorboard.util import tensor_util

import flowjob as flow
import flowjob.summary  # noqa: F401 - makes flow.summary available
from flowjob._src.summary import _ops
from tests.timeouts import scaled

ALL = {
    ea.COMPRESSED_HISTOGRAMS: 0,
    ea.IMAGES: 0,
    ea.AUDIO: 0,
    ea.SCALARS: 0,
    ea.HISTOGRAMS: 0,
    ea.TENSORS: 0,
}


def tag_bytes(s: str) -> np.ndarray:
    return np.frombuffer(s.encode(), dtype=np.int8)  # == np.fromstring(s, np.int8) in the docs


def step_arr(i: int) -> np.ndarray:
    return np.array([i], dtype=np.int64)


@pytest.fixture(autouse=True)
def fresh_writer(fresh_session):
    """A fresh session (the root fixture) and no default summary writer left open."""
    _ops.close_default_writer()
    yield
    _ops.close_default_writer()


def mirrored_config():
    func_config = flow.FunctionConfig()
    func_config.default_data_type(flow.float)
    func_config.default_logical_view(flow.scope.mirrored_view())
    return func_config


def define_seed_jobs(logdir: str):
    """The jobs of seed 004 / test_summary.py (image and histogram sizes kept small)."""
    func_config = mirrored_config()
    LN = flow.typing.ListNumpy.Placeholder

    @flow.global_function(function_config=func_config)
    def CreateWriter():
        flow.summary.create_summary_writer(logdir)

    @flow.global_function(function_config=func_config)
    def ScalarJob(
        value: LN((1,), dtype=flow.float),
        step: LN((1,), dtype=flow.int64),
        tag: LN((1000,), dtype=flow.int8),
    ):
        flow.summary.scalar(value, step, tag)

    @flow.global_function(function_config=func_config)
    def HistogramJob(
        value: LN((20, 20, 20), dtype=flow.float),
        step: LN((1,), dtype=flow.int64),
        tag: LN((9,), dtype=flow.int8),
    ):
        flow.summary.histogram(value, step, tag)

    @flow.global_function(function_config=func_config)
    def PbJob(value: LN((1500,), dtype=flow.int8), step: LN((1,), dtype=flow.int64)):
        flow.summary.pb(value, step=step)

    @flow.global_function(function_config=func_config)
    def ImageJob(
        value: LN(shape=(4, 16, 16, 4), dtype=flow.uint8),
        step: LN((1,), dtype=flow.int64),
        tag: LN((10,), dtype=flow.int8),
    ):
        flow.summary.image(value, step, tag)

    @flow.global_function(function_config=func_config)
    def FlushJob():
        flow.summary.flush_summary_writer()

    return CreateWriter, ScalarJob, HistogramJob, PbJob, ImageJob, FlushJob


def test_seed_004_jobs_write_what_tensorboard_reads(tmp_path):
    CreateWriter, ScalarJob, HistogramJob, PbJob, ImageJob, FlushJob = define_seed_jobs(
        str(tmp_path)
    )
    CreateWriter()
    for idx in range(5):
        ScalarJob([np.array([idx * 1.5], np.float32)], [step_arr(idx)], [tag_bytes("scalar")])
    rng = np.random.default_rng(0)
    hist_values = [rng.random((10, 10, 10)).astype(np.float32) for _ in range(2)]
    for i, v in enumerate(hist_values):
        HistogramJob([v], [step_arr(i)], [tag_bytes("histogram")])
    net = ["vgg16", "resnet50", "mask-rcnn", "yolov3"]
    PbJob([tag_bytes(str(flow.summary.text(net)))], [step_arr(0)])
    hp = {
        flow.summary.HParam("learning_rate", flow.summary.RealRange(1e-2, 1e-1)): 0.02,
        flow.summary.HParam("dense_layers", flow.summary.IntegerRange(2, 7)): 5,
        flow.summary.HParam("optimizer", flow.summary.ValueSet(["adam", "sgd"])): "adam",
        flow.summary.HParam("accuracy", flow.summary.RealRange(1e-2, 1e-1)): 0.001,
        flow.summary.HParam("magic", flow.summary.ValueSet([False, True])): True,
        flow.summary.Metric("loss", float): 0.02,
        "dropout": 0.6,
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # 'accuracy' lies outside its range
        PbJob([tag_bytes(str(flow.summary.hparams(hp)))], [step_arr(1)])
    images = rng.integers(0, 256, (3, 16, 16, 3), dtype=np.uint8)
    ImageJob([images], [step_arr(1)], [tag_bytes("image")])
    FlushJob()
    flow.sync_default_session()

    acc = ea.EventAccumulator(str(tmp_path), size_guidance=ALL)
    acc.Reload()
    assert [(e.step, e.value) for e in acc.Scalars("scalar")] == [(i, i * 1.5) for i in range(5)]
    hist = acc.Tensors("histogram")
    assert [e.step for e in hist] == [0, 1]
    for e, v in zip(hist, hist_values):  # the dynamic blob arrives sliced to (10, 10, 10)
        arr = tensor_util.make_ndarray(e.tensor_proto)
        assert arr[:, 2].sum() == v.size and arr[0, 0] == v.min() and arr[-1, 1] == v.max()
    text = tensor_util.make_ndarray(acc.Tensors("text")[0].tensor_proto)
    assert [s.decode() for s in text] == net
    assert acc.SummaryMetadata(metadata.SESSION_START_INFO_TAG).plugin_data.plugin_name == "hparams"
    assert [(e.step, pytest.approx(e.value)) for e in acc.Scalars("~hparams/loss")] == [(1, 0.02)]
    (img,) = acc.Tensors("image")
    strings = tensor_util.make_ndarray(img.tensor_proto)
    assert img.step == 1 and len(strings) == 2 + 3
    for i in range(3):
        np.testing.assert_array_equal(np.asarray(Image.open(io.BytesIO(strings[2 + i]))), images[i])


def test_writing_before_create_is_a_clear_error(tmp_path):
    _, ScalarJob, *_ = define_seed_jobs(str(tmp_path))
    ScalarJob([np.array([1.0], np.float32)], [step_arr(0)], [tag_bytes("x")])
    with pytest.raises(flow.CallbackError, match=r"flow\.summary\.scalar: no summary writer"):
        flow.sync_default_session()


def test_str_tag_and_default_image_tag(tmp_path):
    @flow.global_function(function_config=mirrored_config())
    def Job(
        v: flow.typing.Numpy.Placeholder((1,), dtype=flow.float),
        img: flow.typing.Numpy.Placeholder((1, 2, 3, 1), dtype=flow.uint8),
        step: flow.typing.Numpy.Placeholder((1,), dtype=flow.int64),
    ):
        flow.summary.create_summary_writer(str(tmp_path))
        flow.summary.scalar(v, step, "fixed/tag")
        flow.summary.image(img, step)

    Job(np.array([4.0], np.float32), np.zeros((1, 2, 3, 1), np.uint8), step_arr(9))
    flow.sync_default_session()
    _ops.default_writer().flush()
    acc = ea.EventAccumulator(str(tmp_path), size_guidance=ALL)
    acc.Reload()
    assert [(e.step, e.value) for e in acc.Scalars("fixed/tag")] == [(9, 4.0)]
    assert [e.step for e in acc.Tensors("image")] == [9]


@pytest.mark.parametrize(
    "body, match",
    [
        (
            lambda v, s, t: flow.summary.histogram(v, s, v),
            r"flow\.summary\.histogram: tag must have dtype",
        ),
        (lambda v, s, t: flow.summary.scalar(t, s, t), r"flow\.summary\.scalar: value must have"),
        (lambda v, s, t: flow.summary.scalar(s, v, t), r"flow\.summary\.scalar: step must have"),
        (lambda v, s, t: flow.summary.scalar(v, None, t), r"step is required"),
        (lambda v, s, t: flow.summary.image(v, s, t), r"flow\.summary\.image: value must have"),
        (lambda v, s, t: flow.summary.pb(v, s), r"flow\.summary\.pb: value must have dtype int8"),
        (lambda v, s, t: flow.summary.scalar(1.0, s, t), r"value must be a blob"),
    ],
)
def test_bad_op_inputs_fail_at_trace_time_naming_the_op(body, match):
    @flow.global_function(function_config=mirrored_config())
    def Job(
        v: flow.typing.Numpy.Placeholder((3,), dtype=flow.float),
        s: flow.typing.Numpy.Placeholder((1,), dtype=flow.int64),
        t: flow.typing.Numpy.Placeholder((4,), dtype=flow.int8),
    ):
        body(v, s, t)

    with pytest.raises(flow.OpError, match=match):
        Job(np.zeros(3, np.float32), step_arr(0), tag_bytes("abcd"))


def test_scalar_needs_one_element_at_run_time():
    with pytest.raises(ValueError, match=r"flow\.summary\.scalar: value must have exactly 1"):
        _ops.one_element(np.zeros(2), "scalar", "value")


def test_decode_tag():
    assert _ops.decode_tag(tag_bytes("loss/ünï"), "scalar") == "loss/ünï"
    assert _ops.decode_tag(np.array([97, 98, 0, 0], np.int8), "scalar") == "ab"  # NUL padding
    with pytest.raises(ValueError, match="not UTF-8"):
        _ops.decode_tag(np.array([-1, -2], np.int8), "scalar")
    with pytest.raises(ValueError, match="tag is empty"):
        _ops.decode_tag(np.zeros(0, np.int8), "scalar")


def test_create_again_with_another_logdir_switches_writer(tmp_path):
    w1 = _ops.set_default_writer(str(tmp_path / "a"))
    assert _ops.set_default_writer(str(tmp_path / "a")) is w1
    w2 = _ops.set_default_writer(str(tmp_path / "b"))
    assert w2 is not w1 and w1.closed and _ops.default_writer() is w2


def test_jobs_still_in_flight_at_exit_are_written(tmp_path):
    import os
    import subprocess
    import sys
    import textwrap
    from pathlib import Path

    repo = Path(__file__).resolve().parents[2]
    code = f"""
        import numpy as np
        import flowjob as flow
        import flowjob.summary
        cfg = flow.FunctionConfig()
        cfg.default_logical_view(flow.scope.mirrored_view())

        @flow.global_function(function_config=cfg)
        def CreateWriter():
            flow.summary.create_summary_writer({str(tmp_path)!r})

        @flow.global_function(function_config=cfg)
        def ScalarJob(v: flow.typing.ListNumpy.Placeholder((1,), dtype=flow.float),
                      s: flow.typing.ListNumpy.Placeholder((1,), dtype=flow.int64)):
            flow.summary.scalar(v, s, "loss")

        CreateWriter()
        for i in range(200):
            ScalarJob([np.array([i], np.float32)], [np.array([i], np.int64)])
        # no sync, no flush: the program just ends
    """
    env = dict(os.environ, PYTHONPATH=str(repo))
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=scaled(120),
    )
    assert proc.returncode == 0, proc.stderr
    acc = ea.EventAccumulator(str(tmp_path), size_guidance=ALL)
    acc.Reload()
    assert [(e.step, e.value) for e in acc.Scalars("loss")] == [(i, float(i)) for i in range(200)]
