"""Independent references for the example tests: checkpoint files read with NumPy and the
examples' models written directly in JAX/NumPy (not through flowjob)."""

from __future__ import annotations

import re
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

_DTYPES = {"kFloat": np.float32, "kDouble": np.float64, "kInt32": np.int32, "kInt64": np.int64}


def read_checkpoint(path: Path) -> dict[str, np.ndarray]:
    """OneFlow layout: ``<var>/out`` raw bytes, ``<var>/meta`` text proto, ``snapshot_done``."""
    assert (path / "snapshot_done").is_file()
    variables = {}
    for var in path.iterdir():
        if (var / "out").is_file():
            meta = (var / "meta").read_text()
            shape = tuple(int(d) for d in re.findall(r"dim: (\d+)", meta))
            dtype = _DTYPES[re.search(r"data_type: (\w+)", meta).group(1)]
            variables[var.name] = np.fromfile(var / "out", dtype=dtype).reshape(shape)
    return variables


def _conv_relu_pool(x, w, b):
    x = jax.lax.conv_general_dilated(
        x, w, (1, 1), "SAME", dimension_numbers=("NCHW", "OIHW", "NCHW")
    )
    x = jax.nn.relu(x + b[None, :, None, None])
    return jax.lax.reduce_window(x, -jnp.inf, jax.lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")


def _dense(v, name, x, relu):
    y = x @ v[f"{name}-weight"].T + v[f"{name}-bias"]
    return jax.nn.relu(y) if relu else y


def lenet_logits(v, images) -> np.ndarray:
    """examples/models.py lenet, eval mode (conv1, conv2, dense1, dense2)."""
    x = _conv_relu_pool(jnp.asarray(images), v["conv1-weight"], v["conv1-bias"])
    x = _conv_relu_pool(x, v["conv2-weight"], v["conv2-bias"])
    x = _dense(v, "dense1", x.reshape(x.shape[0], -1), True)
    return np.asarray(_dense(v, "dense2", x, False))


def lenet5_logits(v, images) -> np.ndarray:
    """examples/mnist_demo.py lenet5 (conv1, conv2, fc1, fc2, logits)."""
    x = _conv_relu_pool(jnp.asarray(images), v["conv1-weight"], v["conv1-bias"])
    x = _conv_relu_pool(x, v["conv2-weight"], v["conv2-bias"])
    x = _dense(v, "fc1", x.reshape(x.shape[0], -1), True)
    x = _dense(v, "fc2", x, True)
    return np.asarray(_dense(v, "logits", x, False))


def mlp_logits(v, images, names=("hidden", "output")) -> np.ndarray:
    x = np.asarray(images).reshape(len(images), -1)
    hidden = np.maximum(x @ v[f"{names[0]}-weight"].T + v[f"{names[0]}-bias"], 0)
    return hidden @ v[f"{names[1]}-weight"].T + v[f"{names[1]}-bias"]


def mnist_subset() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The bundled subset as flat arrays: train images (N,1,28,28) in [0,1], labels, test."""
    import flowjob

    (xtr, ytr), (xte, yte) = flowjob.data.load_mnist(100, 100)
    return (
        xtr.reshape(-1, 1, 28, 28),
        ytr.reshape(-1),
        xte.reshape(-1, 1, 28, 28),
        yte.reshape(-1),
    )
