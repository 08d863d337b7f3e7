"""``flowjob/_src/ops/_shape.py``: reshape, transpose, squeeze, expand and broadcasts."""

from __future__ import annotations

import numpy as np
from ops_helpers import arange

import flowjob as flow
import flowjob.typing as tp


def test_reshape_transpose_squeeze_expand_flatten():
    x = arange(2, 3, 4)

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((2, 3, 4))) -> tp.Bundle[tp.Numpy]:
        return {
            "reshape": flow.reshape(x, (4, -1)),
            "reshape_list": flow.reshape(x, [24]),
            "transpose": flow.transpose(x, perm=[2, 0, 1]),
            "transpose_default": flow.transpose(x),
            "expand": flow.expand_dims(x, axis=1),
            "expand_end": flow.expand_dims(x, -1),
            "squeeze_all": flow.squeeze(flow.reshape(x, (1, 2, 1, 12))),
            "squeeze_axis": flow.squeeze(flow.reshape(x, (1, 2, 1, 12)), axis=[2]),
            "flatten": flow.flatten(x, start_dim=1),
            "flatten_mid": flow.flatten(x, 0, 1),
        }

    got = job(x)
    want = {
        "reshape": x.reshape(4, 6),
        "reshape_list": x.reshape(24),
        "transpose": x.transpose(2, 0, 1),
        "transpose_default": x.transpose(),
        "expand": x[:, None],
        "expand_end": x[..., None],
        "squeeze_all": x.reshape(2, 12),
        "squeeze_axis": x.reshape(1, 2, 12),
        "flatten": x.reshape(2, 12),
        "flatten_mid": x.reshape(6, 4),
    }
    for k, w in want.items():
        assert got[k].shape == w.shape, k
        np.testing.assert_array_equal(got[k], w, err_msg=k)
