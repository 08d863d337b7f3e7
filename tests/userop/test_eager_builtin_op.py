"""``flow.builtin_op(...).Build()`` called outside any job: run at once in eager mode (as
OneFlow v0.4's test_stateful_local_kernel.py does), a clear error in lazy mode."""

from __future__ import annotations

import numpy as np
import pytest

import flowjob as flow
from flowjob.errors import OutsideJobError

RNG = np.random.default_rng(7)


def _constant(value: float, shape: list[int]):
    return (
        flow.builtin_op("constant")
        .Output("out")
        .Attr("is_floating_value", True)
        .Attr("floating_value", value)
        .Attr("dtype", flow.float32)
        .Attr("shape", shape)
        .Build()
    )


def test_eager_builtin_ops_match_numpy(fresh_session):
    flow.enable_eager_execution(True)
    (c,) = _constant(2.5, [2, 3])()
    assert isinstance(c, flow.Tensor)
    assert c.shape == flow.Size((2, 3)) and c.dtype == flow.float32
    np.testing.assert_array_equal(c.numpy(), np.full((2, 3), 2.5, np.float32))

    # Attributes given at call time override the builder's (here: none set, then two axes).
    expand = flow.builtin_op("expand_dims").Input("in").Output("out").Build()
    x = RNG.standard_normal((2, 3)).astype(np.float32)
    for axis in (0, 1, 2):
        (y,) = expand(flow.Tensor(x), axis=axis)
        np.testing.assert_array_equal(y.numpy(), np.expand_dims(x, axis))

    matmul = (
        flow.builtin_op("matmul")
        .Input("a")
        .Input("b")
        .Output("out")
        .Attr("transpose_a", False)
        .Attr("transpose_b", True)
        .Attr("alpha", 2.0)
        .Build()
    )
    a = RNG.standard_normal((4, 3)).astype(np.float32)
    b = RNG.standard_normal((5, 3)).astype(np.float32)
    # A NumPy input and a Tensor input; the output of one eager op feeds the next.
    (m,) = matmul(a, flow.Tensor(b))
    np.testing.assert_allclose(m.numpy(), 2.0 * a @ b.T, rtol=1e-5, atol=1e-6)
    c2 = RNG.standard_normal((5, 2)).astype(np.float32)
    (mm,) = matmul(m, c2, transpose_b=False, alpha=1.0)
    np.testing.assert_allclose(mm.numpy(), m.numpy() @ c2, rtol=1e-5, atol=1e-5)


def test_lazy_mode_refuses_builtin_op_outside_a_job(fresh_session):
    expand = flow.builtin_op("expand_dims").Input("in").Output("out").Build()
    with pytest.raises(OutsideJobError, match="'expand_dims'.*outside a job.*eager"):
        expand(np.zeros((2, 3), np.float32), axis=1)


def test_eager_builtin_ops_on_tensors_carry_autograd(fresh_session):
    # OneFlow v0.4's experimental modules wrapped builtin ops (resnet50_model.py's FakeBN):
    # called on tensors that require grad, the op is part of the autograd graph
    flow.enable_eager_execution(True)
    identity = flow.builtin_op("identity").Input("in").Output("out").Build()
    x = flow.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3), requires_grad=True)
    (y,) = identity(x)
    assert y.requires_grad and not y.is_leaf
    (y * y).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * x.numpy())
