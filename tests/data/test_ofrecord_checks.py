"""Values that do not fit are errors, never wrapped numbers: the decoders check ranges as job
inputs do, the writer refuses what OFRecord cannot hold, and every decode error names the
file, the record's index in it and the field."""

from __future__ import annotations

import re
import struct
from pathlib import Path

import numpy as np
import pytest

import flowjob as flow
import flowjob.typing as tp
from flowjob.data import (
    OFRecord,
    RecordError,
    make_record,
    read_records,
    write_ofrecord,
    write_records,
)


@pytest.fixture(autouse=True)
def fresh_session():
    flow.clear_default_session()
    yield
    flow.clear_default_session()


def _offsets(path: Path) -> list[int]:
    """Byte offset of each record, read with struct (independent of the reader)."""
    data, out, at = path.read_bytes(), [], 0
    while at < len(data):
        out.append(at)
        at += 8 + struct.unpack_from("<q", data, at)[0]
    return out


def _decode_job(data_dir, field, shape, dtype, batch_size=1, parts=1):
    @flow.global_function(type="predict")
    def decode() -> tp.Numpy:
        r = flow.data.ofrecord_reader(str(data_dir), batch_size=batch_size, data_part_num=parts)
        return flow.data.OFRecordRawDecoder(r, field, shape=shape, dtype=dtype)

    return decode


@pytest.mark.parametrize(
    "field,values,dtype,shown,limits",
    [
        (
            "big",
            np.array([[3], [2**40 + 5]], np.int64),
            flow.int32,
            "1099511627781",
            r"int32 \(-2147483648\.\.2147483647\)",
        ),
        ("f", np.array([[1.5], [300.7]], np.float32), flow.int8, "300.7", r"int8 \(-128\.\.127\)"),
        ("neg", np.array([[7], [-1]], np.int32), flow.uint8, "-1", r"uint8 \(0\.\.255\)"),
        ("nan", np.array([[0.0], [np.nan]], np.float32), flow.int32, "nan", "int32"),
        ("huge", np.array([[1.0], [1e300]], np.float64), flow.float32, "1e[+]?300", "float32"),
    ],
)
def test_out_of_range_values_name_file_record_field_range_and_value(
    tmp_path, field, values, dtype, shown, limits
):
    write_ofrecord(tmp_path, {field: values})
    job = _decode_job(tmp_path, field, (1,), dtype)
    first = job()  # record 0 fits
    np.testing.assert_array_equal(first, values[:1].astype(first.dtype))
    offset = _offsets(tmp_path / "part-0")[1]
    with pytest.raises(flow.data.DecodeError) as err:
        job()
    message = str(err.value)
    assert f"field {field!r} of record 1 of {tmp_path / 'part-0'} (byte offset {offset})" in message
    assert re.search(rf"value {shown} does not fit dtype {limits}", message), message


def test_values_that_fit_decode_as_numpy_converts_them(tmp_path):
    """In range: integers exactly, floats to integers truncated toward zero (OneFlow's cast)."""
    ints = np.array([[-(2**31), 2**31 - 1]], np.int64)
    floats = np.array([[-3.9, 127.99]], np.float32)
    small = np.array([[0, 255]], np.int32)
    write_ofrecord(tmp_path, {"i": ints, "f": floats, "u": small})

    @flow.global_function(type="predict")
    def decode() -> tuple[tp.Numpy, tp.Numpy, tp.Numpy]:
        r = flow.data.ofrecord_reader(str(tmp_path), batch_size=1)
        return (
            flow.data.OFRecordRawDecoder(r, "i", shape=(2,), dtype=flow.int32),
            flow.data.OFRecordRawDecoder(r, "f", shape=(2,), dtype=flow.int8),
            flow.data.OFRecordRawDecoder(r, "u", shape=(2,), dtype=flow.uint8),
        )

    i, f, u = decode()
    np.testing.assert_array_equal(i, ints.astype(np.int32))
    np.testing.assert_array_equal(f, np.trunc(floats).astype(np.int8))
    np.testing.assert_array_equal(u, small.astype(np.uint8))


def test_uint64_beyond_int64_is_refused_and_the_largest_int64_round_trips(tmp_path):
    with pytest.raises(
        RecordError,
        match=r"feature 'id': value 9223372036854775808 does not "
        r"fit OFRecord's int64_list",
    ):
        write_ofrecord(tmp_path / "bad", {"id": np.array([1, 2**63], np.uint64)})
    assert not (tmp_path / "bad").exists()
    top = np.array([[2**63 - 1]], np.uint64)
    write_ofrecord(tmp_path / "ok", {"id": top})
    (record,) = read_records(tmp_path / "ok" / "part-0")
    assert list(record.feature["id"].int64_list.value) == [2**63 - 1]
    got = _decode_job(tmp_path / "ok", "id", (1,), flow.int64)()
    assert int(got[0, 0]) == 2**63 - 1


def test_decode_errors_name_the_file_and_record_index(tmp_path):
    """One bad record among several parts is found by the message alone."""
    records = [make_record({"v": np.float32([i, i])}) for i in range(5)]
    records[3] = make_record({"w": np.float32([0, 0])})  # part-1, index 1
    write_records(records, tmp_path, part_num=2)  # parts of 2 and 3 records
    offset = _offsets(tmp_path / "part-1")[1]
    where = rf"record 1 of {tmp_path / 'part-1'} \(byte offset {offset}\)"
    with pytest.raises(flow.data.DecodeError, match=rf"'v' not found in {where} .*fields: w"):
        _decode_job(tmp_path, "v", (2,), flow.float, batch_size=5, parts=2)()

    flow.clear_default_session()
    records[3] = make_record({"v": np.float32([1, 2, 3])})  # wrong count
    write_records(records, tmp_path, part_num=2, overwrite=True)
    offset = _offsets(tmp_path / "part-1")[1]
    where = rf"record 1 of {tmp_path / 'part-1'} \(byte offset {offset}\)"
    with pytest.raises(flow.data.DecodeError, match=rf"field 'v' of {where} holds 3 values"):
        _decode_job(tmp_path, "v", (2,), flow.float, batch_size=5, parts=2)()

    flow.clear_default_session()
    records[3] = make_record({"v": [b"ab", b"cd"]})  # wrong kind for the bytes decoder

    @flow.global_function(type="predict")
    def as_bytes() -> tp.Numpy:
        r = flow.data.ofrecord_reader(str(tmp_path), batch_size=5, data_part_num=2)
        flow.data.OFRecordBytesDecoder(r, "v")  # runs first in the pipeline: it fails
        return flow.data.OFRecordRawDecoder(r, "v", shape=(2,), dtype=flow.float)

    write_records(records, tmp_path, part_num=2, overwrite=True)
    with pytest.raises(
        flow.data.DecodeError,
        match=rf"field 'v' of record 0 of {tmp_path / 'part-0'} \(byte offset 0\) "
        r"must hold exactly one byte string, it holds a float_list",
    ):
        as_bytes()


def test_empty_records_are_refused_before_anything_is_written(tmp_path):
    """OneFlow's reader checks each record's length is > 0 (``CHECK_GT``), so does flowjob's:
    the writer never produces one."""
    with pytest.raises(RecordError, match="needs at least one feature"):
        make_record({})
    for empty in (OFRecord(), b""):
        with pytest.raises(RecordError, match="record 1 is empty"):
            write_records([make_record({"v": 1.0}), empty], tmp_path / "out")
        assert not (tmp_path / "out").exists()
    assert [p.name for p in tmp_path.iterdir()] == []  # no staging folder left behind
    with pytest.raises(RecordError, match="no records to write"):
        write_ofrecord(tmp_path / "none", {"v": np.zeros((0, 2), np.float32)})


def test_onerec_decode_errors_name_the_file_and_example_index(tmp_path):
    pytest.importorskip("xxhash")
    pytest.importorskip("flatbuffers")
    from flowjob.data import write_onerec

    # example 2 of the file has a shorter tensor than the decoder's shape
    path = tmp_path / "a.onerec"
    write_onerec(path, {"x": [np.zeros(n, np.float32) for n in (3, 3, 2, 3)]})
    data, offset = path.read_bytes(), 0
    for _ in range(2):  # frame: 24-byte header (size at byte 12), payload padded to 8, digest
        size = struct.unpack_from("<i", data, offset + 12)[0]
        offset += 24 + size + (-size % 8) + 8

    @flow.global_function(type="predict")
    def decode() -> tp.Numpy:
        r = flow.data.onerec_reader(files=[str(path)], batch_size=4)
        return flow.data.onerec_decoder(r, key="x", shape=(3,), dtype=flow.float)

    with pytest.raises(
        flow.data.DecodeError,
        match=rf"feature 'x' of record 2 of {path} \(byte offset {offset}\) has "
        r"shape \(2,\), expected \(3,\)",
    ):
        decode()
