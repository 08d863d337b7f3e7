"""The experimental-eager bench section compares the same model: flowjob's
``oneflow.experimental`` MLP starts from the weights of the PyTorch variant and takes the
same steps (the same losses along the SGD trajectory for a few steps)."""

from __future__ import annotations

import numpy as np
import pytest

from bench import _experimental, _models


def test_the_experimental_mlp_follows_pytorchs_steps(fresh_session):
    """(``fresh_session`` turns eager mode, which the experimental API enables, off after.)"""
    pytest.importorskip("torch")
    ours = _experimental.experimental_variant("mlp", 16)
    theirs = _models.torch_variant("mlp", 16)
    for i in range(3):
        ours.step(i)
        theirs.step(i)
    # (the bench's random data and lr 0.1 make the loss climb: the same climb in both)
    np.testing.assert_allclose(ours.extra["losses"], theirs.extra["losses"], rtol=2e-4)
    assert len(set(ours.extra["losses"])) == 3  # three different steps, not one repeated
