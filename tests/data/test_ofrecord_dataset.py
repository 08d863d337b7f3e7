"""A written OFRecord data set is complete or absent: an existing folder is refused or
replaced whole, and ``flowjob ofrecord inspect`` tells a complete set from a short, mixed,
changed or empty one (by the manifest written last); folders without a manifest (OneFlow's)
are still read."""

from __future__ import annotations

import json
import shutil
import struct
from pathlib import Path

import numpy as np
import pytest

import flowjob as flow
import flowjob.typing as tp
from flowjob._src.cli.main import main as cli_main
from flowjob.data import (
    MANIFEST_NAME,
    DatasetExistsError,
    inspect_ofrecord,
    read_records,
    write_ofrecord,
)


@pytest.fixture(autouse=True)
def fresh_session():
    flow.clear_default_session()
    yield
    flow.clear_default_session()


def _ids(folder: Path) -> list[int]:
    """The ``id`` of every record in every part file, in part order."""
    parts = sorted(
        (p for p in folder.iterdir() if p.name.startswith("part-")), key=lambda p: int(p.name[5:])
    )
    return [r.feature["id"].int64_list.value[0] for p in parts for r in read_records(p)]


def _dataset(folder: Path, n: int, parts: int, first_id: int = 0, **kw) -> list[str]:
    ids = np.arange(first_id, first_id + n, dtype=np.int64)
    return write_ofrecord(
        folder, {"id": ids[:, None], "x": np.ones((n, 3), np.float32)}, part_num=parts, **kw
    )


def _inspect(capsys, path) -> tuple[int, str, str]:
    capsys.readouterr()
    code = cli_main(["ofrecord", "inspect", str(path)])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_a_non_empty_folder_is_refused_or_replaced_whole(tmp_path, capsys):
    out = tmp_path / "data"
    _dataset(out, 40, parts=4)
    with pytest.raises(DatasetExistsError, match=rf"{out}: the folder is not empty .*overwrite"):
        _dataset(out, 10, parts=2, first_id=100)
    assert _ids(out) == list(range(40))  # untouched
    np.savez(tmp_path / "new.npz", id=np.arange(100, 110)[:, None])
    capsys.readouterr()
    assert (
        cli_main(["ofrecord", "npz", str(tmp_path / "new.npz"), str(out), "--part-num", "2"]) == 1
    )
    assert f"{out}: the folder is not empty" in capsys.readouterr().err
    assert (
        cli_main(
            [
                "ofrecord",
                "npz",
                str(tmp_path / "new.npz"),
                str(out),
                "--part-num",
                "2",
                "--overwrite",
            ]
        )
        == 0
    )
    # the old part-2 and part-3 are gone: the new set is not mixed with the old one
    assert sorted(p.name for p in out.iterdir()) == [MANIFEST_NAME, "part-0", "part-1"]
    assert _ids(out) == list(range(100, 110))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data", "new.npz"]  # no leftovers
    (tmp_path / "plain").mkdir()  # the set's folder has the permissions of a plain mkdir
    assert out.stat().st_mode & 0o777 == (tmp_path / "plain").stat().st_mode & 0o777
    (out / "sub").mkdir()
    with pytest.raises(DatasetExistsError, match="holds sub-folders"):
        _dataset(out, 10, parts=1, overwrite=True)


def test_inspect_tells_a_complete_set_from_a_short_or_mixed_one(tmp_path, capsys):
    out = tmp_path / "data"
    _dataset(out, 30, parts=3)
    code, text, err = _inspect(capsys, out)
    assert (code, err) == (0, "")
    assert "total: 30 records in 3 file(s)" in text
    assert "complete: 3 part(s) and 30 records, as the manifest lists" in text
    manifest = json.loads((out / MANIFEST_NAME).read_text())
    assert [(p["name"], p["records"], p["bytes"]) for p in manifest["parts"]] == [
        (f"part-{i}", 10, (out / f"part-{i}").stat().st_size) for i in range(3)
    ]

    # cut on a record boundary: every remaining record is whole, only the manifest can tell
    part = out / "part-1"
    data = part.read_bytes()
    last = len(data) - (8 + struct.unpack_from("<q", data, 0)[0])
    part.write_bytes(data[:last])
    assert len(read_records(part)) == 9
    code, _, err = _inspect(capsys, out)
    assert code == 1
    assert f"INCOMPLETE: {part}: 9 records in {last} bytes, the manifest says 10 records" in err

    @flow.global_function(type="predict")
    def read() -> tp.Numpy:
        r = flow.data.ofrecord_reader(str(out), batch_size=2, data_part_num=3)
        return flow.data.OFRecordRawDecoder(r, "id", shape=(1,), dtype=flow.int64)

    with pytest.raises(
        flow.OpError,
        match=rf"{part}: {last} bytes, but the data set's "
        rf"manifest says {len(data)} bytes",
    ):
        read()

    part.write_bytes(data)
    (out / "part-2").unlink()
    code, _, err = _inspect(capsys, out)
    assert code == 1 and "part-2: listed in the manifest (10 records) but missing" in err

    _dataset(out, 30, parts=3, overwrite=True)
    shutil.copy(out / "part-0", out / "part-3")  # a part of an older, larger set
    code, _, err = _inspect(capsys, out)
    assert code == 1 and "part-3: a part file that the manifest does not list" in err


def test_inspect_catches_a_flipped_bit_that_still_parses(tmp_path, capsys):
    """OFRecord itself has no checksum: a flipped bit in a float still parses, as another
    value. The manifest's CRC-32C is what catches it."""
    out = tmp_path / "data"
    _dataset(out, 4, parts=1)
    part = out / "part-0"
    data = bytearray(part.read_bytes())
    at = bytes(data).rfind(struct.pack("<3f", 1.0, 1.0, 1.0))  # the last record's floats
    data[at + 10] ^= 0x01  # a bit of the third float's mantissa
    part.write_bytes(bytes(data))
    values = list(read_records(part)[-1].feature["x"].float_list.value)
    assert values != [1.0, 1.0, 1.0]  # read without complaint, as a different number
    code, _, err = _inspect(capsys, out)
    assert code == 1 and "DAMAGED" in err and "CRC-32C" in err


def test_inspect_refuses_empty_or_missing_paths(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    code, _, err = _inspect(capsys, tmp_path / "empty")
    assert code == 1 and "the folder holds no files (not an OFRecord data set)" in err
    code, _, err = _inspect(capsys, tmp_path / "nowhere")
    assert code == 1 and "no such file or folder" in err
    (tmp_path / "zero").mkdir()
    (tmp_path / "zero" / "part-0").write_bytes(b"")
    code, _, err = _inspect(capsys, tmp_path / "zero")
    assert code == 1 and "holds no records" in err


def test_folders_without_a_manifest_are_read_as_oneflow_wrote_them(tmp_path, capsys):
    out = tmp_path / "data"
    _dataset(out, 6, parts=2)
    (out / MANIFEST_NAME).unlink()
    code, text, err = _inspect(capsys, out)
    assert (code, err) == (0, "")
    assert "no manifest" in text and "total: 6 records in 2 file(s)" in text
    report = inspect_ofrecord(out)
    assert report.ok and report.records == 6 and report.manifest is None

    @flow.global_function(type="predict")
    def read() -> tp.Numpy:
        r = flow.data.ofrecord_reader(str(out), batch_size=6, data_part_num=2)
        return flow.data.OFRecordRawDecoder(r, "id", shape=(1,), dtype=flow.int64)

    np.testing.assert_array_equal(read()[:, 0], np.arange(6))


def test_reading_fewer_parts_than_the_set_has_warns(tmp_path):
    out = tmp_path / "data"
    _dataset(out, 6, parts=3)

    @flow.global_function(type="predict")
    def read() -> tp.Numpy:
        r = flow.data.ofrecord_reader(str(out), batch_size=2)
        return flow.data.OFRecordRawDecoder(r, "id", shape=(1,), dtype=flow.int64)

    with pytest.warns(UserWarning, match=r"reading 1 of the 3 part files"):
        np.testing.assert_array_equal(read()[:, 0], [0, 1])
