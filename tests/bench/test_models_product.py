"""``bench/_models.py``: the hand-written JAX references with either dense product."""

from __future__ import annotations

import numpy as np
import pytest

from bench import _models


@pytest.mark.parametrize("model, weight", [("mlp", "f32[784,512]"), ("lenet", "f32[3136,512]")])
def test_dot_general_reference_computes_the_plain_one_without_a_weight_copy(model, weight):
    plain = _models.jax_variant(model, 1, train=False)
    same = _models.jax_variant(model, 1, train=False, product="dot_general")
    for i in range(3):
        plain.step(i)
        same.step(i)
    np.testing.assert_allclose(same.extra["losses"], plain.extra["losses"], rtol=1e-5, atol=1e-6)
    x, y = plain.extra["data"][0]
    params = plain.extra["state"]["p"]
    plain_text, same_text = (
        v.extra["jit"].lower(params, x, y).compile().as_text() for v in (plain, same)
    )
    # the plain reference copies the (512, in) weight transposed on each batch-1 call
    assert weight in plain_text
    assert weight not in same_text
