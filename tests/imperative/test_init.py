"""flow.nn.init: gains, fans and the drawn distributions against NumPy statistics."""

import math
import subprocess
import sys

import numpy as np
import pytest

import flowjob as flow
from tests.timeouts import scaled

init = flow.nn.init


@pytest.mark.parametrize(
    ("nonlinearity", "param", "gain"),
    [
        ("linear", None, 1.0),
        ("conv2d", None, 1.0),
        ("conv_transpose3d", None, 1.0),
        ("sigmoid", None, 1.0),
        ("tanh", None, 5 / 3),
        ("relu", None, 2**0.5),
        ("leaky_relu", None, (2 / (1 + 0.01**2)) ** 0.5),
        ("leaky_relu", 0.2, (2 / 1.04) ** 0.5),
        ("leaky_relu", 0, 2**0.5),
        ("selu", None, 0.75),
    ],
)
def test_calculate_gain(nonlinearity, param, gain):
    assert init.calculate_gain(nonlinearity, param) == pytest.approx(gain, rel=1e-15)


def test_calculate_gain_rejects_unknown_names_and_bad_slopes():
    with pytest.raises(ValueError, match="'softplus'"):
        init.calculate_gain("softplus")
    with pytest.raises(ValueError, match="True"):
        init.calculate_gain("leaky_relu", True)


def _std_close(values, std, rel=0.02):
    assert abs(values.mean()) < 4 * std / math.sqrt(values.size)
    assert values.std() == pytest.approx(std, rel=rel)


def test_constant_ones_zeros():
    t = flow.Tensor(3, 4)
    assert init.constant_(t, 0.5) is t
    np.testing.assert_array_equal(t.numpy(), np.full((3, 4), 0.5, np.float32))
    init.ones_(t)
    np.testing.assert_array_equal(t.numpy(), np.ones((3, 4), np.float32))
    init.zeros_(t)
    np.testing.assert_array_equal(t.numpy(), np.zeros((3, 4), np.float32))


def test_uniform_and_normal():
    t = flow.Tensor(300, 400)
    values = init.uniform_(t, -2.0, 6.0).numpy()
    assert -2 <= values.min() < -1.99 and 5.99 < values.max() < 6
    assert values.mean() == pytest.approx(2.0, abs=0.02)
    assert values.std() == pytest.approx(8 / math.sqrt(12), rel=0.01)
    values = init.normal_(t, 1.5, 0.3).numpy()
    assert values.mean() == pytest.approx(1.5, abs=0.003)
    assert values.std() == pytest.approx(0.3, rel=0.01)
    second = init.normal_(t, 1.5, 0.3).numpy()
    assert not np.array_equal(values, second)  # each fill draws afresh


@pytest.mark.parametrize(
    ("shape", "data_format", "fan_in", "fan_out"),
    [
        ((256, 128), "NCHW", 128, 256),
        ((64, 32, 3, 3), "NCHW", 32 * 9, 64 * 9),
        ((64, 3, 3, 32), "NHWC", 32 * 9, 64 * 9),
        ((16, 8, 5), "NCHW", 8 * 5, 16 * 5),
    ],
)
def test_xavier_uses_the_fans_of_the_layout(shape, data_format, fan_in, fan_out):
    t = flow.Tensor(*shape)
    bound = 1.5 * math.sqrt(6 / (fan_in + fan_out))
    values = init.xavier_uniform_(t, 1.5, data_format=data_format).numpy()
    assert np.abs(values).max() <= bound and np.abs(values).max() > 0.97 * bound
    assert values.std() == pytest.approx(bound / math.sqrt(3), rel=0.05)
    values = init.xavier_normal_(t, 1.5, data_format=data_format).numpy()
    assert values.std() == pytest.approx(1.5 * math.sqrt(2 / (fan_in + fan_out)), rel=0.05)


@pytest.mark.parametrize(
    ("mode", "fan"), [("fan_in", 32 * 9), ("fan_out", 64 * 9), ("fan_avg", 48 * 9)]
)
@pytest.mark.parametrize(("nonlinearity", "a"), [("relu", 0), ("leaky_relu", 0.1), ("tanh", 0)])
def test_kaiming_std_follows_gain_and_fan_mode(mode, fan, nonlinearity, a):
    t = flow.Tensor(64, 32, 3, 3)
    gain = {"relu": math.sqrt(2), "leaky_relu": math.sqrt(2 / 1.01), "tanh": 5 / 3}[nonlinearity]
    std = gain / math.sqrt(fan)
    values = init.kaiming_normal_(t, a, mode, nonlinearity).numpy()
    _std_close(values, std, rel=0.03)
    values = init.kaiming_uniform_(t, a, mode, nonlinearity).numpy()
    assert np.abs(values).max() <= math.sqrt(3) * std
    _std_close(values, std, rel=0.03)


def test_kaiming_defaults_are_leaky_relu_with_slope_0_on_fan_in():
    t = flow.Tensor(512, 256)
    values = init.kaiming_uniform_(t).numpy()
    bound = math.sqrt(3) * math.sqrt(2) / math.sqrt(256)
    assert 0.99 * bound < np.abs(values).max() <= bound


def test_fans_need_rank_2_and_a_known_mode():
    with pytest.raises(ValueError, match="rank >= 2"):
        init.xavier_uniform_(flow.Tensor(5))
    with pytest.raises(ValueError, match="'fan_sum'"):
        init.kaiming_normal_(flow.Tensor(5, 5), mode="fan_sum")
    with pytest.raises(ValueError, match="data_format"):
        init.xavier_normal_(flow.Tensor(5, 5), data_format="CHWN")


def _draws_in_a_new_process(seed):
    code = (
        "import flowjob as flow\n"
        + (f"flow.config.seed({seed})\n" if seed is not None else "")
        + "t = flow.Tensor(3)\n"
        "print(flow.nn.init.normal_(t).tolist(), flow.nn.init.uniform_(t).tolist())\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=scaled(300),
        check=True,
    )
    return out.stdout.strip()


def test_fills_are_reproducible_and_follow_flow_config_seed():
    first = _draws_in_a_new_process(None)
    assert first == _draws_in_a_new_process(None)
    assert first == _draws_in_a_new_process(0)  # 0 is the default seed
    assert first != _draws_in_a_new_process(7)
