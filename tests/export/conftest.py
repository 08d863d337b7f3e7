"""The ``zoo`` fixture: one session holds the four predict jobs of export_zoo.py (batch 4)
with randomized variables (batch-norm statistics included, so every op changes the result),
defined once for the whole folder."""

from __future__ import annotations

import pytest
from export_zoo import BATCH, Zoo, define_jobs, make_inputs, randomize_variables, xla_outputs

import flowjob as flow


@pytest.fixture(scope="session")
def zoo() -> Zoo:
    flow.clear_default_session()
    jobs = define_jobs(BATCH)
    randomize_variables()
    inputs = make_inputs(BATCH)
    expected = {name: job(*inputs[name].values()) for name, job in jobs.items()}
    variables = set(flow.get_all_variables())
    return Zoo(jobs, inputs, expected, variables, xla_outputs(BATCH, inputs, "_xla"))
