"""flow.deprecated.nn.Module and flow.find_or_create_module (OneFlow v0.4's op modules)."""

from __future__ import annotations

from typing import Tuple

import numpy as np
import pytest

import flowjob as flow
import flowjob.typing as tp

pytestmark = pytest.mark.usefixtures("fresh_session")


class Scale(flow.deprecated.nn.Module):
    """Multiplies by a growing factor, one op per call named after the call number."""

    def __init__(self):
        flow.deprecated.nn.Module.__init__(self, name="scale")
        self.builder = flow.user_op_module_builder("scalar_mul")
        self.builder.Output("out")
        self.builder.user_op_module.InitOpKernel()

    def forward(self, x):
        return (
            self.builder.OpName(f"Scale_{self.call_seq_no}")
            .Input("in", [x])
            .Attr("has_float_operand", True)
            .Attr("float_operand", float(self.call_seq_no + 2))
            .Build()
            .InferAndTryRun()
            .SoleOutputBlob()
        )


def test_modules_number_their_calls_and_are_found_by_name():
    names = []

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((3,))) -> Tuple[tp.Numpy, tp.Numpy]:
        with flow.scope.namespace("outer"):
            scale = flow.find_or_create_module("s", Scale)
            a = scale(x)
            same = flow.find_or_create_module("s", Scale, reuse=True)
            assert same is scale and scale.module_name == "scale"
            b = same(a)
            names.extend([a.op_name, b.op_name, scale.call_seq_no])
        return a, b

    x = np.array([1.0, -2.0, 0.5], np.float32)
    a, b = job(x)
    np.testing.assert_allclose(a, x * 2)
    np.testing.assert_allclose(b, x * 2 * 3)
    # OpName takes the namespace prefix, as OneFlow's did
    assert names == ["outer-Scale_0", "outer-Scale_1", 2]


def test_a_name_asked_twice_without_reuse_is_an_error():
    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((3,))) -> tp.Numpy:
        flow.find_or_create_module("s", Scale)
        return flow.find_or_create_module("s", Scale)(x)

    with pytest.raises(flow.OpError, match="'s' is already used in job 'job'.*reuse=True"):
        job(np.zeros(3, np.float32))


def test_each_job_has_its_own_modules_and_the_rules_of_a_module():
    @flow.global_function()
    def first(x: tp.Numpy.Placeholder((2,))) -> tp.Numpy:
        return flow.find_or_create_module("s", Scale)(x)

    @flow.global_function()
    def second(x: tp.Numpy.Placeholder((2,))) -> tp.Numpy:
        return flow.find_or_create_module("s", Scale)(x)  # a new module: its first call

    x = np.array([1.0, 3.0], np.float32)
    np.testing.assert_allclose(first(x), 2 * x)
    np.testing.assert_allclose(second(x), 2 * x)
    with pytest.raises(flow.JobDefinitionError):
        flow.find_or_create_module("s", Scale)  # outside a job body
    with pytest.raises(TypeError, match="overrides __call__"):

        class Bad(flow.deprecated.nn.Module):
            def __call__(self, x):
                return x
