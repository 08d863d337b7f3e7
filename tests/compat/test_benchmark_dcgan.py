"""OneFlow-Benchmark's ``Generative/dcgan.py``, unchanged, through ``python -m flowjob run``.

The program is read from a OneFlow-Benchmark clone named by ``FLOWJOB_BENCHMARK_SRC`` (fixture
``benchmark``, commit e64f95a); without one the test skips.

The program reads MNIST from ``./data/mnist`` as the four idx files of exactly 60000 + 10000
images; the test writes them from flowjob's bundled subset (tiled). One epoch is thousands
of steps, so the test stops the program after its fourth report (every 100 steps it prints
the losses and saves a 4x4 matplotlib figure of generated digits to ``gout/``). Checks:

* the losses leave chance (``ln 2`` per term): the discriminator trains, the generator too;
* the generated digits get closer to real ones from the first figure to the fourth: the
  mean distance of each generated digit to its nearest real digit, and the distance of the
  generated mean image to the real mean image, both fall. The figures are read back by
  cropping the panels at the positions matplotlib gives the same ``plt.subplot`` calls.
"""

from __future__ import annotations

import math
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from test_benchmark_programs import skip_if_other_part_missing

from tests.timeouts import scaled

REPO = Path(__file__).resolve().parents[2]
REPORT = re.compile(r"^1th epoch, (\d+)th batch, dloss:\s*(\S+), gloss:\s*(\S+)$")
REPORTS = 4


def real_digits() -> tuple[np.ndarray, np.ndarray]:
    import flowjob

    (images, labels), _ = flowjob.data.load_mnist(100, 100)
    return images.reshape(-1, 28, 28), labels.reshape(-1)


def write_idx(directory: Path) -> None:
    """``train-images-idx3-ubyte`` & co. with the counts dcgan.py's reshape expects."""
    images, labels = real_digits()
    raw = np.round(images * 255).astype(np.uint8)
    directory.mkdir(parents=True)
    for name, count in (("train", 60000), ("t10k", 10000)):
        with open(directory / f"{name}-images-idx3-ubyte", "wb") as f:
            f.write(np.array([2051, count, 28, 28], ">i4").tobytes())
            f.write(np.resize(raw, (count, 28, 28)).tobytes())
        with open(directory / f"{name}-labels-idx1-ubyte", "wb") as f:
            f.write(np.array([2049, count], ">i4").tobytes())
            f.write(np.resize(labels.astype(np.uint8), (count,)).tobytes())


def panel_boxes(width: int, height: int) -> list[tuple[float, float, float, float]]:
    """Pixel boxes (left, top, right, bottom) of the 16 panels of ``_save_images``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = plt.figure(figsize=(4, 4))
    for i in range(16):
        plt.subplot(4, 4, i + 1)
        plt.imshow(np.zeros((28, 28)), cmap="gray")
        plt.axis("off")
    fig.canvas.draw()  # applies the equal aspect to the axes boxes
    boxes = [
        (p.x0 * width, (1 - p.y1) * height, p.x1 * width, (1 - p.y0) * height)
        for p in (ax.get_position() for ax in fig.axes)
    ]  # figure fractions to pixels
    plt.close(fig)
    return boxes


def read_figure(path: Path) -> np.ndarray:
    """The 16 digits of a saved figure as (16, 28, 28) in [0, 1] (imshow's min-max scaling)."""
    from PIL import Image

    image = Image.open(path).convert("L")
    digits = []
    for left, top, right, bottom in panel_boxes(*image.size):
        crop = image.crop((round(left) + 1, round(top) + 1, round(right) - 1, round(bottom) - 1))
        digits.append(np.asarray(crop.resize((28, 28), Image.BOX), np.float64) / 255)
    return np.stack(digits)


def min_max(x: np.ndarray) -> np.ndarray:
    lo = x.min(axis=(1, 2), keepdims=True)
    return (x - lo) / np.maximum(x.max(axis=(1, 2), keepdims=True) - lo, 1e-12)


def distances(generated: np.ndarray, real: np.ndarray) -> tuple[float, float]:
    """(mean nearest-real-digit L2 distance, mean |generated mean image - real mean image|)."""
    g, r = generated.reshape(len(generated), -1), real.reshape(len(real), -1)
    squared = (g * g).sum(1)[:, None] - 2 * g @ r.T + (r * r).sum(1)[None, :]
    nearest = np.sqrt(np.maximum(squared.min(1), 0)).mean()
    return float(nearest), float(np.abs(g.mean(0) - r.mean(0)).mean())


def wait_for_png(path: Path, proc: subprocess.Popen, timeout: float = 120) -> None:
    from PIL import Image

    deadline = time.monotonic() + scaled(timeout)
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            with Image.open(path) as image:
                image.load()  # fails while matplotlib is still writing it
            return
        except (OSError, SyntaxError):
            time.sleep(0.5)
    raise AssertionError(f"{path} was not written")


@pytest.mark.slow
@pytest.mark.timeout(1500)
def test_dcgan_discriminator_and_generator_train_and_digits_improve(tmp_path, benchmark):
    write_idx(tmp_path / "data" / "mnist")
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "JAX_PLATFORMS": "cpu",
        "MPLBACKEND": "Agg",
        "PYTHONUNBUFFERED": "1",
    }
    cmd = [
        sys.executable,
        "-m",
        "flowjob",
        "run",
        str(benchmark / "Generative" / "dcgan.py"),
        "--epoch_num",
        "1",
        "--batch_size",
        "16",  # 16: the figure shows 16 samples
        "--learning_rate",
        "2e-4",
    ]
    reports, lines = [], []
    with subprocess.Popen(
        cmd, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    ) as proc:
        try:
            for line in proc.stdout:
                lines.append(line)
                found = REPORT.match(line.strip())
                if found:
                    reports.append(
                        (int(found.group(1)), float(found.group(2)), float(found.group(3)))
                    )
                    if len(reports) == REPORTS:
                        wait_for_png(tmp_path / "gout" / f"image_01_{100 * REPORTS:04d}.png", proc)
                        break
        finally:
            proc.kill()
    if len(reports) < REPORTS:
        skip_if_other_part_missing("".join(lines), "dcgan.py")
    assert len(reports) == REPORTS, "".join(lines[-40:])
    assert [r[0] for r in reports] == [100, 200, 300, 400]
    ln2 = math.log(2)
    for _, d_loss, g_loss in reports:  # chance: d_loss = 2 ln 2 (real + fake), g_loss = ln 2
        assert abs(d_loss - 2 * ln2) > 0.3 and abs(g_loss - ln2) > 0.3, reports

    real = min_max(real_digits()[0][:2000].astype(np.float64))
    first = distances(read_figure(tmp_path / "gout" / "image_01_0100.png"), real)
    last = distances(read_figure(tmp_path / "gout" / "image_01_0400.png"), real)
    noise = distances(np.random.default_rng(0).random((16, 28, 28)), real)
    assert first[0] < noise[0]  # the figures are read back as images, not noise
    assert last[0] < 0.9 * first[0] and last[1] < 0.75 * first[1], (first, last)
