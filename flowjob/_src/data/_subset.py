"""The bundled 5,000-image MNIST subset (see NOTICE) and its fixed train/test split."""

from __future__ import annotations

import functools
import os

import numpy as np

SUBSET_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mnist_5k.npz")
SUBSET_SHA256 = "f814240cf7e0d3cbaacc1a898905819a40ab46fb317a600d2a4b91a5c184c810"
# Fixed so every run (and every machine) sees the same split. RandomState, unlike Generator,
# keeps its stream stable across NumPy versions (NEP 19).
SPLIT_SEED = 20200723
TEST_FRACTION = 5  # one image in five of each class goes to the test set


@functools.lru_cache(maxsize=1)
def _split() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    with np.load(SUBSET_PATH) as data:
        x, y = data["x"], data["y"]
    rng = np.random.RandomState(SPLIT_SEED)
    train_parts, test_parts = [], []
    # The file is sorted by class: split each class separately so both sets hold every digit
    # in the file's proportions, then shuffle so batches mix classes.
    for label in np.unique(y):
        idx = rng.permutation(np.flatnonzero(y == label))
        n_test = len(idx) // TEST_FRACTION
        test_parts.append(idx[:n_test])
        train_parts.append(idx[n_test:])
    train = rng.permutation(np.concatenate(train_parts))
    test = rng.permutation(np.concatenate(test_parts))
    parts = (x[train], y[train], x[test], y[test])
    for arr in parts:
        arr.setflags(write=False)  # cached: callers must not mutate it
    return parts


def subset_split() -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
    """``((x_train, y_train), (x_test, y_test))`` as uint8: 4,000 and 1,000 images."""
    x_train, y_train, x_test, y_test = _split()
    return (x_train, y_train), (x_test, y_test)
