"""The threefry hash written out (``ops._threefry``) equals JAX's ``threefry2x32_p``, and
dropout's keep masks drawn with it equal ``jax.random.bernoulli``'s bit for bit, for every key
kind and probability type they serve, computed without the rolled loop JAX's CPU lowering of
threefry makes."""

from __future__ import annotations

import jax
import numpy as np
import pytest

from flowjob._src.ops._threefry import bernoulli, threefry2x32

PROBABILITIES = [0.7, 0.5, 0.1, 1.0, 0.0, 1e-9, 0.999999, 1 - 2**-30, 2**-40]
SHAPES = [(4, 5), (100, 64, 14, 14), (3,), (), (2, 0, 3)]
KEYS = {
    "typed": lambda: jax.random.key(3),
    "raw": lambda: jax.random.PRNGKey(7),
    "folded": lambda: jax.random.fold_in(jax.random.key(1), 12345),
}


def test_the_hash_is_jaxs_threefry2x32():
    from jax.extend.random import threefry2x32_p

    rng = np.random.default_rng(0)
    words = rng.integers(0, 2**32, (4, 1000), dtype=np.uint64).astype(np.uint32)
    for k0, k1 in [(0, 0), (2**32 - 1, 12345), (0x1BD11BDA, 7)]:
        k0, k1 = np.uint32(k0), np.uint32(k1)
        got = jax.jit(threefry2x32)(k0, k1, words[0], words[1])
        want = threefry2x32_p.bind(k0, k1, words[0], words[1])
        for a, b in zip(got, want):
            np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


@pytest.mark.parametrize("x64", [False, True], ids=["float32 p", "float64 p"])
@pytest.mark.parametrize("key", list(KEYS))
def test_the_masks_are_jax_random_bernoullis(x64, key):
    with jax.enable_x64(x64):
        k = KEYS[key]()
        for p in PROBABILITIES:
            for shape in SHAPES:
                got = jax.jit(lambda k, p=p, shape=shape: bernoulli(k, p, shape))(k)
                want = jax.random.bernoulli(k, p, shape)
                assert got.dtype == want.dtype and got.shape == want.shape
                assert np.array_equal(got, want), (p, shape)


def test_keys_it_does_not_reproduce_fall_back_to_jax():
    key = jax.random.key(5, impl="rbg")
    np.testing.assert_array_equal(
        bernoulli(key, 0.3, (6, 7)), jax.random.bernoulli(key, 0.3, (6, 7))
    )


def test_the_mask_is_one_fused_computation_without_a_loop():
    key = jax.random.key(0)
    ours = jax.jit(lambda k: bernoulli(k, 0.7, (64, 64))).lower(key).compile().as_text()
    theirs = jax.jit(lambda k: jax.random.bernoulli(k, 0.7, (64, 64))).lower(key)
    assert " while(" not in ours
    # what it replaces: JAX's CPU lowering of the hash is a rolled loop
    if jax.default_backend() == "cpu":
        assert " while(" in theirs.compile().as_text()
