"""Blobs are truthy as OneFlow's were (no __bool__: `if bias_blob:` means a bias was given);
len() and iteration fail as they did in OneFlow, with a clear error."""

from __future__ import annotations

import numpy as np
import pytest

import flowjob as flow
import flowjob.typing as tp

pytestmark = pytest.mark.usefixtures("fresh_session")

X = np.arange(12, dtype=np.float32).reshape(3, 4) / 10


def _dense(x, units, name, bias=None):
    """The op-library pattern of 2021: the bias blob is optional and tested with `if`."""
    w = flow.get_variable(name + "_w", (4, units), initializer=flow.constant_initializer(0.5))
    out = flow.matmul(x, w)
    if bias:
        out = flow.nn.bias_add(out, bias)
    return out


def _job():
    @flow.global_function()
    def rnn_cell(x: tp.Numpy.Placeholder((3, 4))) -> tp.Numpy:
        # An all-zero bias (zeros_initializer) is still "a bias was given".
        b = flow.get_variable("b", (2,), initializer=flow.zeros_initializer())
        c = flow.get_variable("c", (2,), initializer=flow.constant_initializer(1.0))
        gate = flow.math.sigmoid(_dense(x, 2, "gate", bias=b))
        cand = _dense(x, 2, "cand", bias=c)
        plain = _dense(x, 2, "plain")
        assert bool(b) and bool(gate > 2.0)  # no value consulted, as in OneFlow
        return gate * cand + plain

    return rnn_cell


def _expected():
    h = X @ np.full((4, 2), 0.5, np.float32)
    return 1 / (1 + np.exp(-h)) * (h + 1.0) + h


@pytest.mark.parametrize("eager", [False, True], ids=["lazy", "eager"])
def test_if_bias_blob_means_a_bias_was_given(eager):
    flow.enable_eager_execution(eager)
    np.testing.assert_allclose(_job()(X), _expected(), rtol=1e-5)


@pytest.mark.parametrize("eager", [False, True], ids=["lazy", "eager"])
def test_len_and_iteration_fail_as_in_oneflow_with_a_clear_error(eager):
    flow.enable_eager_execution(eager)
    seen = {}

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((3, 4))) -> tp.Numpy:
        with pytest.raises(TypeError, match=r"shape\[0\]"):
            len(x)
        with pytest.raises(TypeError, match="not iterable.*flow.split"):
            list(x)
        with pytest.raises(TypeError, match="not iterable"):
            1.0 in x  # noqa: B015
        seen["ok"] = True
        return x

    job(X)
    assert seen == {"ok": True}
