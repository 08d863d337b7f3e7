"""Megatron index/data files are checked: negative sizes and pointers, float tokens that are
not whole numbers, and a ``.bin`` cut short while a job reads it (an error, never SIGBUS)."""

from __future__ import annotations

import os
import struct
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from test_tensor_buffers import _write_megatron

import flowjob as flow
import flowjob.typing as tp

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


def _loader_job(prefix, seq_length=2, num_samples=1, batch_size=1):
    @flow.global_function(type="predict")
    def job() -> tp.Numpy:
        return flow.data.megatron_gpt_mmap_data_loader(
            prefix, seq_length, num_samples, batch_size, shuffle=False
        )

    return job


def _patch_index(prefix, field, index, value):
    """Overwrites sizes[index] (int32) or pointers[index] (int64) in the ``.idx`` file."""
    raw = bytearray(open(prefix + ".idx", "rb").read())
    n = struct.unpack_from("<Q", raw, 18)[0]
    head = 9 + 8 + 1 + 8 + 8
    if field == "size":
        struct.pack_into("<i", raw, head + 4 * index, value)
    else:
        struct.pack_into("<q", raw, head + 4 * n + 8 * index, value)
    open(prefix + ".idx", "wb").write(bytes(raw))


@pytest.mark.parametrize("field", ["size", "pointer"])
def test_negative_sizes_and_pointers_are_refused(tmp_path, field):
    prefix = str(tmp_path / "neg")
    _write_megatron(prefix, [[1, 2, 3, 4], [5, 6, 7, 8]])
    _patch_index(prefix, field, 1, -2)
    with pytest.raises(flow.errors.OpError, match=rf"neg\.idx: sequence 1 has {field} -2"):
        _loader_job(prefix)()


def test_float_tokens_that_are_whole_numbers_read_as_integers(tmp_path):
    prefix = str(tmp_path / "f")
    _write_megatron(prefix, [[1.0, 2.0, 3.0, 4.0]], np.float32, 6)
    np.testing.assert_array_equal(_loader_job(prefix, 3)(), [[1, 2, 3, 4]])


@pytest.mark.parametrize("bad", [np.nan, np.inf, 2.5])
def test_float_tokens_that_are_not_whole_numbers_are_refused(tmp_path, bad):
    prefix = str(tmp_path / "f")
    _write_megatron(prefix, [[1.0, bad, 3.0, 4.0]], np.float64, 7)
    with pytest.raises(flow.data.DecodeError, match=r"f\.bin: sequence 0 token 1 is .*not a whole"):
        _loader_job(prefix, 3)()


_TRUNCATED_WHILE_READING = textwrap.dedent("""
    import os, sys
    sys.path.insert(0, sys.argv[2])
    import numpy as np
    import flowjob as flow
    import flowjob.typing as tp
    from test_tensor_buffers import _write_megatron

    prefix = sys.argv[1]
    _write_megatron(prefix, [list(range(i * 4096, (i + 1) * 4096)) for i in range(8)], np.int64, 5)

    @flow.global_function(type="predict")
    def job() -> tp.Numpy:
        return flow.data.megatron_gpt_mmap_data_loader(prefix, 4095, 8, 1, shuffle=False)

    job()
    os.truncate(prefix + ".bin", 4096 * 8)  # the writer of the corpus starts over
    try:
        for _ in range(7):  # the pipeline may have read a batch or two ahead
            job()
    except flow.data.DecodeError as exc:
        print("ERROR", exc)
""")


def test_bin_truncated_while_a_job_reads_it_is_an_error_not_sigbus(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-c", _TRUNCATED_WHILE_READING, str(tmp_path / "c"), HERE],
        env=dict(os.environ, JAX_PLATFORMS="cpu", PYTHONPATH=REPO),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, (proc.returncode, proc.stderr[-2000:])  # -7: SIGBUS
    assert (
        "ERROR" in proc.stdout
        and "c.bin: sequence " in proc.stdout
        and " needs bytes" in proc.stdout
    ), proc.stdout
    assert "cut short while being read" in proc.stdout
