"""``flow.data.load_mnist``: pre-batched MNIST arrays from ``mnist.npz`` or the bundled subset."""

from __future__ import annotations

import hashlib
import os
import zipfile

import numpy as np

from ._modes import Layout
from ._subset import subset_split

OFFICIAL_URL = "https://oneflow-public.oss-cn-beijing.aliyuncs.com/datasets/mnist.npz"
OFFICIAL_SHA256 = "63d4344077849053dc3036b247fa012b2b381de53fd055a66b539dffd76cf08e"
OFFICIAL_SIZES = (60000, 10000)
FILE_NAME = "mnist.npz"
_Split = tuple[np.ndarray, np.ndarray]


def load_mnist(
    train_batch_size: int = 100,
    test_batch_size: int = 100,
    data_format: str = "NCHW",
    url: str = OFFICIAL_URL,
    hash_check: str | None = OFFICIAL_SHA256,
    out_dir: str | os.PathLike = ".",
) -> tuple[_Split, _Split]:
    """MNIST as ``((train_images, train_labels), (test_images, test_labels))``.

    Images are float32 in [0, 1], shaped ``(N/bs, bs, 1, 28, 28)`` for ``"NCHW"`` or
    ``(N/bs, bs, 28, 28, 1)`` for ``"NHWC"``; labels are int32 ``(N/bs, bs)``.

    Reads ``<out_dir>/mnist.npz`` (keys x_train, y_train, x_test, y_test) when it exists.
    Nothing is downloaded (``url`` is accepted for compatibility only): without the file the
    bundled 5,000-image subset is used, split into 4,000 training and 1,000 test images.

    SHA-256 check: a ``hash_check`` other than the official one is always verified; the default
    (official) hash is verified only when the file holds 60,000/10,000 images, i.e. claims to be
    the official file, so smaller files of the same layout load as they are. ``hash_check=None``
    disables the check.
    """
    _check_batch_size("train_batch_size", train_batch_size)
    _check_batch_size("test_batch_size", test_batch_size)
    if hash_check is not None and not isinstance(hash_check, str):
        raise TypeError(
            f"load_mnist: hash_check must be a hex SHA-256 string or None, got {hash_check!r}"
        )
    layout = Layout.parse(data_format, "load_mnist: data_format")
    path = os.path.join(os.fspath(out_dir), FILE_NAME)
    if os.path.isfile(path):
        print(f"File {FILE_NAME} already exist, path: {path}")
        train, test = _read_standard(path)
        _verify(path, hash_check, len(train[0]), len(test[0]))
    else:
        train, test = subset_split()
        print(
            f"{FILE_NAME} not found in {os.fspath(out_dir)!r} (no download attempted): using the "
            f"bundled MNIST subset, {len(train[0])} training and {len(test[0])} test images"
        )
    return (
        _batch(*train, train_batch_size, layout, "train_batch_size", "training"),
        _batch(*test, test_batch_size, layout, "test_batch_size", "test"),
    )


def _check_batch_size(name: str, value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value <= 0:
        raise ValueError(f"load_mnist: {name} must be a positive int, got {value!r}")


def _read_standard(path: str) -> tuple[_Split, _Split]:
    keys = ("x_train", "y_train", "x_test", "y_test")
    unreadable = (OSError, EOFError, ValueError, zipfile.BadZipFile)
    try:
        data = np.load(path, allow_pickle=False)
    except unreadable as exc:
        raise ValueError(f"{path}: cannot read as a NumPy .npz file: {exc}") from exc
    if not isinstance(data, np.lib.npyio.NpzFile):  # a bare .npy under the .npz name
        raise ValueError(f"{path}: holds a single array, not an .npz archive with {keys}")
    try:
        with data:
            files = list(data.files)
            arrays = {key: data[key] for key in keys if key in files}
    except unreadable as exc:
        raise ValueError(f"{path}: cannot read as a NumPy .npz file: {exc}") from exc
    missing = [key for key in keys if key not in arrays]
    if missing:
        raise ValueError(f"{path}: missing arrays {missing} (has {files})")
    for split in ("train", "test"):
        x, y = arrays[f"x_{split}"], arrays[f"y_{split}"]
        if x.ndim != 3 or x.shape[1:] != (28, 28):
            raise ValueError(f"{path}: x_{split} must have shape (N, 28, 28), got {x.shape}")
        if y.shape != (x.shape[0],):
            raise ValueError(
                f"{path}: y_{split} must have shape ({x.shape[0]},) to match "
                f"x_{split}, got {y.shape}"
            )
        for key, arr, hi in ((f"x_{split}", x, 255), (f"y_{split}", y, 9)):
            if not np.issubdtype(arr.dtype, np.integer):
                raise ValueError(f"{path}: {key} must hold integers, got {arr.dtype}")
            if arr.size and (arr.min() < 0 or arr.max() > hi):
                raise ValueError(
                    f"{path}: {key} values must lie in [0, {hi}], got [{arr.min()}, {arr.max()}]"
                )
    return ((arrays["x_train"], arrays["y_train"]), (arrays["x_test"], arrays["y_test"]))


def _verify(path: str, hash_check: str | None, n_train: int, n_test: int) -> None:
    if not hash_check:
        return
    if hash_check.lower() == OFFICIAL_SHA256 and (n_train, n_test) != OFFICIAL_SIZES:
        print(
            f"{path} holds {n_train}/{n_test} images, not the official 60000/10000: "
            "skipping the official sha256 check"
        )
        return
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(1 << 20):
            digest.update(block)
    if digest.hexdigest() != hash_check.lower():
        raise ValueError(
            f"sha256 verification failed for {path}: expected {hash_check}, got "
            f"{digest.hexdigest()}; remove {path} and try again"
        )


def _batch(
    x: np.ndarray, y: np.ndarray, batch_size: int, layout: Layout, arg: str, which: str
) -> _Split:
    n = len(x)
    if n % batch_size:
        raise ValueError(
            f"load_mnist: {arg}={batch_size} does not divide the {n} {which} "
            f"images; use a batch size that divides {n}"
        )
    images = x.astype(np.float32) / np.float32(255.0)
    if layout is Layout.NCHW:
        images = images.reshape(n // batch_size, batch_size, 1, 28, 28)
    else:
        images = images.reshape(n // batch_size, batch_size, 28, 28, 1)
    return images, y.astype(np.int32).reshape(n // batch_size, batch_size)
