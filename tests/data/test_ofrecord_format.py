"""OFRecord files: flowjob's classes against protoc's classes of OneFlow's own record.proto,
the framing read back byte by byte, and errors for damaged files (file and offset)."""

from __future__ import annotations

import importlib
import struct
import sys
from pathlib import Path

import numpy as np
import pytest

import flowjob as flow
from flowjob.cli.main import main as cli_main
from flowjob.data import RecordError, read_records, write_ofrecord

ONEFLOW_PROTO = Path(__file__).parent / "oneflow" / "record.proto"


@pytest.fixture(scope="module")
def protoc_record(tmp_path_factory):
    """OneFlow's record.proto compiled by protoc (grpcio-tools): the reference classes."""
    protoc = pytest.importorskip("grpc_tools.protoc")
    out = tmp_path_factory.mktemp("pb2")
    status = protoc.main(["protoc", f"-I{ONEFLOW_PROTO.parent}", f"--python_out={out}",
                          str(ONEFLOW_PROTO)])
    assert status == 0
    sys.path.insert(0, str(out))
    try:
        # Its own module name keeps it apart from flowjob's pool (a different package path).
        return importlib.import_module("record_pb2")
    finally:
        sys.path.remove(str(out))


def _repeated(field) -> bool:
    return field.is_repeated if hasattr(field, "is_repeated") else field.label == 3


def _fields(descriptor):
    return {f.name: (f.number, f.type, _repeated(f), f.message_type and f.message_type.name,
                     f.containing_oneof and f.containing_oneof.name)
            for f in descriptor.fields}


def test_classes_match_protoc_schema(protoc_record):
    for name in ("BytesList", "FloatList", "DoubleList", "Int32List", "Int64List", "Feature",
                 "OFRecord"):
        ours = getattr(flow.data, name).DESCRIPTOR
        theirs = protoc_record.DESCRIPTOR.message_types_by_name[name]
        assert _fields(ours) == _fields(theirs), name
        for f in ours.fields:  # packed numeric lists, as in record.proto
            assert f.GetOptions().packed == theirs.fields_by_name[f.name].GetOptions().packed


def test_records_cross_parse_with_protoc_classes(protoc_record):
    ours = flow.data.make_record({"f": np.array([1.5, -2.0], np.float32),
                                  "d": np.array([1e300]), "i": np.array([7, -8], np.int32),
                                  "l": np.array([2**40], np.int64), "b": b"\x00\xffabc"})
    theirs = protoc_record.OFRecord.FromString(ours.SerializeToString())
    assert list(theirs.feature["f"].float_list.value) == [1.5, -2.0]
    assert list(theirs.feature["d"].double_list.value) == [1e300]
    assert list(theirs.feature["i"].int32_list.value) == [7, -8]
    assert list(theirs.feature["l"].int64_list.value) == [2**40]
    assert list(theirs.feature["b"].bytes_list.value) == [b"\x00\xffabc"]
    back = flow.data.OFRecord.FromString(theirs.SerializeToString())
    assert back == ours


def _frames(path: Path) -> list[tuple[int, bytes]]:
    """Independent reader of the framing: little-endian int64 length, then the bytes."""
    data, out, pos = path.read_bytes(), [], 0
    while pos < len(data):
        (n,) = struct.unpack_from("<q", data, pos)
        out.append((pos, data[pos + 8:pos + 8 + n]))
        pos += 8 + n
    assert pos == len(data)
    return out


def test_write_round_trip_read_by_protoc(tmp_path, protoc_record):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(10, 2, 3)).astype(np.float32)
    y = rng.integers(-5, 5, 10).astype(np.int64)
    words = [bytes([i]) * i for i in range(10)]
    paths = write_ofrecord(tmp_path, {"x": x, "y": y, "w": words}, part_num=3,
                           part_name_suffix_length=5)
    assert [Path(p).name for p in paths] == ["part-00000", "part-00001", "part-00002"]
    rows = [protoc_record.OFRecord.FromString(data) for p in paths for _, data in _frames(Path(p))]
    assert len(rows) == 10
    for i, row in enumerate(rows):
        np.testing.assert_array_equal(np.array(row.feature["x"].float_list.value, np.float32),
                                      x[i].ravel())
        assert list(row.feature["y"].int64_list.value) == [y[i]]
        assert list(row.feature["w"].bytes_list.value) == [words[i]]
    assert sum(len(read_records(p)) for p in paths) == 10


def test_truncated_file_names_file_and_offset(tmp_path):
    (path,) = write_ofrecord(tmp_path, {"x": np.arange(12, dtype=np.int32).reshape(4, 3)})
    frames = _frames(Path(path))
    last = frames[-1][0]
    Path(path).write_bytes(Path(path).read_bytes()[:-3])
    with pytest.raises(RecordError, match=rf"{path}: truncated record at byte offset {last}"):
        read_records(path)
    Path(path).write_bytes(Path(path).read_bytes()[:last + 5])  # inside the length field
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
    arrays = {"a": np.arange(30, dtype=np.float32).reshape(10, 3),
              "label": np.arange(10, dtype=np.int32)}
    np.savez(tmp_path / "d.npz", **arrays)
    assert cli_main(["ofrecord", "npz", str(tmp_path / "d.npz"), str(tmp_path / "out"),
                     "--part-num", "2"]) == 0
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

    from flowjob.data._progress import Progress

    stream = io.StringIO()
    meter = Progress("scanning d", total=3, stream=stream, interval=0.0)
    for _ in range(3):
        meter.update()
    meter.close()
    lines = stream.getvalue().splitlines()
    assert lines[:3] == ["scanning d: 1/3 records", "scanning d: 2/3 records",
                         "scanning d: 3/3 records"]
    quiet = io.StringIO()
    short = Progress("x", stream=quiet, interval=60.0)
    short.update()
    short.close()
    assert quiet.getvalue() == ""
