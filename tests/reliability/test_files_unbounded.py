"""Reads bounded by the file's real size beyond the files round 4 named (issue 48, item 6): a
20 GiB sparse OFRecord manifest, an event record whose length field says 2^40 bytes, and
``checkpoint.get`` of an 8 GiB safetensors file, which reads tensors only when asked.

Each big file is sparse (``truncate``), so it costs no disk; whatever could read one whole runs
in a child under a 3 GiB address-space limit, where a regression is a MemoryError, not the
shared machine's memory."""

from __future__ import annotations

import io
import json
import os
import struct
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from reliability_helpers import REPO, child_env

import flowjob as flow
from flowjob._src.summary._records import frame_record, masked_crc32c
from tests.timeouts import scaled

GIB = 1 << 30

_BOUNDED = textwrap.dedent("""
    import resource, sys
    resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
    import warnings; warnings.simplefilter("ignore")
    what, path = sys.argv[1:3]
    if what == "manifest":
        import flowjob as flow
        try:
            flow.data.read_manifest(path)
        except flow.data.RecordError as exc:
            print("RecordError:", exc)
    elif what == "records":
        import flowjob as flow
        with open(path, "rb") as f:
            try:
                print(len(list(flow.summary.read_records(f))))
            except flow.summary.RecordCorruptError as exc:
                print("RecordCorruptError:", exc)
    else:
        import time, tracemalloc
        import numpy as np
        import flowjob as flow
        tracemalloc.start()
        start = time.monotonic()
        ckpt = flow.checkpoint.get(path)
        took = time.monotonic() - start
        peak = tracemalloc.get_traced_memory()[1]
        print(ckpt["big"].shape, ckpt["big"].dtype.name, ckpt["small"].numpy().tolist())
        print(f"peak={peak} took={took:.2f}")
""")


def _bounded(what: str, path) -> str:
    proc = subprocess.run(
        [sys.executable, "-c", _BOUNDED, what, str(path)],
        env=child_env(),
        capture_output=True,
        text=True,
        timeout=scaled(120),
        cwd=str(REPO),
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout.strip()


def _ofrecord_set(tmp_path):
    data = tmp_path / "data"
    flow.data.write_ofrecord(data, {"x": np.arange(6, dtype=np.float32).reshape(3, 2)})
    return data


def test_a_20_gib_sparse_ofrecord_manifest_is_refused_naming_file_and_size(tmp_path):
    data = _ofrecord_set(tmp_path)
    manifest = data / "_ofrecord_manifest.json"
    os.truncate(manifest, 20 * GIB)
    out = _bounded("manifest", data)
    assert out.startswith("RecordError: "), out
    assert f"{manifest} is {20 * GIB} bytes, more than the {64 << 20} bytes" in out, out
    proc = subprocess.run(
        [sys.executable, "-m", "flowjob", "ofrecord", "inspect", str(data)],
        env=child_env(),
        capture_output=True,
        text=True,
        timeout=scaled(120),
        cwd=str(REPO),
    )
    assert proc.returncode != 0, proc.stdout + proc.stderr
    assert f"{manifest} is {20 * GIB} bytes" in proc.stderr, proc.stderr
    assert "part-0" not in proc.stdout, proc.stdout  # stopped at the manifest


def _huge_length_record(length: int) -> bytes:
    header = struct.pack("<Q", length)
    return header + struct.pack("<I", masked_crc32c(header))  # a valid length CRC


def test_read_records_on_a_2_40_length_field_names_the_file_and_offset(tmp_path):
    path = tmp_path / "events.out.tfevents.1.host.1.0"
    good = frame_record(b"first") + frame_record(b"second")
    path.write_bytes(good + _huge_length_record(1 << 40) + b"\0" * 64)
    out = _bounded("records", path)
    assert out.startswith("RecordCorruptError: "), out
    assert f"{path}: record at offset {len(good)}: length field says {1 << 40} bytes" in out
    with open(path, "rb") as f:
        got = []
        with pytest.raises(flow.summary.RecordCorruptError) as err:
            for payload in flow.summary.read_records(f):
                got.append(payload)
    assert got == [b"first", b"second"] and err.value.offset == len(good)
    # not strict: stops before the damage, positioned there
    with open(path, "rb") as f:
        assert list(flow.summary.read_records(f, strict=False)) == [b"first", b"second"]
        assert f.tell() == len(good)


def test_read_records_treats_a_length_past_the_files_end_as_a_torn_tail():
    stream = io.BytesIO(frame_record(b"a") + _huge_length_record(1000) + b"x" * 10)
    assert list(flow.summary.read_records(stream)) == [b"a"]
    assert stream.tell() == len(frame_record(b"a"))


def _sparse_safetensors(path, big_bytes: int, small: np.ndarray) -> None:
    header = {
        "big": {"dtype": "F32", "shape": [big_bytes // 4], "data_offsets": [0, big_bytes]},
        "small": {
            "dtype": "F32",
            "shape": list(small.shape),
            "data_offsets": [big_bytes, big_bytes + small.nbytes],
        },
    }
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(len(text).to_bytes(8, "little") + text)
        f.seek(8 + len(text) + big_bytes)
        f.write(small.astype("<f4").tobytes())


def test_checkpoint_get_of_an_8_gib_safetensors_file_reads_tensors_on_demand(tmp_path):
    path = tmp_path / "model.safetensors"
    small = np.array([1.5, -2.0, 3.25], np.float32)
    _sparse_safetensors(path, 8 * GIB, small)
    first, stats = _bounded("get", path).splitlines()
    assert first == f"({2 * GIB},) float32 [1.5, -2.0, 3.25]", first
    peak = int(stats.split()[0].split("=")[1])
    assert peak < 16 << 20, stats  # the header and one small tensor, not 8 GiB


def test_a_safetensors_file_replaced_after_get_is_not_read_as_the_old_one(tmp_path):
    path = tmp_path / "w.safetensors"
    flow.checkpoint.save({"w": np.arange(4, dtype=np.float32)}, str(path), format="safetensors")
    ckpt = flow.checkpoint.get(str(path))
    np.testing.assert_array_equal(ckpt["w"].numpy(), np.arange(4, dtype=np.float32))
    os.unlink(path)
    flow.checkpoint.save({"w": np.ones(4, np.float32)}, str(path), format="safetensors")
    with pytest.raises(flow.checkpoint.CheckpointError, match="changed after"):
        ckpt["w"].numpy()
