"""``flow.experimental.enable_typing_check``: with it on, OneFlow v0.4 refused a job function
that left a parameter or its return unannotated; it may be switched only before the session
has a job; off (the default) annotations stay optional."""

from __future__ import annotations

import numpy as np
import pytest

import flowjob as flow
import flowjob.typing as tp
from flowjob.errors import ConfigError, JobDefinitionError

pytestmark = pytest.mark.usefixtures("fresh_session")


@pytest.fixture(autouse=True)
def _typing_check_off():
    yield
    flow.clear_default_session()
    flow.experimental.enable_typing_check(False)


def test_on_every_parameter_and_the_return_must_be_annotated():
    flow.experimental.enable_typing_check()
    with pytest.raises(JobDefinitionError, match="job 'loose': parameter 'x' is not annotated"):

        @flow.global_function()
        def loose(x) -> tp.Numpy:
            return x

    with pytest.raises(JobDefinitionError, match="job 'no_return': no return annotation"):

        @flow.global_function()
        def no_return(x: tp.Numpy.Placeholder((2,))):
            return x

    @flow.global_function()
    def annotated(x: tp.Numpy.Placeholder((2,))) -> tp.Numpy:
        return x * 2.0

    np.testing.assert_array_equal(annotated(np.ones(2, np.float32)), [2.0, 2.0])


def test_off_by_default_a_job_without_a_return_annotation_runs():
    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((2,))):
        return x + 1.0

    np.testing.assert_array_equal(job(np.zeros(2, np.float32)).get().numpy(), [1.0, 1.0])


def test_switching_after_a_job_was_defined_is_refused_until_the_session_is_cleared():
    @flow.global_function()
    def first(x: tp.Numpy.Placeholder((2,))) -> tp.Numpy:
        return x

    with pytest.raises(ConfigError, match=r"after the job\(s\) \['first'\] were defined"):
        flow.experimental.enable_typing_check()
    flow.clear_default_session()
    flow.experimental.enable_typing_check()  # allowed again
