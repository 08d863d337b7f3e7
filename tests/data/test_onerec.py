"""OneRec: the generated module against flatc's output of the schema, frames checked independently
(struct + xxhash), and onerec_reader/onerec_decoder in jobs against NumPy."""

from __future__ import annotations

import shutil
import struct
import subprocess
import sys
from pathlib import Path
from typing import Tuple

import numpy as np
import pytest

import flowjob as flow
import flowjob.typing as tp
from flowjob.data import RecordError, parse_example, write_onerec
from tests.timeouts import scaled

xxhash = pytest.importorskip("xxhash")
pytest.importorskip("flatbuffers")

SCHEMA = Path(flow.data.__file__).parent / "onerec_example.fbs"


pytestmark = pytest.mark.usefixtures("fresh_session")


def test_generated_module_is_flatc_output_of_the_schema(tmp_path):
    """_onerec_generated.py is what the documented command makes from onerec_example.fbs."""
    flatc = shutil.which("flatc")
    if flatc is None:
        pytest.skip("flatc not installed (Debian/Ubuntu: apt-get install flatbuffers-compiler)")
    version = subprocess.run([flatc, "--version"], capture_output=True, text=True).stdout
    if "2.0.8" not in version:  # other versions lay the generated code out differently
        pytest.skip(f"the committed file is flatc 2.0.8's output; this is {version.strip()}")
    done = subprocess.run(
        [sys.executable, "-m", "flowjob._src.data._regen_onerec", "--output", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=scaled(120),
    )
    assert done.returncode == 0, done.stderr
    committed = SCHEMA.parent / "_onerec_generated.py"
    assert (tmp_path / committed.name).read_text() == committed.read_text()


def _frames(path: Path) -> list[bytes]:
    """Independent frame reader: struct for the header, xxhash for both digests."""
    data, pos, out = path.read_bytes(), 0, []
    while pos < len(data):
        magic, reserved, size = struct.unpack_from("<qii", data, pos)
        assert data[pos : pos + 8] == b"^ONEREC$" and reserved == 0
        assert data[pos + 16 : pos + 24] == xxhash.xxh64(data[pos : pos + 16]).digest()
        payload = data[pos + 24 : pos + 24 + size]
        end = pos + 24 + size + (-size % 8)
        assert data[end : end + 8] == xxhash.xxh64(payload).digest()
        out.append(payload)
        pos = end + 8
    return out


def test_write_and_parse_round_trip(tmp_path):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(5, 2, 3)).astype(np.float32)
    ids = rng.integers(0, 100, (5, 4)).astype(np.int64)
    path = Path(write_onerec(tmp_path / "a.onerec", {"x": x, "ids": ids}))
    payloads = _frames(path)
    assert len(payloads) == 5
    for i, payload in enumerate(payloads):
        assert payload[4:8] == b"1REC"
        example = parse_example(payload)
        assert example["x"][0] == (2, 3)
        np.testing.assert_array_equal(example["x"][1], x[i].ravel())
        np.testing.assert_array_equal(example["ids"][1], ids[i])


def test_damaged_frames_name_file_and_offset(tmp_path):
    path = Path(write_onerec(tmp_path / "a.onerec", {"v": np.arange(6, dtype=np.int32)[:, None]}))
    data = path.read_bytes()
    size = len(data) // 6
    path.write_bytes(data[:-4])
    with pytest.raises(RecordError, match=rf"truncated OneRec frame at byte offset {5 * size}"):
        list(flow._src.data._onerec.iter_frames(path))
    bad = bytearray(data)
    bad[2 * size + 30] ^= 0xFF  # inside the third payload
    path.write_bytes(bytes(bad))
    with pytest.raises(RecordError, match=rf"offset {2 * size}: payload digest mismatch"):
        list(flow._src.data._onerec.iter_frames(path))


def test_reader_and_decoder_in_a_job(tmp_path):
    ids = np.arange(12, dtype=np.int32)
    feats = np.stack([ids * 1.5, -ids]).T.astype(np.float32)
    varying = [np.arange(k % 3 + 1, dtype=np.int64) for k in ids]
    files = [
        write_onerec(
            tmp_path / f"{k}.onerec",
            {"id": ids[k::2, None], "feat": feats[k::2], "var": varying[k::2]},
        )
        for k in range(2)
    ]

    @flow.global_function(type="predict")
    def read() -> Tuple[tp.Numpy, tp.Numpy, tp.Numpy]:
        r = flow.data.onerec_reader(files=files, batch_size=4)
        i = flow.data.onerec_decoder(r, key="id", shape=(1,), dtype=flow.int32)
        f = flow.data.onerec_decoder(r, key="feat", shape=(2,), dtype=flow.float)
        v = flow.data.onerec_decoder(r, key="var", shape=(3,), dtype=flow.int64, is_dynamic=True)
        return i, f * 2.0, v

    order = np.concatenate([ids[0::2], ids[1::2]])  # file by file
    for call in range(4):
        i, f, v = read()
        want = np.concatenate([order, order])[4 * call : 4 * call + 4]
        np.testing.assert_array_equal(i[:, 0], want)
        np.testing.assert_allclose(f, feats[want] * 2.0)
        for row, k in zip(v, want):
            np.testing.assert_array_equal(row, np.pad(varying[k], (0, 3 - len(varying[k]))))


def test_batch_shuffle_keeps_batches_together(tmp_path):
    ids = np.arange(16, dtype=np.int32)[:, None]
    path = write_onerec(tmp_path / "a.onerec", {"id": ids})

    @flow.global_function(type="predict")
    def read() -> tp.Numpy:
        r = flow.data.onerec_reader(
            files=[path],
            batch_size=4,
            random_shuffle=True,
            shuffle_mode="batch",
            shuffle_buffer_size=4,
            seed=0,
            epochs=2,
        )
        return flow.data.onerec_decoder(r, key="id", shape=(1,), dtype=flow.int32)

    batches = [read()[:, 0] for _ in range(8)]
    for batch in batches:  # a batch is 4 consecutive records of the file
        assert batch[0] % 4 == 0 and np.array_equal(batch, batch[0] + np.arange(4))
    assert sorted(b[0] for b in batches) == [0, 0, 4, 4, 8, 8, 12, 12]
    assert [b[0] for b in batches] != [0, 4, 8, 12, 0, 4, 8, 12]
    with pytest.raises(flow.data.EndOfData):
        read()


def test_decoder_errors(tmp_path):
    path = write_onerec(tmp_path / "a.onerec", {"x": np.zeros((2, 3), np.float32)})

    @flow.global_function(type="predict")
    def wrong_type() -> tp.Numpy:
        r = flow.data.onerec_reader(files=[path], batch_size=2)
        return flow.data.onerec_decoder(r, key="x", shape=(3,), dtype=flow.int32)

    with pytest.raises(flow.data.DecodeError, match="holds float32, the decoder's dtype is int32"):
        wrong_type()
