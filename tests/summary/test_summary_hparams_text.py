"""flow.summary.text / hparams helpers (spec 5.4): contents, validation, OneFlow seed usage."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from google.protobuf import text_format
from tensorboard.compat.proto import summary_pb2
from tensorboard.plugins.hparams import api_pb2, metadata
from tensorboard.util import tensor_util

import flowjob.summary as fs


def seed_dict():
    """The hparams dict of seed 004 (its 'accuracy' value lies outside its declared range)."""
    return {
        fs.HParam("learning_rate", fs.RealRange(1e-2, 1e-1)): 0.02,
        fs.HParam("dense_layers", fs.IntegerRange(2, 7)): 5,
        fs.HParam("optimizer", fs.ValueSet(["adam", "sgd"])): "adam",
        fs.HParam("accuracy", fs.RealRange(1e-2, 1e-1)): 0.001,
        fs.HParam("magic", fs.ValueSet([False, True])): True,
        fs.Metric("loss", float): 0.02,
        "dropout": 0.6,
    }


def by_tag(summary):
    return {v.tag: v for v in summary.value}


# --- text ----------------------------------------------------------------------------------
def test_text_list_is_rank1_string_tensor_as_oneflow_wrote_it():
    net = ["vgg16", "resnet50", "mask-rcnn", "yolov3"]
    (value,) = fs.text(net).value
    assert value.tag == "text"
    assert value.metadata.plugin_data.plugin_name == "text"
    arr = tensor_util.make_ndarray(value.tensor)
    assert arr.shape == (4,) and [s.decode() for s in arr] == net


def test_text_str_is_rank0_and_table_is_rank2():
    (value,) = fs.text("**bold** ünïcode", tag="notes").value
    assert value.tag == "notes"
    assert tensor_util.make_ndarray(value.tensor).shape == ()
    assert value.tensor.string_val == ["**bold** ünïcode".encode()]
    (table,) = fs.text([["a", "b"], ["1", "2"], ["3", "4"]]).value
    assert tensor_util.make_ndarray(table.tensor).shape == (3, 2)


def test_text_survives_the_text_format_round_trip_used_by_pb_jobs():
    s = fs.text(["x", "y"])
    assert text_format.Parse(str(s), summary_pb2.Summary()) == s


@pytest.mark.parametrize(
    "bad, err, match",
    [
        ([], ValueError, "empty"),
        ([1, 2], TypeError, "must be str"),
        (3, TypeError, "expected a str"),
        ([["a"], ["b", "c"]], ValueError, "equal length"),
    ],
)
def test_text_bad_input(bad, err, match):
    with pytest.raises(err, match=match):
        fs.text(bad)


def test_text_bad_tag():
    with pytest.raises(TypeError, match="tag"):
        fs.text("x", tag=3)


# --- hparams domain objects -----------------------------------------------------------------
@pytest.mark.parametrize(
    "make, err, match",
    [
        (lambda: fs.IntegerRange(1.5, 3), TypeError, "min_value must be an int"),
        (lambda: fs.IntegerRange(True, 3), TypeError, "int"),
        (lambda: fs.IntegerRange(5, 3), ValueError, "min_value"),
        (lambda: fs.RealRange("a", 1.0), TypeError, "float"),
        (lambda: fs.RealRange(2.0, 1.0), ValueError, "min_value"),
        (lambda: fs.ValueSet([]), ValueError, "empty"),
        (lambda: fs.ValueSet([1, "a"]), TypeError, "every value must be int"),
        (lambda: fs.ValueSet([1, True]), TypeError, "every value"),
        (lambda: fs.ValueSet([[1]]), ValueError, "dtype"),
        (lambda: fs.HParam("x", (0, 1)), ValueError, "IntegerRange, RealRange, ValueSet"),
        (lambda: fs.HParam("", None), TypeError, "name"),
        (lambda: fs.Metric("m", str), ValueError, "int or float"),
    ],
)
def test_domain_validation(make, err, match):
    with pytest.raises(err, match=match):
        make()


def test_domain_properties():
    assert (fs.RealRange(1e-2, 1e-1).min_value, fs.RealRange(1e-2, 1e-1).max_value) == (0.01, 0.1)
    assert fs.ValueSet(["sgd", "adam"]).values == ["adam", "sgd"]
    assert fs.ValueSet([True, False]).dtype is bool
    assert fs.Metric("loss").dtype is float
    assert fs.Hparam is fs.HParam


# --- hparams summary ------------------------------------------------------------------------
def test_seed_hparams_summary_contents():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        summary = fs.hparams(seed_dict(), start_time_secs=123.0)
    assert any("'accuracy'" in str(w.message) and "outside" in str(w.message) for w in caught)
    values = by_tag(summary)
    assert set(values) == {
        metadata.EXPERIMENT_TAG,
        metadata.SESSION_START_INFO_TAG,
        metadata.SESSION_END_INFO_TAG,
        "~hparams/loss",
    }
    for tag in (metadata.EXPERIMENT_TAG, metadata.SESSION_START_INFO_TAG):
        assert values[tag].metadata.plugin_data.plugin_name == "hparams"

    exp = metadata.parse_experiment_plugin_data(
        values[metadata.EXPERIMENT_TAG].metadata.plugin_data.content
    )
    infos = {h.name: h for h in exp.hparam_infos}
    assert infos["learning_rate"].type == api_pb2.DATA_TYPE_FLOAT64
    assert (
        infos["learning_rate"].domain_interval.min_value,
        infos["learning_rate"].domain_interval.max_value,
    ) == (0.01, 0.1)
    assert (
        infos["dense_layers"].domain_interval.min_value,
        infos["dense_layers"].domain_interval.max_value,
    ) == (2, 7)
    assert infos["optimizer"].type == api_pb2.DATA_TYPE_STRING
    assert [v.string_value for v in infos["optimizer"].domain_discrete.values] == ["adam", "sgd"]
    assert infos["magic"].type == api_pb2.DATA_TYPE_BOOL
    assert [v.bool_value for v in infos["magic"].domain_discrete.values] == [False, True]
    assert infos["dropout"].type == api_pb2.DATA_TYPE_FLOAT64
    # The metric value has its own tag, so a user's "loss" series stays as logged; the
    # table still labels the column "loss".
    assert [(m.name.tag, m.display_name) for m in exp.metric_infos] == [("~hparams/loss", "loss")]

    start = metadata.parse_session_start_info_plugin_data(
        values[metadata.SESSION_START_INFO_TAG].metadata.plugin_data.content
    )
    assert start.start_time_secs == 123.0
    assert start.hparams["magic"].WhichOneof("kind") == "bool_value"  # bool stays bool
    assert start.hparams["magic"].bool_value is True
    assert start.hparams["optimizer"].string_value == "adam"
    assert start.hparams["dense_layers"].number_value == 5.0
    assert "loss" not in start.hparams
    assert start.group_name == ""  # TensorBoard names the trial after its run

    assert values["~hparams/loss"].simple_value == pytest.approx(0.02)
    end = metadata.parse_session_end_info_plugin_data(
        values[metadata.SESSION_END_INFO_TAG].metadata.plugin_data.content
    )
    assert end.status == api_pb2.STATUS_SUCCESS


def test_seed_hparams_text_fits_the_seeds_pb_placeholder():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        text = str(fs.hparams(seed_dict()))
    assert len(np.frombuffer(text.encode(), np.int8)) <= 1500  # PbJob's (1500,) int8 input
    assert text_format.Parse(text, summary_pb2.Summary()) is not None


def test_hparams_options():
    s = fs.hparams(
        {"lr": np.float32(0.5), "name": "a"}, trial_id="t1", experiment=False, status=None
    )
    values = by_tag(s)
    assert set(values) == {metadata.SESSION_START_INFO_TAG}
    start = metadata.parse_session_start_info_plugin_data(
        values[metadata.SESSION_START_INFO_TAG].metadata.plugin_data.content
    )
    assert start.group_name == "t1" and start.hparams["lr"].number_value == 0.5
    for status in ("running", fs.TrialStatus.RUNNING):  # the enum or its value
        end = by_tag(fs.hparams({"lr": 0.1}, status=status))[metadata.SESSION_END_INFO_TAG]
        assert (
            metadata.parse_session_end_info_plugin_data(end.metadata.plugin_data.content).status
            == api_pb2.STATUS_RUNNING
        )
    with pytest.raises(ValueError, match=r"status must be one of \['unknown', 'success'"):
        fs.hparams({"lr": 0.1}, status="done")


@pytest.mark.parametrize(
    "d, err, match",
    [
        ({"a": 1, fs.HParam("a"): 2}, ValueError, "already present"),
        ({"a": [1]}, TypeError, "hparam 'a' must be a bool, int, float or str"),
        ({fs.Metric("m"): "high"}, TypeError, "metric 'm' must be an int or float"),
        ({3: 1}, TypeError, "keys must be"),
        ([("a", 1)], TypeError, "expected a dict"),
    ],
)
def test_hparams_bad_input(d, err, match):
    with pytest.raises(err, match=match):
        fs.hparams(d)


def test_hparams_config_is_experiment_only():
    s = fs.hparams_config(
        [fs.HParam("lr", fs.RealRange(0.0, 1.0)), "bs"], [fs.Metric("loss"), "acc"]
    )
    (value,) = s.value
    exp = metadata.parse_experiment_plugin_data(value.metadata.plugin_data.content)
    assert [h.name for h in exp.hparam_infos] == ["lr", "bs"]
    assert [(m.name.tag, m.display_name) for m in exp.metric_infos] == [
        ("~hparams/loss", "loss"),
        ("~hparams/acc", "acc"),
    ]
