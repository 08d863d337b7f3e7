"""OFRecord files: flowjob's classes against golden bytes of the protobuf wire format and a
decoder written here from the wire rules, the framing read back byte by byte, and errors for
damaged files (file and offset)."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest

import flowjob as flow
from flowjob._src.cli.main import main as cli_main
from flowjob.data import RecordError, read_records, write_ofrecord

# The OFRecord schema's facts: Feature's oneof fields (field number -> list message and the
# element's encoding), each list's values in field 1 (packed for numbers), OFRecord's map in
# field 1 with entries key = 1, value = 2. Protobuf wire types: 0 varint, 1 fixed64,
# 2 length-delimited, 5 fixed32.
_KINDS = {
    1: ("bytes_list", None),
    2: ("float_list", "<f"),
    3: ("double_list", "<d"),
    4: ("int32_list", "varint"),
    5: ("int64_list", "varint"),
}


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = data[pos]
        value |= (byte & 0x7F) << shift
        pos, shift = pos + 1, shift + 7
        if byte < 0x80:
            return value, pos


def _wire_fields(data: bytes) -> list[tuple[int, int, object]]:
    """(field number, wire type, value) of each field, decoded by the protobuf wire rules."""
    out, pos = [], 0
    while pos < len(data):
        tag, pos = _varint(data, pos)
        number, wire = tag >> 3, tag & 7
        if wire == 0:
            value, pos = _varint(data, pos)
        elif wire == 2:
            n, pos = _varint(data, pos)
            value, pos = data[pos : pos + n], pos + n
        elif wire in (1, 5):
            n = 8 if wire == 1 else 4
            value, pos = data[pos : pos + n], pos + n
        else:
            raise AssertionError(f"wire type {wire} at {pos}")
        out.append((number, wire, value))
    return out


def _signed64(n: int) -> int:
    return n - (1 << 64) if n >= 1 << 63 else n


def decode_ofrecord(data: bytes) -> dict[str, tuple[str, list]]:
    """An OFRecord decoded by hand: feature name -> (list field name, values)."""
    record = {}
    for number, wire, entry in _wire_fields(data):
        assert (number, wire) == (1, 2)
        fields = {n: v for n, w, v in _wire_fields(entry)}
        [(kind, _, payload)] = _wire_fields(fields[2])  # a Feature sets one field of its oneof
        name, element = _KINDS[kind]
        values = []
        for number_, wire_, value in _wire_fields(payload):
            assert number_ == 1
            if element is None:
                values.append(value)
            elif element == "varint":  # packed: a run of varints
                assert wire_ == 2
                pos = 0
                while pos < len(value):
                    n, pos = _varint(value, pos)
                    values.append(_signed64(n))
            else:  # packed fixed-width numbers
                assert wire_ == 2
                values.extend(x for (x,) in struct.iter_unpack(element, value))
        record[fields[1].decode()] = (name, values)
    return record


# {"f": float32 [1.5, -2.0]} encoded by hand: OFRecord field 1 (tag 0x0a) holds the map entry;
# its key (0x0a, 1 byte, "f") and value Feature (0x12, 12 bytes); the Feature's float_list is
# field 2 (0x12, 10 bytes); FloatList's packed field 1 (0x0a, 8 bytes) holds two float32s.
GOLDEN_FLOAT = b"\x0a\x11\x0a\x01f\x12\x0c\x12\x0a\x0a\x08" + struct.pack("<2f", 1.5, -2.0)
# {"i": int32 [7, -8]}: int32_list is Feature field 4 (0x22); a negative int32 is the 10-byte
# varint of its 64-bit two's complement.
GOLDEN_INT32 = (
    b"\x0a\x14\x0a\x01i\x12\x0f\x22\x0d\x0a\x0b\x07\xf8\xff\xff\xff\xff\xff\xff\xff\xff\x01"
)
# {"b": [b"\x00\xffabc"]}: bytes_list is Feature field 1 (0x0a), its values not packed.
GOLDEN_BYTES = b"\x0a\x0e\x0a\x01b\x12\x09\x0a\x07\x0a\x05\x00\xffabc"


@pytest.mark.parametrize(
    "features,golden",
    [
        ({"f": np.array([1.5, -2.0], np.float32)}, GOLDEN_FLOAT),
        ({"i": np.array([7, -8], np.int32)}, GOLDEN_INT32),
        ({"b": b"\x00\xffabc"}, GOLDEN_BYTES),
    ],
)
def test_record_bytes_are_the_protobuf_wire_format(features, golden):
    ours = flow.data.make_record(features)
    assert ours.SerializeToString() == golden
    assert flow.data.OFRecord.FromString(golden) == ours


def test_records_decode_by_hand():
    """Every list kind, several features: the hand decoder reads what flowjob writes."""
    ours = flow.data.make_record(
        {
            "f": np.array([1.5, -2.0], np.float32),
            "d": np.array([1e300]),
            "i": np.array([7, -8], np.int32),
            "l": np.array([2**40, -3], np.int64),
            "b": b"\x00\xffabc",
        }
    )
    assert decode_ofrecord(ours.SerializeToString()) == {
        "f": ("float_list", [1.5, -2.0]),
        "d": ("double_list", [1e300]),
        "i": ("int32_list", [7, -8]),
        "l": ("int64_list", [2**40, -3]),
        "b": ("bytes_list", [b"\x00\xffabc"]),
    }


def test_unpacked_numbers_parse_too():
    """proto2 readers accept repeated numbers unpacked (one tag per value), as older writers
    sent them: int64_list (Feature field 5, 0x2a) with values 3 and 300 as separate varints."""
    entry = b"\x0a\x01l" + b"\x12\x07" + b"\x2a\x05" + b"\x08\x03" + b"\x08\xac\x02"
    record = flow.data.OFRecord.FromString(b"\x0a" + bytes([len(entry)]) + entry)
    assert list(record.feature["l"].int64_list.value) == [3, 300]


def _frames(path: Path) -> list[tuple[int, bytes]]:
    """Independent reader of the framing: little-endian int64 length, then the bytes."""
    data, out, pos = path.read_bytes(), [], 0
    while pos < len(data):
        (n,) = struct.unpack_from("<q", data, pos)
        out.append((pos, data[pos + 8 : pos + 8 + n]))
        pos += 8 + n
    assert pos == len(data)
    return out


def test_write_round_trip_decoded_by_hand(tmp_path):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(10, 2, 3)).astype(np.float32)
    y = rng.integers(-5, 5, 10).astype(np.int64)
    words = [bytes([i]) * i for i in range(10)]
    paths = write_ofrecord(
        tmp_path, {"x": x, "y": y, "w": words}, part_num=3, part_name_suffix_length=5
    )
    assert [Path(p).name for p in paths] == ["part-00000", "part-00001", "part-00002"]
    rows = [decode_ofrecord(data) for p in paths for _, data in _frames(Path(p))]
    assert len(rows) == 10
    for i, row in enumerate(rows):
        assert row["x"][0] == "float_list"
        np.testing.assert_array_equal(np.array(row["x"][1], np.float32), x[i].ravel())
        assert row["y"] == ("int64_list", [y[i]])
        assert row["w"] == ("bytes_list", [words[i]])
    assert sum(len(read_records(p)) for p in paths) == 10


def test_truncated_file_names_file_and_offset(tmp_path):
    (path,) = write_ofrecord(tmp_path, {"x": np.arange(12, dtype=np.int32).reshape(4, 3)})
    frames = _frames(Path(path))
    last = frames[-1][0]
    Path(path).write_bytes(Path(path).read_bytes()[:-3])
    with pytest.raises(RecordError, match=rf"{path}: truncated record at byte offset {last}"):
        read_records(path)
    Path(path).write_bytes(Path(path).read_bytes()[: last + 5])  # inside the length field
    with pytest.raises(RecordError, match=rf"offset {last}: the file ends inside the 8-byte"):
        read_records(path)


def test_garbage_is_reported_with_offset(tmp_path):
    (path,) = write_ofrecord(tmp_path, {"x": np.arange(4, dtype=np.int32)})
    good = Path(path).read_bytes()
    Path(path).write_bytes(good + struct.pack("<q", -7) + b"junk")
    with pytest.raises(RecordError, match=rf"offset {len(good)}: length field -7"):
        read_records(path)
    Path(path).write_bytes(good + struct.pack("<q", 4) + b"\xff\xff\xff\xff")
    with pytest.raises(RecordError, match=rf"record at byte offset {len(good)} is not a valid"):
        read_records(path)


def test_cli_npz_and_inspect(tmp_path, capsys):
    arrays = {
        "a": np.arange(30, dtype=np.float32).reshape(10, 3),
        "label": np.arange(10, dtype=np.int32),
    }
    np.savez(tmp_path / "d.npz", **arrays)
    assert (
        cli_main(
            ["ofrecord", "npz", str(tmp_path / "d.npz"), str(tmp_path / "out"), "--part-num", "2"]
        )
        == 0
    )
    records = read_records(tmp_path / "out" / "part-0") + read_records(tmp_path / "out" / "part-1")
    got = np.array([list(r.feature["a"].float_list.value) for r in records], np.float32)
    np.testing.assert_array_equal(got, arrays["a"])
    capsys.readouterr()
    assert cli_main(["ofrecord", "inspect", str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    assert "total: 10 records in 2 file(s)" in out
    assert "field 'a': float_list (3 values in the first record)" in out
    part = tmp_path / "out" / "part-1"
    part.write_bytes(part.read_bytes()[:-1])
    assert cli_main(["ofrecord", "inspect", str(part)]) == 1
    assert "DAMAGED" in capsys.readouterr().err


def test_progress_lines_for_long_scans():
    import io

    from flowjob._src.data._progress import Progress

    stream = io.StringIO()
    meter = Progress("scanning d", total=3, stream=stream, interval=0.0)
    for _ in range(3):
        meter.update()
    meter.close()
    lines = stream.getvalue().splitlines()
    assert lines[:3] == [
        "scanning d: 1/3 records",
        "scanning d: 2/3 records",
        "scanning d: 3/3 records",
    ]
    quiet = io.StringIO()
    short = Progress("x", stream=quiet, interval=60.0)
    short.update()
    short.close()
    assert quiet.getvalue() == ""
