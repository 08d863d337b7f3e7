"""``flow.experimental.custom_op_module``: op facts read from a REGISTER_USER_OP file, NumPy
kernels from ``<name>_py_kernel.py``; values against NumPy, gradients against ``jax.grad``."""

from __future__ import annotations

import textwrap

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import flowjob as flow
import flowjob.typing as tp
from flowjob.errors import FlowJobError, NativeBuildError

pytestmark = pytest.mark.usefixtures("fresh_session")

# tanh(x) * x, its backward op fed x (forward input) and dy (gradient of y).
DEFS = """
#include "oneflow/core/framework/framework.h"
namespace oneflow {
// the forward op
REGISTER_USER_OP("xtanh_forward")
    .Input("x")
    .Output("y")
    .Attr<std::string>("device_sub_tag", "py")
    .Attr<float>("unused_scale", 2.5)
    .SetTensorDescInferFn([](user_op::InferContext* ctx) -> Maybe<void> {
      const Shape* x_shape = ctx->Shape4ArgNameAndIndex("x", 0);
      *ctx->Shape4ArgNameAndIndex("y", 0) = *x_shape;
      return Maybe<void>::Ok();
    })
    .SetGetSbpFn([](user_op::SbpContext* ctx) -> Maybe<void> { return Maybe<void>::Ok(); })
    .SetDataTypeInferFn([](user_op::InferContext* ctx) -> Maybe<void> {
      *ctx->Dtype4ArgNameAndIndex("y", 0) = *ctx->Dtype4ArgNameAndIndex("x", 0);
      return Maybe<void>::Ok();
    });
REGISTER_USER_OP("xtanh_backward")
    .Input("x")
    .Input("dy")
    .Output("dx")
    .SetTensorDescInferFn([](user_op::InferContext* ctx) -> Maybe<void> {
      CHECK(*ctx->Shape4ArgNameAndIndex("x", 0) == *ctx->Shape4ArgNameAndIndex("dy", 0));
      *ctx->Shape4ArgNameAndIndex("dx", 0) = Shape({ctx->Shape4ArgNameAndIndex("x", 0)->At(0),
                                                    ctx->Shape4ArgNameAndIndex("x", 0)->At(1)});
      return Maybe<void>::Ok();
    });
REGISTER_USER_OP_GRAD("xtanh_forward")
    .SetBackwardOpConfGenFn([](user_op::BackwardOpConfContext* ctx) {
      const auto op_name = ctx->FwOp().op_name() + "_grad";
      const auto& make = [&ctx](user_op::BackwardOpBuilder& builder) {
        return builder.OpTypeName("xtanh_backward")
            .InputBind("x", ctx->FwOp().input("x", 0))
            .InputBind("dy", ctx->FwOp().output_grad("y", 0))
            .Output("dx")
            .Build();
      };
      ctx->DefineOp(op_name, make);
      const auto& get_dx = [&ctx, &op_name]() -> const std::string& {
        return ctx->GetOp(op_name).output("dx", 0);
      };
      ctx->FwOp().InputGradBind(user_op::OpArg("x", 0), get_dx);
    });
}  // namespace oneflow
"""
KERNELS = """
import numpy as np
CALLS = []

def forward(args):
    (x,) = args
    CALLS.append("forward")
    return np.tanh(x) * x

def backward(args):
    x, dy = args
    CALLS.append("backward")
    t = np.tanh(x)
    return [dy * (t + x * (1 - t * t))]
"""
API = """
import flowjob as flow

def xtanh(x, name="xtanh"):
    return (
        flow.user_op_builder(name).Op("xtanh_forward").Input("x", [x]).Output("y")
        .Build().InferAndTryRun().SoleOutputBlob()
    )
"""


def write_module(root, name="xtanh", defs=DEFS, kernels=KERNELS, api=API):
    folder = root / name
    folder.mkdir()
    for suffix, text in (("cpp_def.cpp", defs), ("py_kernel.py", kernels), ("py_api.py", api)):
        (folder / f"{name}_{suffix}").write_text(textwrap.dedent(text))
    return folder


@pytest.fixture
def xtanh(tmp_path):
    write_module(tmp_path)
    module = flow.experimental.custom_op_module("xtanh", str(tmp_path))
    module.py_api().cpp_def().py_kernel().build_load()
    return module


def test_value_and_gradient_match_numpy_and_jax_grad(xtanh):
    x0 = np.array([[-2.0, -0.3, 0.0], [0.4, 1.5, 3.0]], np.float32)
    got = {}

    @flow.global_function(type="train")
    def job(a: tp.Numpy.Placeholder(x0.shape)) -> tp.Numpy:
        w = flow.get_variable("w", (1,), initializer=flow.constant_initializer(1.0))
        x = a * w
        y = xtanh.api.xtanh(x)
        flow.watch(y, lambda v: got.setdefault("y", v))
        flow.watch_diff(x, lambda d: got.setdefault("dx", d))
        loss = flow.math.reduce_sum(y * y)
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.0])).minimize(loss)
        return loss

    loss = job(x0)
    flow.sync_default_session()
    np.testing.assert_allclose(got["y"], np.tanh(x0) * x0, rtol=1e-6)
    np.testing.assert_allclose(loss, np.sum((np.tanh(x0) * x0) ** 2), rtol=1e-5)
    ref = jax.grad(lambda x: jnp.sum((jnp.tanh(x) * x) ** 2))(x0)
    np.testing.assert_allclose(got["dx"], ref, rtol=1e-5, atol=1e-6)
    kernels = xtanh._kernels
    assert kernels.CALLS.count("forward") >= 1 and kernels.CALLS.count("backward") >= 1


def test_backward_op_runs_on_its_own_with_a_trial_run_for_its_shape(xtanh):
    # xtanh_backward's shape statement is not a plain copy and it has no dtype function:
    # its output spec comes from running the kernel on zeros.
    x0 = np.linspace(-2, 2, 6, dtype=np.float32).reshape(2, 3)
    dy0 = np.full((2, 3), 0.5, np.float32)

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder(x0.shape), dy: tp.Numpy.Placeholder(dy0.shape)) -> tp.Numpy:
        return (
            flow.user_op_builder("b")
            .Op("xtanh_backward")
            .Input("x", [x])
            .Input("dy", [dy])
            .Output("dx")
            .Build()
            .InferAndTryRun()
            .SoleOutputBlob()
        )

    t = np.tanh(x0)
    np.testing.assert_allclose(job(x0, dy0), dy0 * (t + x0 * (1 - t * t)), rtol=1e-6)


def test_definition_facts_are_read_from_the_builder_chains(tmp_path):
    folder = write_module(tmp_path)
    defs = flow.userop.read_cpp_defs(folder / "xtanh_cpp_def.cpp")
    fw, bw = defs.ops["xtanh_forward"], defs.ops["xtanh_backward"]
    assert (fw.inputs, fw.outputs, fw.shape_from, fw.dtype_from) == (
        ["x"],
        ["y"],
        {"y": "x"},
        {"y": "x"},
    )
    text = (folder / "xtanh_cpp_def.cpp").read_text()
    shape_line = text[: text.index("= Shape({")].count("\n") + 1
    assert (bw.inputs, bw.shape_from, bw.dtype_from, bw.unread) == (
        ["x", "dy"],
        {},
        {},
        [shape_line],
    )
    grad = defs.grads["xtanh_forward"]
    assert grad.backward_type == "xtanh_backward"
    assert {k: (s.value, a) for k, (s, a) in grad.binds.items()} == {
        "x": ("input", "x"),
        "dy": ("output_grad", "y"),
    }
    assert grad.input_grads == {"x": "dx"}


def test_attributes_come_from_the_registration(xtanh):
    from flowjob.userop import lookup

    assert lookup("xtanh_forward").attrs == {"device_sub_tag": "py", "unused_scale": 2.5}
    assert lookup("xtanh_backward").inputs == ("x", "dy")


def test_op_without_grad_registration_has_no_gradient(tmp_path):
    defs = DEFS[: DEFS.index("REGISTER_USER_OP_GRAD")] + "}\n"
    write_module(tmp_path, defs=defs)
    module = flow.experimental.custom_op_module("xtanh", str(tmp_path))
    module.py_api().cpp_def().py_kernel().build_load()

    @flow.global_function(type="train")
    def job(a: tp.Numpy.Placeholder((2,))) -> tp.Numpy:
        w = flow.get_variable("w", (1,), initializer=flow.constant_initializer(1.0))
        loss = flow.math.reduce_sum(module.api.xtanh(a * w))
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.1])).minimize(loss)
        return loss

    with pytest.raises(FlowJobError, match="no REGISTER_USER_OP_GRAD"):
        job(np.ones(2, np.float32))


@pytest.mark.parametrize(
    "old, new, what",
    [
        (".SetGetSbpFn(", ".SetCustomFn(", "SetCustomFn is not part of the pattern"),
        (
            "ctx->DefineOp(op_name, make);",
            "ctx->DefineOp(op_name, make);\n foo();",
            "statement not in the pattern",
        ),
        (
            '.Attr<float>("unused_scale", 2.5)',
            '.Attr<float>("unused_scale", kScale)',
            "is not a literal",
        ),
        (
            'REGISTER_USER_OP("xtanh_backward")',
            'REGISTER_USER_KERNEL("xtanh_backward")',
            "REGISTER_USER_KERNEL is not read",
        ),
    ],
)
def test_unreadable_definitions_name_file_and_line(tmp_path, old, new, what):
    assert old in DEFS
    defs = textwrap.dedent(DEFS.replace(old, new, 1))
    culprit = new.split("\n")[-1].strip()
    line = defs[: defs.index(culprit)].count("\n") + 1
    folder = write_module(tmp_path, defs=defs)
    module = flow.experimental.custom_op_module("xtanh", str(tmp_path))
    with pytest.raises(FlowJobError, match=what) as err:
        module.cpp_def()
    assert f"{folder / 'xtanh_cpp_def.cpp'}:{line}:" in str(err.value)


def test_missing_files_and_native_steps_are_clear_errors(tmp_path):
    module = flow.experimental.custom_op_module("nothing", str(tmp_path))
    with pytest.raises(FlowJobError, match=r"nothing_py_api\.py does not exist"):
        module.py_api()
    with pytest.raises(NativeBuildError, match=r"nothing_cpp_kernel\.cpp"):
        module.cpp_kernel()
    with pytest.raises(NativeBuildError, match="custom_op_module") as err:
        flow.config.load_library("ops.so")
    assert "'ops.so'" in str(err.value)
