"""Runs one documentation program: a fresh copy of its folder, the data it reads, the programs
it needs first (their checkpoints), then the program itself through ``flowjob run``."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np

from tests.timeouts import scaled

from .programs import Data, Program

REPO = Path(__file__).resolve().parents[2]
# Small enough for the programs' fixed epoch counts (20 epochs of 2 batches of 100). The test
# split has 40 batches: async_batch_job.py prints its accuracy right after launching its
# evaluation calls, without waiting for their callbacks (as on OneFlow, whose callbacks also
# arrive on another thread), so it needs some calls to have completed by then.
MNIST_TRAIN, MNIST_TEST = 200, 4000


@dataclasses.dataclass
class Result:
    returncode: int
    stdout: str
    stderr: str


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env.setdefault("JAX_PLATFORMS", "cpu")
    return env


def _write_images(
    folder: Path, count: int, size: tuple[int, int], mode: str, ext: str
) -> list[str]:
    from PIL import Image

    rng = np.random.default_rng(0)
    folder.mkdir(parents=True, exist_ok=True)
    names = []
    for i in range(count):
        shape = (size[1], size[0]) if mode == "L" else (size[1], size[0], 3)
        name = f"img_{i}{ext}"
        Image.fromarray(rng.integers(0, 256, shape, dtype=np.uint8)).save(folder / name)
        names.append(name)
    return names


def _write_mnist(work: Path) -> None:
    """``mnist.npz`` (which ``flow.data.load_mnist`` reads first) from flowjob's bundled
    subset: its first training images as both splits (the subset has 1,000 test images)."""
    import flowjob

    # out_dir: a folder without mnist.npz, so that the bundled subset is read.
    (x, y), _ = flowjob.data.load_mnist(100, 100, out_dir=work / "_none")
    x = np.round(x.reshape(-1, 28, 28) * 255).astype(np.uint8)
    y = y.reshape(-1).astype(np.uint8)
    np.savez(
        work / "mnist.npz",
        x_train=x[:MNIST_TRAIN],
        y_train=y[:MNIST_TRAIN],
        x_test=x[:MNIST_TEST],
        y_test=y[:MNIST_TEST],
    )


def prepare(data: Data, work: Path) -> None:
    """Writes what the program reads besides the documentation's files."""
    if data is Data.MNIST:
        _write_mnist(work)
    elif data is Data.IMAGENET_OFRECORD:
        from flowjob.data import write_image_folder

        images = work / "_images"
        for label in ("a", "b"):
            _write_images(images / label, 4, (40, 30), "RGB", ".jpg")
        write_image_folder(
            images, work / "path/to/ImageNet/ofrecord", part_num=1, part_name_suffix_length=5
        )
    elif data is Data.IMAGE_FOLDER:
        names = _write_images(work / "images/train_set", 30, (28, 28), "L", ".png")
        labels = work / "images/train_label"
        labels.mkdir(parents=True)
        lines = [json.dumps({name: i % 10}) for i, name in enumerate(names)]
        (labels / "label.txt").write_text("\n".join(lines) + "\n")


def run_once(program: Program, work: Path, timeout: float) -> Result:
    """Runs the copy in ``work`` (a program that finds files beside itself finds the copy's)."""
    script = work / Path(program.path).name
    cmd = [sys.executable, "-m", "flowjob", "run", str(script), *program.args]
    if not program.stop_after:
        done = subprocess.run(
            cmd, cwd=work, env=_env(), capture_output=True, text=True, timeout=scaled(timeout)
        )
        return Result(done.returncode, done.stdout, done.stderr)
    # An endless loop: read lines until enough, then stop it (exit status 0 stands for "ran").
    proc = subprocess.Popen(
        cmd, cwd=work, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    lines = []
    try:
        for line in proc.stdout:
            lines.append(line)
            if len(lines) >= program.stop_after:
                break
    finally:
        proc.kill()
        _, err = proc.communicate(timeout=scaled(timeout))
    ran = len(lines) >= program.stop_after
    return Result(0 if ran else proc.returncode or 1, "".join(lines), err)


def run_program(
    program: Program, programs: dict[str, Program], code: Path, tmp: Path, timeout: float
) -> Result:
    """``code``: the ``docs/code`` folder of the program's language; ``programs``: by id."""
    folder = Path(program.path).parent
    work = tmp / folder
    shutil.copytree(code / folder, work)
    prepare(program.data, work)
    for need in program.needs:
        earlier = programs[f"{program.lang}/{need}"]
        if earlier.data is not program.data:
            prepare(earlier.data, work)
        done = run_once(earlier, work, timeout)
        if done.returncode != 0:
            return Result(done.returncode, done.stdout, f"(needed program {need})\n{done.stderr}")
    return run_once(program, work, timeout)
