"""``flowjob/_src/ops/_ordinal_encode.py``: the hash table of categorical_ordinal_encode against a
NumPy copy of OneFlow's sequential CPU kernel, over several calls of one job."""

import numpy as np
import pytest
from ops_helpers import variables

import flowjob as flow
import flowjob.typing as tp


def _reference_encode(keys, table, size, capacity):
    """OneFlow's CPU kernel: one key after the other, linear probing from key mod capacity."""
    out = np.zeros_like(keys)
    for i, h in enumerate(keys):
        for count in range(capacity):
            slot = (int(np.uint64(np.int64(h))) + count) % capacity
            if table[2 * slot] == h:
                out[i] = table[2 * slot + 1]
                break
            if table[2 * slot] == 0:
                size += 1
                table[2 * slot], table[2 * slot + 1] = h, size
                out[i] = size
                break
    return out, size


def _check_table(table, size, capacity):
    """Every stored key is found from its home slot before an empty one; values are 1..size."""
    keys, values = table[0::2], table[1::2]
    stored = np.flatnonzero(keys)
    assert sorted(values[stored].tolist()) == list(range(1, size + 1))
    for slot in stored:
        probe = int(np.uint64(np.int64(keys[slot]))) % capacity
        while probe != slot:
            assert keys[probe] != 0
            probe = (probe + 1) % capacity


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_encoder_numbers_keys_as_the_cpu_kernel_across_calls(dtype):
    capacity = 13
    flow_dtype = flow.int32 if dtype == np.int32 else flow.int64

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((3, 4), dtype=flow_dtype)) -> tp.Numpy:
        return flow.layers.categorical_ordinal_encoder(x, capacity=capacity, name="enc")

    rng = np.random.default_rng(0)
    # keys that share home slots (k, k + 13, ...), negative ones and zeros
    pool = np.array([0, 5, 18, 31, -8, 44, 7, 20, -21, 1, 14, 99], dtype)
    table, size = np.zeros(2 * capacity, dtype), 0
    for _ in range(4):
        x = rng.choice(pool, (3, 4)).astype(dtype)
        want, size = _reference_encode(x.reshape(-1), table, size, capacity)
        out = job(x)
        assert out.dtype == dtype
        np.testing.assert_array_equal(out.reshape(-1), want)
        state = variables()
        assert state["enc-Size"].tolist() == [size]
        _check_table(state["enc-Table"], size, capacity)


def test_categorical_ordinal_encode_with_own_variables_and_a_full_table():
    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((6,), dtype=flow.int32)) -> tp.Numpy:
        with flow.scope.namespace("own"):
            table = flow.get_variable(
                "T", (8,), dtype=flow.int32, initializer=flow.zeros_initializer(flow.int32)
            )
            size = flow.get_variable(
                "S", (1,), dtype=flow.int32, initializer=flow.zeros_initializer(flow.int32)
            )
        return flow.categorical_ordinal_encode(table, size, x)

    out = job(np.array([9, 3, 9, 0, 4, 12], np.int32))
    # 4 slots: 9, 3, 4 and 12 fill them; numbered in the order first seen
    np.testing.assert_array_equal(out, [1, 2, 1, 0, 3, 4])
    out = job(np.array([5, 12, 3, 6, 6, 9], np.int32))
    np.testing.assert_array_equal(out, [0, 4, 2, 0, 0, 1])  # no room for 5 and 6: 0
    assert variables()["own-S"].tolist() == [4]
    with pytest.raises(flow.OpError, match="must be a variable"):

        @flow.global_function()
        def bad(x: tp.Numpy.Placeholder((6,), dtype=flow.int32)) -> tp.Numpy:
            return flow.categorical_ordinal_encode(x, x[0:1], x)

        bad(np.zeros((6,), np.int32))


def test_encoder_feeds_an_embedding_in_a_train_job():
    @flow.global_function(type="train")
    def job(x: tp.Numpy.Placeholder((4,), dtype=flow.int64)) -> tp.Numpy:
        ids = flow.layers.categorical_ordinal_encoder(x, capacity=8, name="ids")
        table = flow.get_variable("emb", (9, 2), initializer=flow.ones_initializer())
        rows = flow.gather(table, ids)
        flow.optimizer.SGD(
            flow.optimizer.PiecewiseConstantScheduler([], [1.0]), momentum=0
        ).minimize(rows)
        return ids

    np.testing.assert_array_equal(job(np.array([40, 7, 40, 0], np.int64)), [1, 2, 1, 0])
    np.testing.assert_array_equal(job(np.array([7, 9, 0, 0], np.int64)), [2, 3, 0, 0])
    emb = variables()["emb"]
    # every call takes 1/8 (the loss's 8 elements) per use of a row
    uses = np.bincount([1, 2, 1, 0, 2, 3, 0, 0], minlength=9)
    np.testing.assert_allclose(emb, 1 - uses[:, None] / 8 * np.ones((9, 2)), rtol=1e-6)
