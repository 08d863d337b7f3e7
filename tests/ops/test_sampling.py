"""Initial values drawn in chunks (ops/_sampling.py): the values jax.random gives for the same
key and shape, from one compiled program per distribution and dtype whatever the shapes."""

from __future__ import annotations

import logging

import jax
import numpy as np
import pytest

import flowjob as flow
from flowjob._src._device_values import staging
from flowjob._src.ops._sampling import CHUNK, draw

SHAPES = [(0,), (7,), (64, 32, 5, 5), (CHUNK + 3,), (3, CHUNK // 2 + 1)]


def _reference(kind, key, shape, low=-0.3, high=0.7):
    if kind == "normal":
        return jax.random.normal(key, shape, np.float32)
    if kind == "truncated_normal":
        return jax.random.truncated_normal(key, -2.0, 2.0, shape, np.float32)
    return jax.random.uniform(key, shape, np.float32, minval=low, maxval=high)


@pytest.mark.parametrize("kind", ["normal", "truncated_normal", "uniform"])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_chunked_draw_equals_jax_random_bit_for_bit(kind, shape):
    key = jax.random.PRNGKey(1234)
    got = draw(kind, key, shape, np.float32, -0.3, 0.7)
    assert isinstance(got, np.ndarray) and got.shape == shape and got.dtype == np.float32
    np.testing.assert_array_equal(got, np.asarray(_reference(kind, key, shape)))


def test_traced_and_typed_keys_and_the_partitionable_flag_give_the_same_values():
    shape, raw = (300, 7), jax.random.PRNGKey(5)
    expected = draw("truncated_normal", raw, shape, np.float32)
    traced = jax.jit(lambda k: draw("truncated_normal", k, shape, np.float32))(raw)
    np.testing.assert_array_equal(np.asarray(traced), expected)
    # a concrete key inside a program being traced (decode_random's initializer): its values
    # are computed by that program
    inside = jax.jit(lambda: draw("truncated_normal", raw, shape, np.float32))()
    np.testing.assert_array_equal(np.asarray(inside), expected)
    typed = draw("truncated_normal", jax.random.key(5), shape, np.float32)
    np.testing.assert_array_equal(typed, expected)
    with jax.threefry_partitionable(False):  # jax.random's own stream changes; flowjob's not
        np.testing.assert_array_equal(draw("truncated_normal", raw, shape, np.float32), expected)


def test_variables_of_many_shapes_compile_at_most_one_sampling_program(caplog):
    """Ten weights of ten shapes: jax.random would compile ten programs (seconds, minutes
    under load); the chunked draw compiles its one program at most once."""
    init = flow.truncated_normal_initializer(stddev=0.02)
    shapes = [(3 + i, 5, 2 * i + 1) for i in range(10)]
    keys = [jax.random.PRNGKey(i) for i in range(10)]  # the keys' own programs: not counted
    with caplog.at_level(logging.WARNING), jax.log_compiles():
        values = [init(k, s) for k, s in zip(keys, shapes)]
    compiles = [r.getMessage() for r in caplog.records if "Compiling" in r.getMessage()]
    assert len(compiles) <= 1, compiles
    for k, s, v in zip(keys, shapes, values):
        ref = 0.0 + 0.02 * jax.random.truncated_normal(k, -2.0, 2.0, s, np.float32)
        np.testing.assert_array_equal(np.asarray(v), np.asarray(ref))


def test_unknown_kind_is_refused():
    with pytest.raises(ValueError, match="kind must be one of"):
        draw("gamma", jax.random.PRNGKey(0), (2,), np.float32)


def _staged_by_jax() -> bool:
    """The public way to tell (a transfer each time): an operation on a constant gives a
    tracer exactly where it is recorded into a program."""
    return isinstance(jax.device_put(np.zeros((2,), np.uint32)), jax.core.Tracer)


def _in_context(name: str, probe):
    """Calls ``probe()`` inside the JAX context ``name``."""
    one = np.float32(1.0)

    def through(x):
        probe()
        return x

    def folded():
        with jax.ensure_compile_time_eval():
            probe()

    def scan_body(carry, x):
        probe()
        return carry, x

    contexts = {
        "top level": probe,
        "jit": lambda: jax.jit(probe)(),
        "ensure_compile_time_eval in jit": lambda: jax.jit(folded)(),
        "grad": lambda: jax.grad(through)(one),
        "grad in jit": lambda: jax.jit(jax.grad(through))(one),
        "vmap": lambda: jax.vmap(through)(np.ones(2, np.float32)),
        "vmap in jit": lambda: jax.jit(jax.vmap(through))(np.ones(2, np.float32)),
        "vjp": lambda: jax.vjp(through, one),
        "eval_shape": lambda: jax.eval_shape(probe),
        "make_jaxpr": lambda: jax.make_jaxpr(probe)(),
        "scan": lambda: jax.lax.scan(scan_body, one, np.ones(2, np.float32)),
        "checkpoint under grad": lambda: jax.grad(jax.checkpoint(through))(one),
    }
    contexts[name]()


STAGED = {
    "top level": False,
    "jit": True,
    "ensure_compile_time_eval in jit": False,
    "grad": False,
    "grad in jit": True,
    "vmap": False,
    "vmap in jit": True,
    "vjp": False,
    "eval_shape": True,
    "make_jaxpr": True,
    "scan": True,
    "checkpoint under grad": True,
}


@pytest.mark.parametrize("context", list(STAGED))
def test_staging_answers_as_jax_stages_an_operation(context):
    """``staging`` reads JAX's private trace state (no public query, see its docstring): it
    must say what staging an operation shows, in every kind of trace; this fails when a JAX
    release changes either."""
    seen = []
    _in_context(context, lambda: seen.append((staging(), _staged_by_jax())))
    assert seen and all(s == (STAGED[context], STAGED[context]) for s in seen), seen


@pytest.mark.parametrize("context", ["top level", "jit", "ensure_compile_time_eval in jit"])
def test_a_concrete_key_draws_the_same_values_in_and_out_of_a_trace(context):
    """Inside a program being traced the values are its own (an initializer in a job,
    decode_random), elsewhere host chunks; either way jax.random's."""
    key, shape = jax.random.PRNGKey(11), (4, 5)
    got = []
    _in_context(context, lambda: got.append(draw("normal", key, shape, np.float32)))
    assert isinstance(got[0], jax.core.Tracer) is (context == "jit")
    if context != "jit":
        np.testing.assert_array_equal(
            np.asarray(got[0]), np.asarray(_reference("normal", key, shape))
        )
