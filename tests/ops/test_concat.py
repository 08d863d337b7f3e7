"""``flowjob/_src/ops/_concat.py``: concat, stack and split."""

from __future__ import annotations

import numpy as np
from ops_helpers import arange

import flowjob as flow
import flowjob.typing as tp


def test_concat_stack_split():
    a, b = arange(2, 3), arange(2, 2) + 100

    @flow.global_function()
    def job(
        a: tp.Numpy.Placeholder((2, 3)), b: tp.Numpy.Placeholder((2, 2))
    ) -> tp.Bundle[tp.Numpy]:
        parts = flow.split(flow.concat([a, b], axis=1), [1, -1, 2], axis=-1)
        halves = flow.split(a, 2, axis=0)
        return {
            "concat": flow.concat([a, b], axis=-1),
            "concat_values": flow.concat(values=[a, a]),
            "stack": flow.stack([a, a * 2], axis=1),
            "parts": parts,
            "halves": halves,
        }

    got = job(a, b)
    ab = np.concatenate([a, b], axis=1)
    np.testing.assert_array_equal(got["concat"], ab)
    np.testing.assert_array_equal(got["concat_values"], np.concatenate([a, a]))
    np.testing.assert_array_equal(got["stack"], np.stack([a, a * 2], axis=1))
    assert [p.shape for p in got["parts"]] == [(2, 1), (2, 2), (2, 2)]
    np.testing.assert_array_equal(np.concatenate(got["parts"], axis=1), ab)
    np.testing.assert_array_equal(got["halves"][1], a[1:])
