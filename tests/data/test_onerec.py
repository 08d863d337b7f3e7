"""OneRec: the schema against OneFlow's generated header, frames checked independently
(struct + xxhash), and onerec_reader/onerec_decoder in jobs against NumPy."""

from __future__ import annotations

import difflib
import re
import shutil
import struct
import subprocess
from pathlib import Path
from typing import Tuple

import numpy as np
import pytest

import flowjob as flow
import flowjob.typing as tp
from flowjob.data import RecordError, parse_example, write_onerec

xxhash = pytest.importorskip("xxhash")
pytest.importorskip("flatbuffers")

HERE = Path(__file__).parent
SCHEMA = Path(flow.data.__file__).parent / "onerec_example.fbs"


pytestmark = pytest.mark.usefixtures("fresh_session")


def _tokens(text: str) -> list[str]:
    text = re.sub(r"//.*", "", re.sub(r"/\*.*?\*/", "", text, flags=re.S))
    return re.findall(r"\w+|[^\s\w]", text)


# The only differences flatc 2.0.8 makes from the (older) flatc OneFlow used; every field, type,
# offset, name and identifier must be the same.
_FLATC_VERSION_DIFFERENCES = (
    r"static_assert \( FLATBUFFERS_VERSION_MAJOR .* \) ; \|",  # a version check
    r": uint8_t \|",  # the union enum's explicit underlying type
    r"\| (\w+)Builder & operator = \( const \1Builder & \) ;",  # deleted copy assignment
    r", [18] \|",  # alignment arguments of vector creation
    r"_name \| val",  # a parameter name
    r"SizePrefixedExampleBufferHasIdentifier \( .* \} (in|inline bool) \|",  # one more helper
)


def test_schema_regenerates_oneflows_header(tmp_path):
    """flatc on our .fbs gives OneFlow's example_generated.h, up to flatc version details."""
    flatc = shutil.which("flatc")
    if flatc is None:  # Debian/Ubuntu: the flatbuffers-compiler package
        subprocess.run(["apt-get", "install", "-y", "-q", "flatbuffers-compiler"],
                       capture_output=True, timeout=300)
        flatc = shutil.which("flatc")
    if flatc is None:
        pytest.skip("flatc is not installed and could not be installed")
    shutil.copy(SCHEMA, tmp_path / "example.fbs")  # OneFlow's file name (include guards)
    subprocess.run([flatc, "--cpp", "-o", str(tmp_path), str(tmp_path / "example.fbs")],
                   check=True, capture_output=True)
    ours = _tokens((tmp_path / "example_generated.h").read_text())
    theirs = _tokens((HERE / "oneflow_sources" / "example_generated.h").read_text())
    matcher = difflib.SequenceMatcher(None, ours, theirs, autojunk=False)
    same = 0
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            same += i2 - i1
            continue
        hunk = f"{' '.join(ours[i1:i2])} | {' '.join(theirs[j1:j2])}".strip()
        assert any(re.fullmatch(p, hunk) for p in _FLATC_VERSION_DIFFERENCES), hunk[:300]
    assert same > 0.95 * len(theirs)


def _frames(path: Path) -> list[bytes]:
    """Independent frame reader: struct for the header, xxhash for both digests."""
    data, pos, out = path.read_bytes(), 0, []
    while pos < len(data):
        magic, reserved, size = struct.unpack_from("<qii", data, pos)
        assert data[pos:pos + 8] == b"^ONEREC$" and reserved == 0
        assert data[pos + 16:pos + 24] == xxhash.xxh64(data[pos:pos + 16]).digest()
        payload = data[pos + 24:pos + 24 + size]
        end = pos + 24 + size + (-size % 8)
        assert data[end:end + 8] == xxhash.xxh64(payload).digest()
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
        list(flow.data._onerec.iter_frames(path))
    bad = bytearray(data)
    bad[2 * size + 30] ^= 0xFF  # inside the third payload
    path.write_bytes(bytes(bad))
    with pytest.raises(RecordError, match=rf"offset {2 * size}: payload digest mismatch"):
        list(flow.data._onerec.iter_frames(path))


def test_reader_and_decoder_in_a_job(tmp_path):
    ids = np.arange(12, dtype=np.int32)
    feats = np.stack([ids * 1.5, -ids]).T.astype(np.float32)
    varying = [np.arange(k % 3 + 1, dtype=np.int64) for k in ids]
    files = [write_onerec(tmp_path / f"{k}.onerec", {"id": ids[k::2, None],
                                                     "feat": feats[k::2],
                                                     "var": varying[k::2]})
             for k in range(2)]

    @flow.global_function(type="predict")
    def read() -> Tuple[tp.Numpy, tp.Numpy, tp.Numpy]:
        r = flow.data.onerec_reader(files=files, batch_size=4)
        i = flow.data.onerec_decoder(r, key="id", shape=(1,), dtype=flow.int32)
        f = flow.data.onerec_decoder(r, key="feat", shape=(2,), dtype=flow.float)
        v = flow.data.onerec_decoder(r, key="var", shape=(3,), dtype=flow.int64,
                                     is_dynamic=True)
        return i, f * 2.0, v

    order = np.concatenate([ids[0::2], ids[1::2]])  # file by file
    for call in range(4):
        i, f, v = read()
        want = np.concatenate([order, order])[4 * call:4 * call + 4]
        np.testing.assert_array_equal(i[:, 0], want)
        np.testing.assert_allclose(f, feats[want] * 2.0)
        for row, k in zip(v, want):
            np.testing.assert_array_equal(row, np.pad(varying[k], (0, 3 - len(varying[k]))))


def test_batch_shuffle_keeps_batches_together(tmp_path):
    ids = np.arange(16, dtype=np.int32)[:, None]
    path = write_onerec(tmp_path / "a.onerec", {"id": ids})

    @flow.global_function(type="predict")
    def read() -> tp.Numpy:
        r = flow.data.onerec_reader(files=[path], batch_size=4, random_shuffle=True,
                                    shuffle_mode="batch", shuffle_buffer_size=4, seed=0,
                                    epochs=2)
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
