"""What a job's first call compiles (issue 35): the step and a fixed handful of helpers, not
one program per variable shape, key or host value (_device_values.py, ops/_sampling.py)."""

from __future__ import annotations

import logging

import jax
import numpy as np
import pytest

import flowjob as flow
import flowjob.typing as tp
from flowjob._src._device_values import prng_key, to_device
from tests.subprocess_env import cpu_child_env, run_json

pytestmark = pytest.mark.usefixtures("fresh_session")

SEEDS = [0, 1, 7, 2**31 - 1, 2**31, 3_000_000_000, 2**32 - 1, -1, -5, 2**32, 2**40 + 3]


@pytest.mark.parametrize("seed", SEEDS)
def test_prng_key_is_jax_random_prngkey(seed):
    ours, ref = prng_key(seed), jax.random.PRNGKey(seed)
    assert ours.dtype == ref.dtype and ours.shape == ref.shape
    np.testing.assert_array_equal(np.asarray(ours), np.asarray(ref))
    np.testing.assert_array_equal(  # the draws of both keys agree
        np.asarray(jax.random.normal(ours, (5,))), np.asarray(jax.random.normal(ref, (5,)))
    )


@pytest.mark.parametrize(
    "value, dtype",
    [
        (np.zeros((1,), np.int64), None),
        (np.arange(6, dtype=np.float64).reshape(2, 3), None),
        (np.arange(4, dtype=np.int32), np.float32),
        ([1.5, 2.5], np.int8),
        (jax.numpy.arange(3.0), np.float32),
        (jax.numpy.arange(3.0), np.int32),
    ],
)
def test_to_device_is_jnp_asarray(value, dtype):
    ours, ref = to_device(value, dtype), jax.numpy.asarray(value, dtype=dtype)
    assert isinstance(ours, jax.Array)
    assert ours.dtype == ref.dtype and ours.shape == ref.shape
    np.testing.assert_array_equal(np.asarray(ours), np.asarray(ref))


def _compiled_programs(caplog, fn) -> list[str]:
    with caplog.at_level(logging.WARNING), jax.log_compiles():
        fn()
    return [
        r.getMessage().split(" with ")[0]
        for r in caplog.records
        if r.getMessage().startswith("Compiling ")
    ]


@pytest.mark.parametrize("momentum, most", [(0.0, 2), (0.9, 3)])
def test_first_call_of_a_train_job_with_many_shapes_compiles_a_fixed_few_programs(
    caplog, momentum, most
):
    """Eight dense layers of eight shapes with random kernels, constant biases and SGD: the
    sampling program (at most once per process), the momentum slots' one program (none for
    plain SGD) and the step. Before,
    every key ran ``_threefry_seed`` and host values (the train step counter, loaded or
    constant values) a ``stage`` program per shape and dtype."""
    widths = [5, 7, 9, 11, 13, 15, 17, 19]

    @flow.global_function(type="train")
    def job(x: tp.Numpy.Placeholder((4, 3))) -> tp.Numpy:
        h = x
        for i, w in enumerate(widths):
            h = flow.layers.dense(
                h,
                w,
                activation=flow.math.tanh,
                kernel_initializer=flow.truncated_normal_initializer(stddev=0.1),
                bias_initializer=flow.constant_initializer(0.01),
                name=f"d{i}",
            )
        loss = flow.math.reduce_mean(h * h)
        flow.optimizer.SGD(
            flow.optimizer.PiecewiseConstantScheduler([], [0.1]), momentum=momentum
        ).minimize(loss)
        return loss

    x = np.random.default_rng(0).normal(size=(4, 3)).astype(np.float32)
    programs = _compiled_programs(caplog, lambda: job(x))
    assert not [p for p in programs if "_threefry_seed" in p or "stage" in p], programs
    assert len(programs) <= most, programs
    # the first kernel is the seeded truncated normal of its name, unchanged by this
    seed = flow.get_all_variables()["d0-weight"]
    assert np.all(np.abs(np.asarray(seed)) <= 0.2) and float(np.std(seed)) > 0.01


def test_a_first_job_call_imports_no_jax_extend_package():
    """A first call's trace asks whether it is staging and defines the sampling key type:
    both from JAX's own modules, not through ``jax.extend``, whose package imports Pallas
    (~30 ms of a fresh process's first call, bench/NOTES.md session 23)."""
    code = """
        import json, sys
        import jax
        already = "jax.extend" in sys.modules
        import numpy as np
        import flowjob as flow
        import flowjob.typing as tp

        @flow.global_function(type="train")
        def job(x: tp.Numpy.Placeholder((4, 3))) -> tp.Numpy:
            h = flow.layers.dense(
                x, 5, kernel_initializer=flow.random_normal_initializer(stddev=0.1)
            )
            loss = flow.math.reduce_mean(h * h)
            flow.optimizer.SGD(
                flow.optimizer.PiecewiseConstantScheduler([], [0.1]), momentum=0
            ).minimize(loss)
            return loss

        loss = job(np.ones((4, 3), np.float32))
        print(json.dumps({"already": already, "after": "jax.extend" in sys.modules,
                          "loss": float(np.asarray(loss).reshape(-1)[0])}))
    """
    seen = run_json(code, env=cpu_child_env())
    if seen["already"]:
        pytest.skip("this JAX imports jax.extend itself")
    assert np.isfinite(seen["loss"])
    assert not seen["after"]
