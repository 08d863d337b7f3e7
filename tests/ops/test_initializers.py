"""Initializers: statistics of large draws, bounds, fans, determinism, confs."""

import math

import jax
import numpy as np
import pytest

import flowjob as flow
from flowjob._src import _dtypes
from flowjob._src.ops import initializers as I

KEY = jax.random.PRNGKey(7)
N = 400_000


def draw(init, shape=(N,), dtype=np.float32, key=KEY):
    out = init(key, shape, dtype)
    assert out.shape == tuple(shape) and out.dtype == np.dtype(dtype)
    return np.asarray(out, np.float64)


def truncated_std_factor(k=2.0):
    """Std of a unit normal truncated to [-k, k], from its closed form."""
    pdf = math.exp(-k * k / 2) / math.sqrt(2 * math.pi)
    mass = math.erf(k / math.sqrt(2))
    return math.sqrt(1 - 2 * k * pdf / mass)


def test_constant_zeros_ones_and_int_conf():
    np.testing.assert_array_equal(draw(I.constant_initializer(2.5), (2, 3)), np.full((2, 3), 2.5))
    np.testing.assert_array_equal(draw(I.zeros_initializer(), (4,)), np.zeros(4))
    np.testing.assert_array_equal(draw(I.ones_initializer(), (4,), np.float64), np.ones(4))
    assert I.constant_initializer(2.5).conf == {"constant_conf": {"value": 2.5}}
    assert I.constant_initializer(3, _dtypes.int32).conf == {"constant_int_conf": {"value": 3}}
    np.testing.assert_array_equal(
        draw(I.constant_initializer(3, _dtypes.int32), (2,), np.int32), [3, 3]
    )
    with pytest.raises(TypeError, match="dtype float16 is not supported"):
        I.constant_initializer(1.0, _dtypes.float16)


def test_random_uniform_float_statistics_and_bounds():
    x = draw(I.random_uniform_initializer(-1.0, 3.0))
    assert x.min() >= -1.0 and x.max() < 3.0
    assert abs(x.mean() - 1.0) < 0.01
    assert abs(x.std() - 4.0 / math.sqrt(12)) < 0.01
    assert I.random_uniform_initializer(-1, 3).conf == {
        "random_uniform_conf": {"min": -1.0, "max": 3.0}
    }
    with pytest.raises(ValueError, match="minval \\(2\\) must be <= maxval \\(1\\)"):
        I.random_uniform_initializer(2, 1)


def test_random_uniform_int_is_half_open():
    init = I.random_uniform_initializer(2, 6, _dtypes.int32)
    assert init.conf == {"random_uniform_int_conf": {"min": 2, "max": 6}}
    x = np.asarray(init(KEY, (10_000,), np.int32))
    assert x.dtype == np.int32 and set(np.unique(x)) == {2, 3, 4, 5}


def test_random_normal_statistics_and_seed():
    x = draw(I.random_normal_initializer(mean=1.0, stddev=0.5))
    assert abs(x.mean() - 1.0) < 0.005 and abs(x.std() - 0.5) < 0.005
    seeded = I.random_normal_initializer(seed=3)
    np.testing.assert_array_equal(draw(seeded, (5,)), draw(seeded, (5,), key=jax.random.PRNGKey(1)))


def test_truncated_normal_bound_and_std():
    x = draw(I.truncated_normal_initializer(mean=0.5, stddev=0.2))
    assert np.all(np.abs(x - 0.5) <= 0.4 + 1e-6)
    assert abs(x.mean() - 0.5) < 0.002
    assert abs(x.std() - 0.2 * truncated_std_factor()) < 0.002
    # The tails are really used: the band edges are reached.
    assert np.abs(x - 0.5).max() > 0.39


def test_deprecated_truncated_normal_warns_once(capsys):
    with pytest.warns(FutureWarning, match="truncated_normal_initializer"):
        init = flow.truncated_normal(0.1)
    assert "WARNING: oneflow.truncated_normal is deprecated" in capsys.readouterr().err
    assert init.conf == {"truncated_normal_conf": {"std": 0.1}}
    x = draw(init)
    assert np.all(np.abs(x) <= 0.2 + 1e-6) and abs(x.std() - 0.1 * truncated_std_factor()) < 1e-3
    flow.truncated_normal(0.1)
    assert capsys.readouterr().err == ""


def test_determinism_per_key():
    init = I.xavier_uniform_initializer()
    a = np.asarray(init(jax.random.PRNGKey(1), (5, 4), np.float32))
    b = np.asarray(init(jax.random.PRNGKey(1), (5, 4), np.float32))
    c = np.asarray(init(jax.random.PRNGKey(2), (5, 4), np.float32))
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


@pytest.mark.parametrize(
    "shape, fmt, want",
    [
        ((10, 20), "", (20, 10)),  # dense (units, in)
        ((10, 20), "NCHW", (20, 10)),
        ((8, 4, 3, 5), "NCHW", (60, 120)),  # (out, in, kh, kw)
        ((8, 3, 5, 4), "NHWC", (60, 120)),  # (out, kh, kw, in)
        ((8, 3, 5, 4), "channels_last", (60, 120)),
        ((8, 4, 3, 5), "channels_first", (60, 120)),
        ((8, 4, 3, 5), "", (60, 96)),  # OneFlow v0.4 Python: spatial = shape[1:-1]
        ((7,), "", (1, 7)),
    ],
)
def test_compute_fans_hand_computed(shape, fmt, want):
    assert I.compute_fans(shape, fmt) == want


def test_compute_fans_rejects_bad_format():
    with pytest.raises(ValueError, match='data_format must be "NC..." , "N...C" or ""'):
        I.compute_fans((3, 3, 3), "HWC")


def test_glorot_uniform_bound_and_std_for_conv_nchw():
    shape = (16, 8, 3, 3)  # fan_in 72, fan_out 144
    bound = math.sqrt(6 / (72 + 144))
    x = draw(I.glorot_uniform_initializer("NCHW"), shape).ravel()
    assert np.abs(x).max() <= bound and np.abs(x).max() > 0.99 * bound
    assert abs(x.std() - bound / math.sqrt(3)) < 0.02 * bound
    conf = I.xavier_uniform_initializer("NCHW").conf["variance_scaling_conf"]
    assert conf == {
        "scale": 1.0,
        "variance_norm": "kAverage",
        "distribution": "kRandomUniform",
        "data_format": "channels_first",
    }


def test_glorot_normal_std_for_dense():
    x = draw(I.glorot_normal_initializer(), (400, 600)).ravel()
    assert abs(x.mean()) < 1e-3
    assert abs(x.std() - math.sqrt(2 / 1000)) < 0.01 * math.sqrt(2 / 1000)


@pytest.mark.parametrize("mode, fan", [("fan_in", 50), ("fan_out", 200), ("fan_avg", 125)])
def test_variance_scaling_truncated_normal(mode, fan):
    std = math.sqrt(2.0 / fan)
    x = draw(I.variance_scaling_initializer(2.0, mode), (200, 50)).ravel()
    # std/0.8796 truncated at 2 of those stds: the draw's std is sqrt(scale/fan) again.
    assert np.abs(x).max() <= 2 * std / truncated_std_factor() + 1e-6
    assert abs(x.std() - std) < 0.02 * std


def test_variance_scaling_validation():
    with pytest.raises(ValueError, match="mode must be one of"):
        I.variance_scaling_initializer(mode="fan_sum")
    with pytest.raises(ValueError, match="distribution must be one of"):
        I.variance_scaling_initializer(distribution="gamma")


@pytest.mark.parametrize(
    "nonlinearity, slope, gain",
    [
        ("relu", 0.0, math.sqrt(2)),
        ("leaky_relu", 0.0, math.sqrt(2)),
        ("leaky_relu", 0.2, math.sqrt(2 / 1.04)),
        ("tanh", 0.0, 5 / 3),
        (None, 0.0, 1.0),
    ],
)
def test_kaiming_normal_std(nonlinearity, slope, gain):
    shape = (32, 16, 3, 3)  # fan_in 144
    init = I.kaiming_initializer(shape, nonlinearity=nonlinearity, negative_slope=slope)
    std = gain / math.sqrt(144)
    assert init.conf["random_normal_conf"]["std"] == pytest.approx(std, rel=1e-12)
    x = draw(init, (N,))
    assert abs(x.std() - std) < 0.01 * std


def test_kaiming_uniform_fan_out_nhwc():
    shape = (32, 3, 3, 16)  # fan_out = 32*9 = 288
    init = I.kaiming_initializer(shape, "random_uniform", "fan_out", "relu", data_format="NHWC")
    bound = math.sqrt(3) * math.sqrt(2) / math.sqrt(288)
    assert init.conf["random_uniform_conf"]["max"] == pytest.approx(bound, rel=1e-12)
    x = draw(init, shape)
    assert np.abs(x).max() <= bound


def test_kaiming_validation():
    with pytest.raises(ValueError, match="rank >= 2"):
        I.kaiming_initializer((5,))
    with pytest.raises(ValueError, match="data_format must be 'NCHW' or 'NHWC'"):
        I.kaiming_initializer((5, 5), data_format="")


def test_empty_initializer_is_zeros():
    np.testing.assert_array_equal(draw(I.empty_initializer(), (3,)), np.zeros(3))
    assert I.empty_initializer().conf == {"empty_conf": {}}


@pytest.mark.parametrize(
    "init",
    [
        I.constant_initializer(0.3),
        I.random_uniform_initializer(0, 2),
        I.random_normal_initializer(1, 2),
        I.truncated_normal_initializer(0, 0.1),
        I.variance_scaling_initializer(2.0, "fan_out", "random_normal", "NHWC"),
        I.empty_initializer(),
    ],
)
def test_from_conf_round_trip(init):
    again = I.from_conf(init.conf)
    assert again == init
    np.testing.assert_array_equal(draw(again, (4, 3, 3, 2)), draw(init, (4, 3, 3, 2)))


def test_from_conf_rejects_unknown_kind():
    with pytest.raises(ValueError, match="unknown initializer conf 'xavier_conf'"):
        I.from_conf({"xavier_conf": {}})


def test_half_and_double_dtypes():
    init = I.random_normal_initializer()
    assert init(KEY, (3,), np.float16).dtype == np.float16
    assert init(KEY, (3,), _dtypes.float64).dtype == np.float64


def test_reprs():
    assert (
        repr(I.truncated_normal_initializer(0.0, 0.1))
        == "truncated_normal_initializer(mean=0.0, stddev=0.1)"
    )
    assert (
        repr(I.xavier_uniform_initializer("NCHW"))
        == "glorot_uniform_initializer(data_format='NCHW')"
    )
