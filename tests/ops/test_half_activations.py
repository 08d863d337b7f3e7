"""float16 activations are computed in float32 and rounded once: values and gradients stay
within one float16 rounding of the float32 result (jax.grad reference)."""

import jax
import jax.numpy as jnp
import numpy as np
from ops_helpers import FixedInit

import flowjob as flow
import flowjob.typing as tp


def test_hardswish_float16_gradient_is_rounded_once():
    x0 = np.linspace(-4, 4, 801).astype(np.float32)
    grads = {}

    @flow.global_function(type="train")
    def Job() -> tp.Numpy:
        x = flow.get_variable("x", x0.shape, initializer=FixedInit(x0))
        h = flow.cast(x, flow.float16)
        flow.watch_diff(h, lambda d: grads.setdefault("h", d))
        y = flow.nn.hardswish(h)
        loss = flow.math.reduce_sum(flow.cast(y, flow.float))
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.0])).minimize(loss)
        return flow.cast(y, flow.float)

    y = Job()
    flow.sync_default_session()
    xh = x0.astype(np.float16).astype(np.float32)
    ref_y = jax.nn.hard_swish(jnp.asarray(xh))
    ref_d = jax.grad(lambda v: jnp.sum(jax.nn.hard_swish(v)))(jnp.asarray(xh))
    # One rounding to float16: at most half an ulp (2**-11 relative) away.
    np.testing.assert_allclose(y, ref_y, rtol=2 ** -11, atol=1e-7)
    inner = np.abs(xh) < 2.9  # away from the kinks at +-3
    np.testing.assert_allclose(grads["h"].astype(np.float32)[inner], np.asarray(ref_d)[inner],
                               rtol=2 ** -11, atol=1e-7)
