"""flow.data.ofrecord_reader + OFRecordRawDecoder in jobs, against NumPy on the written data:
batching over part files, epochs, shuffling, decoders, errors and the prefetch thread."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Tuple

import numpy as np
import pytest

import flowjob as flow
import flowjob.typing as tp
from flowjob._src.runtime._session import default_session
from flowjob.data import write_ofrecord
from tests.timeouts import scaled

N = 20


pytestmark = pytest.mark.usefixtures("fresh_session")


@pytest.fixture
def dataset(tmp_path):
    """20 records in 3 parts: x (2, 3) float32 = id-derived, id int64, name bytes."""
    ids = np.arange(N, dtype=np.int64)
    x = (ids[:, None, None] * 10 + np.arange(6).reshape(2, 3)).astype(np.float32)
    write_ofrecord(
        tmp_path,
        {"x": x, "id": ids, "name": [b"r%d" % i for i in ids]},
        part_num=3,
        part_name_suffix_length=3,
    )
    return tmp_path, x, ids


def _id_job(data_dir, batch, **kwargs):
    @flow.global_function(type="predict")
    def read_ids() -> tp.Numpy:
        records = flow.data.ofrecord_reader(
            str(data_dir), batch_size=batch, data_part_num=3, part_name_suffix_length=3, **kwargs
        )
        return flow.data.OFRecordRawDecoder(records, "id", shape=(), dtype=flow.int64)

    return read_ids


def test_batches_follow_part_files_and_cycle(dataset):
    data_dir, x, ids = dataset

    @flow.global_function(type="predict")
    def read() -> Tuple[tp.Numpy, tp.Numpy]:
        records = flow.data.ofrecord_reader(
            str(data_dir), batch_size=8, data_part_num=3, part_name_suffix_length=3
        )
        xs = flow.data.OFRecordRawDecoder(records, "x", shape=(2, 3), dtype=flow.float)
        i = flow.data.OFRecordRawDecoder(records, "id", shape=(1,), dtype=flow.int32)
        return xs * 2.0, i

    expected = np.concatenate([ids, ids, ids])  # OneFlow reads on past the end, forever
    for call in range(6):
        got_x, got_id = read()
        want = expected[8 * call : 8 * call + 8]
        np.testing.assert_array_equal(got_id[:, 0], want)
        assert got_id.dtype == np.int32
        np.testing.assert_array_equal(got_x, x[want] * 2.0)


def test_epochs_end_the_data_and_drop_the_partial_batch(dataset):
    data_dir, _, ids = dataset
    job = _id_job(data_dir, 6, epochs=2)
    got = np.concatenate([job() for _ in range(6)])  # 40 records: six full batches
    np.testing.assert_array_equal(got, np.concatenate([ids, ids])[:36])
    for _ in range(2):  # and stays ended
        with pytest.raises(flow.data.EndOfData, match="2 epoch"):
            job()


def test_shuffle_is_a_permutation_per_epoch_and_seeded(dataset):
    data_dir, _, ids = dataset
    orders = []
    for seed in (7, 7, 8):
        flow.clear_default_session()
        job = _id_job(data_dir, 5, epochs=1, random_shuffle=True, shuffle_buffer_size=32, seed=seed)
        orders.append(np.concatenate([job() for _ in range(4)]))
    assert sorted(orders[0]) == list(ids)  # a buffer larger than the data: a full permutation
    np.testing.assert_array_equal(orders[0], orders[1])
    assert not np.array_equal(orders[0], orders[2])
    assert not np.array_equal(orders[0], ids)


def test_default_shuffle_repeats_per_config_seed(dataset):
    """No seed=: the order follows flow.config.seed (runs repeat), unlike OneFlow's random one."""
    data_dir, _, ids = dataset
    orders = []
    try:
        for config_seed in (0, 0, 1):
            flow.clear_default_session()
            flow.config.seed(config_seed)
            job = _id_job(data_dir, 5, epochs=1, random_shuffle=True, shuffle_buffer_size=32)
            orders.append(np.concatenate([job() for _ in range(4)]))
    finally:
        flow.config.seed(0)
    np.testing.assert_array_equal(orders[0], orders[1])
    assert not np.array_equal(orders[0], orders[2])
    assert sorted(orders[2]) == list(ids)


def test_small_shuffle_buffer_keeps_records_near_their_place(dataset):
    data_dir, _, ids = dataset
    job = _id_job(data_dir, 4, epochs=3, random_shuffle=True, shuffle_buffer_size=2, seed=1)
    got = np.concatenate([job() for _ in range(15)])
    assert sorted(got) == sorted(np.concatenate([ids] * 3))
    # Call k emits a buffered record, read no later than record k + 1 (OneFlow's swap
    # buffer): in the first pass, where read order is the id, no record jumps ahead.
    k = np.arange(N - 2)
    assert np.all(got[: N - 2] <= k + 1), got[: N - 2]
    assert not np.array_equal(got[:N], ids)


def test_shuffle_after_epoch_reorders_whole_part_files(dataset):
    data_dir, _, ids = dataset
    job = _id_job(data_dir, 10, shuffle_after_epoch=True)
    got = np.concatenate([job() for _ in range(8)])
    parts = [ids[0:6], ids[6:13], ids[13:20]]  # write_ofrecord's split of 20 into 3
    np.testing.assert_array_equal(got[:N], ids)  # the first pass is in file order
    for epoch in range(1, 4):
        chunk = got[epoch * N : (epoch + 1) * N]
        pos = 0
        for _ in range(3):  # each pass is the three part files in some order, each intact
            part = next(p for p in parts if p[0] == chunk[pos])
            np.testing.assert_array_equal(chunk[pos : pos + len(part)], part)
            pos += len(part)
    assert any(got[e * N] != 0 for e in range(1, 4)), "no pass changed the file order"


def test_raw_decoder_conversions_and_padding(tmp_path):
    write_ofrecord(
        tmp_path,
        {
            "short": [np.array([1.5, 2.5], np.float32)] * 2,
            "long": [np.arange(5, dtype=np.int64)] * 2,
            "bytes": [b"\x01\x02\xff", b"\x03"],
        },
    )

    @flow.global_function(type="predict")
    def decode() -> Tuple[tp.Numpy, tp.Numpy, tp.Numpy, tp.Numpy]:
        r = flow.data.ofrecord_reader(str(tmp_path), batch_size=2)
        a = flow.data.OFRecordRawDecoder(r, "short", shape=(4,), dtype=flow.float, truncate=True)
        b = flow.data.OFRecordRawDecoder(r, "long", shape=(3,), dtype=flow.int32, truncate=True)
        c = flow.data.OFRecordRawDecoder(r, "bytes", shape=(3,), dtype=flow.int32)
        d = flow.data.ofrecord_raw_decoder(r, "long", shape=(5,), dtype=flow.double)
        return a, b, c, d

    a, b, c, d = decode()
    np.testing.assert_array_equal(a, [[1.5, 2.5, 0, 0]] * 2)
    np.testing.assert_array_equal(b, [[0, 1, 2]] * 2)
    np.testing.assert_array_equal(c, [[1, 2, -1], [3, 0, 0]])  # bytes read as int8 (OneFlow)
    assert d.dtype == np.float64
    np.testing.assert_array_equal(d, [np.arange(5)] * 2)


def test_decoder_errors_name_the_field(tmp_path):
    write_ofrecord(tmp_path, {"v": np.zeros((2, 3), np.float32)})

    @flow.global_function(type="predict")
    def wrong_count() -> tp.Numpy:
        r = flow.data.ofrecord_reader(str(tmp_path), batch_size=2)
        return flow.data.OFRecordRawDecoder(r, "v", shape=(4,), dtype=flow.float)

    with pytest.raises(
        flow.data.DecodeError,
        match=r"'v' of record 0 of .*part-0 \(byte offset "
        r"0\) holds 3 values, but shape \(4,\)",
    ) as err:
        wrong_count()
    # ... and names the op and the user's line that created it
    assert (
        "in data pipeline op 'OFRecordRawDecoder_0' (ofrecord_raw_decoder) of job "
        "'wrong_count'" in str(err.value)
    )
    assert "test_ofrecord_reader.py" in str(err.value)

    flow.clear_default_session()

    @flow.global_function(type="predict")
    def missing() -> tp.Numpy:
        r = flow.data.ofrecord_reader(str(tmp_path), batch_size=2)
        return flow.data.OFRecordRawDecoder(r, "nope", shape=(3,), dtype=flow.float)

    with pytest.raises(flow.data.DecodeError, match=r"'nope' not found .*fields: v"):
        missing()


def test_trace_time_errors(tmp_path):
    @flow.global_function(type="predict")
    def missing_parts() -> tp.Numpy:
        r = flow.data.ofrecord_reader(str(tmp_path), batch_size=2, data_part_num=2)
        return flow.data.OFRecordRawDecoder(r, "v", shape=(), dtype=flow.float)

    with pytest.raises(flow.OpError, match=r"2 of 2 part file\(s\) not found: .*part-0"):
        missing_parts()

    write_ofrecord(tmp_path, {"v": np.zeros(2, np.float32)})
    flow.clear_default_session()

    @flow.global_function(type="predict")
    def records_to_device() -> tp.Numpy:
        r = flow.data.ofrecord_reader(str(tmp_path), batch_size=2)
        return flow.math.relu(r)

    with pytest.raises(flow.OpError, match="produced by the host data pipeline"):
        records_to_device()


def test_truncated_part_file_fails_the_call_with_file_and_offset(tmp_path):
    (path,) = write_ofrecord(tmp_path, {"v": np.arange(6, dtype=np.float32)})
    (tmp_path / flow.data.MANIFEST_NAME).unlink()  # as OneFlow writes it: no manifest
    Path(path).write_bytes(Path(path).read_bytes()[:-2])
    record_size = Path(path).stat().st_size // 6 + 1  # 6 equal records, the last cut short
    job = _id_job_v(tmp_path)
    np.testing.assert_array_equal(job(), [0, 1, 2])
    with pytest.raises(
        flow.data.RecordError,
        match=rf"{path}: truncated record at byte "
        rf"offset {5 * record_size}",
    ):
        job()


def _id_job_v(data_dir):
    @flow.global_function(type="predict")
    def read_v() -> tp.Numpy:
        r = flow.data.ofrecord_reader(str(data_dir), batch_size=3)
        return flow.data.OFRecordRawDecoder(r, "v", shape=(), dtype=flow.float)

    return read_v


def test_pipeline_reads_ahead_of_the_calls(dataset):
    data_dir, _, _ = dataset
    job = _id_job(data_dir, 2)
    job()
    feeder = default_session().compiled["read_ids"].feeder
    deadline = time.monotonic() + 30
    # One call consumed a batch; the thread fills its queue (depth 4) and one batch more.
    while feeder.produced < 1 + feeder.depth + 1 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert feeder.produced == 1 + feeder.depth + 1
    time.sleep(0.1)
    assert feeder.produced == 1 + feeder.depth + 1  # bounded: it waits for the next call
    np.testing.assert_array_equal(job(), [2, 3])


def test_train_job_learns_from_records(tmp_path):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(64, 4)).astype(np.float32)
    w = np.array([[1.0], [-2.0], [0.5], [3.0]], np.float32)
    write_ofrecord(tmp_path, {"x": x, "y": x @ w}, part_num=2)

    @flow.global_function(type="train")
    def fit() -> tp.Numpy:
        r = flow.data.ofrecord_reader(str(tmp_path), batch_size=16, data_part_num=2)
        xs = flow.data.OFRecordRawDecoder(r, "x", shape=(4,), dtype=flow.float)
        ys = flow.data.OFRecordRawDecoder(r, "y", shape=(1,), dtype=flow.float)
        pred = flow.layers.dense(
            xs, 1, use_bias=False, name="lin", kernel_initializer=flow.zeros_initializer()
        )
        loss = flow.math.reduce_mean(flow.math.square(pred - ys))
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.1])).minimize(loss)
        return loss

    losses = [float(fit()[0]) for _ in range(100)]  # a full reduction has shape (1,)
    assert losses[-1] < 1e-2 * losses[0]


def test_decode_random_draws_fresh_values(tmp_path):
    @flow.global_function(type="predict")
    def synth() -> Tuple[tp.Numpy, tp.Numpy]:
        a = flow.data.decode_random(shape=(3,), dtype=flow.float, batch_size=4)
        b = flow.data.decode_random(
            shape=(), dtype=flow.int32, batch_size=4, initializer=flow.zeros_initializer(flow.int32)
        )
        return a, b

    a1, b1 = synth()
    a2, _ = synth()
    assert a1.shape == (4, 3) and a1.dtype == np.float32
    assert np.all((a1 >= 0) & (a1 < 1)) and not np.array_equal(a1, a2)
    np.testing.assert_array_equal(b1, np.zeros(4, np.int32))


_TWO_DEVICES = """
import sys
import numpy as np
import flowjob as flow
import flowjob.typing as tp

flow.config.cpu_device_num(2)


@flow.global_function(type="train")
def fit() -> tp.Numpy:
    with flow.scope.placement("cpu", "0:0-1"):
        r = flow.data.ofrecord_reader(sys.argv[1], batch_size=8, data_part_num=3,
                                      part_name_suffix_length=3)
        x = flow.data.OFRecordRawDecoder(r, "x", shape=(2, 3), dtype=flow.float)
        w = flow.get_variable("w", (6, 1), initializer=flow.ones_initializer())
        loss = flow.matmul(flow.reshape(x, (8, 6)), w) * 0.01
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.1]),
                           momentum=0).minimize(loss)
        return loss


print(np.concatenate([fit().ravel() for _ in range(3)]).tolist())
"""


def test_pipeline_feeds_a_job_on_two_devices(dataset):
    import json
    import subprocess
    import sys

    data_dir, x, ids = dataset
    env = {k: v for k, v in __import__("os").environ.items() if k != "JAX_NUM_CPU_DEVICES"}
    out = subprocess.run(
        [sys.executable, "-c", _TWO_DEVICES, str(data_dir)],
        env=env,
        capture_output=True,
        text=True,
        timeout=scaled(300),
    )
    assert out.returncode == 0, out.stderr[-3000:]
    got = np.array(json.loads(out.stdout.strip().splitlines()[-1]))
    # Reference: plain SGD on the loss sum(x @ w) * 0.01 / 8 per step, batches in file order.
    w = np.ones((6, 1))
    want = []
    for step in range(3):
        batch = x[np.arange(8 * step, 8 * step + 8) % N].reshape(8, 6).astype(np.float64)
        want.append((batch @ w).ravel() * 0.01)
        w -= 0.1 * batch.sum(axis=0, keepdims=True).T * 0.01 / 8
    np.testing.assert_allclose(got, np.concatenate(want), rtol=1e-5)
