"""Summary inputs: odd tags, every image layout, extreme histograms, every hparam value type.

Good inputs must come back unchanged through TensorBoard's own ``EventAccumulator`` (size
guidance 0, i.e. nothing sampled away); bad ones must raise ``TypeError``/``ValueError`` naming
the call and the offending argument before anything is queued.
"""

from __future__ import annotations

import io
import math
import tempfile
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from PIL import Image
from reliability_helpers import tb_accumulator
from tensorboard.plugins.hparams import metadata as hp_metadata
from tensorboard.plugins.hparams import plugin_data_pb2
from tensorboard.util import tensor_util

import flowjob.summary as fs

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NaN monitor, float32 casts
SETTINGS = settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
INT64 = (-(2**63), 2**63 - 1)
# Any code points but surrogates (unicode, '/', NUL); "~anomaly/" is the NaN monitor's namespace.
tags = st.text(min_size=1, max_size=160).filter(lambda t: not t.startswith("~anomaly/"))
steps = st.integers(*INT64)


def _write_and_read(write):
    """Runs ``write(writer)`` on a fresh run directory and returns TensorBoard's accumulator."""
    with tempfile.TemporaryDirectory() as run:
        with fs.SummaryWriter(run, flush_secs=60) as w:
            write(w)
        return tb_accumulator(run)


# --- scalars and tags ------------------------------------------------------------------------
@SETTINGS
@given(st.lists(st.tuples(tags, st.floats(), steps), min_size=1, max_size=12))
def test_scalars_with_any_tag_value_and_step_round_trip(points):
    def write(w):
        for tag, value, step in points:
            w.scalar(tag, value, step)

    acc = _write_and_read(write)
    expected: dict[str, list[tuple[int, float]]] = {}
    for tag, value, step in points:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # beyond float32: inf, as NumPy
            expected.setdefault(tag, []).append((step, float(np.float32(value))))
    nonfinite = sum(not math.isfinite(v) for pts in expected.values() for _, v in pts)
    assert sorted(acc.Tags()["scalars"]) == sorted(
        [*expected, *(["~anomaly/nonfinite_count"] if nonfinite else [])]
    )
    if nonfinite:
        assert acc.Scalars("~anomaly/nonfinite_count")[-1].value == nonfinite
    for tag, want in expected.items():
        got = [(e.step, e.value) for e in acc.Scalars(tag)]
        assert [s for s, _ in got] == [s for s, _ in want]
        np.testing.assert_array_equal([v for _, v in got], [v for _, v in want])


@pytest.mark.parametrize("tag", ["", None, 3, b"loss", ("a",)])
@pytest.mark.parametrize("kind", ["scalar", "histogram", "image", "text"])
def test_bad_tags_are_refused_before_anything_is_written(tmp_path, kind, tag):
    args = {
        "scalar": 1.0,
        "histogram": np.arange(3),
        "image": np.zeros((2, 2), np.uint8),
        "text": "hi",
    }[kind]
    with fs.SummaryWriter(tmp_path) as w:
        with pytest.raises(TypeError, match=rf"SummaryWriter\.{kind}: tag must be a non-empty str"):
            getattr(w, kind)(tag, args, 0)
    acc = tb_accumulator(tmp_path)
    assert not any(acc.Tags()[k] for k in ("scalars", "tensors"))


@pytest.mark.parametrize("step", [1.5, "3", None, True, np.array([1, 2]), np.float64(2.0)])
def test_bad_steps_are_type_errors_naming_the_step(tmp_path, step):
    with fs.SummaryWriter(tmp_path) as w:
        for call in (lambda: w.scalar("s", 1.0, step), lambda: w.histogram("h", [1, 2], step)):
            with pytest.raises(TypeError, match="step must be an int"):
                call()


@pytest.mark.parametrize("step", [2**63, -(2**63) - 1, 2**64 + 5])
def test_steps_beyond_int64_are_clear_errors(tmp_path, step):
    with fs.SummaryWriter(tmp_path) as w:
        with pytest.raises((ValueError, OverflowError), match=r"SummaryWriter\.scalar: step"):
            w.scalar("s", 1.0, step)
        with pytest.raises((ValueError, OverflowError), match=r"SummaryWriter\.histogram: step"):
            w.histogram("h", [1.0], step)


# --- images ----------------------------------------------------------------------------------
@st.composite
def image_inputs(draw):
    n, h, w = draw(st.integers(1, 3)), draw(st.integers(0, 6)), draw(st.integers(0, 6))
    c = draw(st.sampled_from([1, 2, 3, 4, 5]))
    layout = draw(st.sampled_from(["NHWC", "HWC", "HW"]))
    shape = {"NHWC": (n, h, w, c), "HWC": (h, w, c), "HW": (h, w)}[layout]
    kind = draw(st.sampled_from(["uint8", "unit-float", "wide-float", "int16", "bool"]))
    if kind == "uint8":
        a = draw(hnp.arrays(np.uint8, shape))
    elif kind == "unit-float":
        a = draw(hnp.arrays(np.float64, shape, elements=st.floats(0, 1)))
    elif kind == "wide-float":
        a = draw(hnp.arrays(np.float32, shape, elements=st.floats(width=32)))
    else:
        a = draw(hnp.arrays(np.dtype(kind), shape))
    return a


@SETTINGS
@given(image_inputs())
def test_images_round_trip_or_clear_error(images):
    a = images
    batch = a[None, :, :, None] if a.ndim == 2 else a[None] if a.ndim == 3 else a
    ok_shape = batch.shape[-1] in (1, 3, 4) and min(batch.shape[:3]) > 0
    ok_values = a.dtype == np.uint8 or (
        a.dtype.kind == "f" and a.size and np.isfinite(a).all() and a.min() >= 0 and a.max() <= 1
    )
    if not (ok_shape and ok_values):
        with tempfile.TemporaryDirectory() as run, fs.SummaryWriter(run) as w:
            with pytest.raises((ValueError, TypeError), match=r"SummaryWriter\.image: ") as info:
                w.image("img", a, 0)
        msg = str(info.value)  # names the shape (as given or as a batch) or the dtype
        assert str(a.shape) in msg or str(batch.shape) in msg or str(a.dtype) in msg, msg
        return
    acc = _write_and_read(lambda w: w.image("ünï/img", a, 7))
    (event,) = acc.Tensors("ünï/img")
    strings = tensor_util.make_ndarray(event.tensor_proto)
    n, h, w, c = batch.shape
    assert event.step == 7 and strings[:2].tolist() == [str(w).encode(), str(h).encode()]
    want = batch if a.dtype == np.uint8 else np.rint(batch * 255.0).astype(np.uint8)
    assert len(strings) == 2 + n
    for i in range(n):
        png = Image.open(io.BytesIO(strings[2 + i]))
        assert png.mode == {1: "L", 3: "RGB", 4: "RGBA"}[c]
        got = np.asarray(png)
        np.testing.assert_array_equal(got.reshape(h, w, c), want[i])


# --- histograms ------------------------------------------------------------------------------
def _check_buckets(buckets: np.ndarray, values: np.ndarray, k: int) -> None:
    """Counts against an independent count over the returned edges (values within a rounding
    tolerance of an edge may fall on either side)."""
    finite = values[np.isfinite(values)] if values.dtype.kind == "f" else values
    finite = finite.astype(np.float64)
    if finite.size == 0:
        assert buckets.shape == (0, 3)
        return
    assert buckets.shape == (k, 3) and buckets[:, 2].sum() == finite.size
    mn, mx = finite.min(), finite.max()
    assert buckets[0, 0] == mn and buckets[-1, 1] == pytest.approx(mx, rel=1e-12)
    if mn == mx:
        assert buckets[-1, 2] == finite.size
        return
    tol = 1e-9 * (mx * 0.5 - mn * 0.5) * 2  # finite even when max - min overflows
    for (left, right, count), last in zip(buckets, [False] * (k - 1) + [True]):
        surely = np.count_nonzero((finite > left + tol) & (finite < right - tol))
        maybe = np.count_nonzero((finite >= left - tol) & (finite <= right + tol))
        assert surely <= count <= maybe, (left, right, count, surely, maybe, last)


_F32_MAX = float(np.finfo(np.float32).max)
_EXTREMES = {
    16: [2.0**-24, -65504.0, 65504.0],
    32: [2.0**-149, -_F32_MAX, _F32_MAX],
    64: [5e-324, -1.7e308, 1.7e308],
}  # smallest subnormal, near max: spans overflow
float_arrays = st.sampled_from([16, 32, 64]).flatmap(
    lambda bits: hnp.arrays(
        np.dtype(f"float{bits}"),
        hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=20),
        elements=st.floats(allow_nan=False, allow_infinity=False, width=bits)
        | st.sampled_from([np.nan, np.inf, -np.inf])
        | st.sampled_from(_EXTREMES[bits]),
    )
)
int_arrays = hnp.arrays(
    st.sampled_from([np.int8, np.uint8, np.int32, np.int64, np.bool_]),
    hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=20),
)


@SETTINGS
@given(values=float_arrays | int_arrays, bins=st.integers(1, 40))
def test_histograms_of_any_real_array_round_trip(values, bins):
    acc = _write_and_read(lambda w: w.histogram("h/ü", values, 3, bins=bins))
    (event,) = acc.Tensors("h/ü")
    buckets = tensor_util.make_ndarray(event.tensor_proto)
    _check_buckets(buckets, values, bins)


def test_huge_histogram_round_trips(tmp_path):
    values = np.random.default_rng(0).standard_normal(5_000_000).astype(np.float32)
    values[::1000] = np.nan  # left out and counted
    with fs.SummaryWriter(tmp_path) as w:
        w.histogram("big", values, 1)
        assert w.nonfinite.total == 5000
    (event,) = tb_accumulator(tmp_path).Tensors("big")
    _check_buckets(tensor_util.make_ndarray(event.tensor_proto), values, 30)


@pytest.mark.parametrize(
    "values",
    [np.array(["a"]), np.array([1 + 2j]), [object()], np.array([None])],
    ids=["str", "complex", "object", "none"],
)
def test_non_real_histogram_values_are_type_errors(tmp_path, values):
    with fs.SummaryWriter(tmp_path) as w:
        with pytest.raises(TypeError, match=r"SummaryWriter\.histogram: "):
            w.histogram("h", values, 0)


@pytest.mark.parametrize(
    "values", [[-1e308, 0.0, 1e308], [0.0, 5e-324]], ids=["range-overflows", "subnormal-range"]
)
def test_histogram_of_extreme_but_finite_values(tmp_path, values):
    values = np.array(values)
    acc = _write_and_read(lambda w: w.histogram("h", values, 0, bins=4))
    _check_buckets(tensor_util.make_ndarray(acc.Tensors("h")[0].tensor_proto), values, 4)


# --- hparams ---------------------------------------------------------------------------------
hparam_values = st.one_of(
    st.booleans(),
    st.integers(-(2**53), 2**53),
    st.floats(),
    st.text(max_size=20),
    st.integers(-(2**31), 2**31 - 1).map(np.int64),
    st.floats(width=32).map(np.float32),
    st.booleans().map(np.bool_),
    st.floats(allow_nan=False).map(np.array),
)
names = st.text(min_size=1, max_size=20).filter(lambda s: s not in ("loss",))


def _expected_proto_value(v):
    v = v.item() if isinstance(v, (np.generic, np.ndarray)) else v
    if isinstance(v, bool):
        return "bool_value", v
    if isinstance(v, str):
        return "string_value", v
    return "number_value", float(v)


@SETTINGS
@given(
    hp=st.dictionaries(names, hparam_values, min_size=1, max_size=6),
    loss=st.floats(allow_nan=False, allow_infinity=False, width=32),
)
def test_hparams_of_every_value_type_round_trip(hp, loss):
    acc = _write_and_read(lambda w: w.hparams(hp, {"loss": loss}))
    content = acc.PluginTagToContent(hp_metadata.PLUGIN_NAME)
    start = plugin_data_pb2.HParamsPluginData.FromString(
        content[hp_metadata.SESSION_START_INFO_TAG]
    ).session_start_info
    assert sorted(start.hparams) == sorted(hp)
    for name, value in hp.items():
        which, want = _expected_proto_value(value)
        got = start.hparams[name]
        assert got.WhichOneof("kind") == which
        if which == "number_value" and math.isnan(want):
            assert math.isnan(got.number_value)
        else:
            assert getattr(got, which) == want
    experiment = plugin_data_pb2.HParamsPluginData.FromString(
        content[hp_metadata.EXPERIMENT_TAG]
    ).experiment
    assert sorted(i.name for i in experiment.hparam_infos) == sorted(hp)
    assert [(m.name.tag, m.display_name) for m in experiment.metric_infos] == [
        ("~hparams/loss", "loss")
    ]
    assert [e.value for e in acc.Scalars("~hparams/loss")] == [pytest.approx(loss)]


@pytest.mark.parametrize(
    "hp, err, match",
    [
        ({"a": None}, TypeError, "hparam 'a' must be a bool, int, float or str, got NoneType"),
        ({"a": [1, 2]}, TypeError, "hparam 'a' must be a bool, int, float or str, got list"),
        ({"a": 1 + 2j}, TypeError, "hparam 'a' must be a bool, int, float or str, got complex"),
        ({"a": b"x"}, TypeError, "hparam 'a' must be a bool, int, float or str, got bytes"),
        ({"a": np.zeros(2)}, TypeError, "hparam 'a' must be a bool, int, float or str"),
        ({3: 1.0}, TypeError, "keys must be HParam, Metric or a non-empty str, got 3"),
        ({"": 1.0}, TypeError, "keys must be HParam, Metric or a non-empty str"),
        ({fs.HParam("a"): 1, "a": 2}, ValueError, "the key 'a' is already present"),
        ({fs.Metric("m"): "high"}, TypeError, "metric 'm' must be an int or float"),
        ([("a", 1)], TypeError, "expected a dict, got list"),
    ],
)
def test_bad_hparams_are_clear_errors(tmp_path, hp, err, match):
    with fs.SummaryWriter(tmp_path) as w:
        with pytest.raises(err, match=match):
            w.hparams(hp)
    with pytest.raises(KeyError):  # nothing of the hparams plugin reached the file
        tb_accumulator(tmp_path).PluginTagToContent(hp_metadata.PLUGIN_NAME)


@pytest.mark.parametrize(
    "domain, value",
    [
        (fs.RealRange(0.0, 1.0), 0.5),
        (fs.IntegerRange(1, 9), 4),
        (fs.ValueSet([1, 2, 3]), 2),
        (fs.ValueSet([0.5, 1.5]), 1.5),
        (fs.ValueSet([False, True]), False),
        (fs.ValueSet(["adam", "sgd"]), "sgd"),
    ],
)
def test_every_domain_kind_round_trips(tmp_path, domain, value):
    acc = _write_and_read(lambda w: w.hparams({fs.HParam("p", domain): value}))
    content = acc.PluginTagToContent(hp_metadata.PLUGIN_NAME)
    (info,) = plugin_data_pb2.HParamsPluginData.FromString(
        content[hp_metadata.EXPERIMENT_TAG]
    ).experiment.hparam_infos
    if isinstance(domain, fs.ValueSet):
        got = [getattr(v, v.WhichOneof("kind")) for v in info.domain_discrete.values]
        assert got == [float(x) if not isinstance(x, (bool, str)) else x for x in domain.values]
    else:
        assert (info.domain_interval.min_value, info.domain_interval.max_value) == (
            domain.min_value,
            domain.max_value,
        )
    start = plugin_data_pb2.HParamsPluginData.FromString(
        content[hp_metadata.SESSION_START_INFO_TAG]
    ).session_start_info
    which, want = _expected_proto_value(value)
    assert getattr(start.hparams["p"], which) == want


# --- text ------------------------------------------------------------------------------------
@SETTINGS
@given(
    text=st.one_of(
        st.text(),
        st.lists(st.text(), min_size=1, max_size=5),
        st.lists(st.lists(st.text(), min_size=2, max_size=2), min_size=1, max_size=4),
    )
)
def test_text_of_any_unicode_round_trips(text):
    acc = _write_and_read(lambda w: w.text("notes/ü", text, 2))
    (event,) = acc.Tensors("notes/ü")
    got = tensor_util.make_ndarray(event.tensor_proto)
    want = np.array(text, dtype=object)
    assert got.shape == want.shape
    assert [s.decode("utf-8") for s in got.reshape(-1)] == list(want.reshape(-1))
