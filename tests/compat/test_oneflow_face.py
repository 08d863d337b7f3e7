"""OneFlow's InsightFace trainer (``Oneflow-Inc/oneflow_face``, ``insightface_train.py``),
unchanged, through ``python -m flowjob run`` on the CPU: the face model of issue 35,
MobileFaceNet (network ``y1``) with the ArcFace head over MS1M's 85,744 identities, trained
on the program's synthetic data at its own batch size (64), then saved.

The program is read from a clone named by ``FLOWJOB_ONEFLOW_FACE_SRC`` (without one the test
skips); it imports ``easydict``, which the ``test`` extra installs.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import numpy as np
import pytest

from tests.upstream import ONEFLOW_FACE, UpstreamError, extract

CLASSES, EMBEDDING, ITERS = 85744, 128, 3
LOSS = re.compile(r"^train: iter (\d+), loss (-?\d+\.\d+(?:e[-+]?\d+)?|nan|inf)")


@pytest.fixture(scope="module")
def face() -> Path:
    if ONEFLOW_FACE.clone() is None:
        pytest.skip(ONEFLOW_FACE.missing_line())
    if importlib.util.find_spec("easydict") is None:
        pytest.skip("oneflow_face's programs import easydict: pip install -e '.[test]'")
    try:
        return extract(ONEFLOW_FACE)
    except UpstreamError as exc:
        pytest.fail(str(exc))


@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_mobilefacenet_arcface_trains_on_synthetic_data_and_saves(face, flowjob_run, tmp_path):
    args = {
        "dataset": "emore",
        "network": "y1",
        "loss": "arcface",
        "use_synthetic_data": "True",
        "device_num_per_node": "1",
        "train_unit": "batch",
        "train_iter": str(ITERS),
        "models_root": str(tmp_path / "models"),
        "loss_print_frequency": "1",
        "do_validation_while_train": "False",
        "iter_num_in_snapshot": "1000",
    }
    done = flowjob_run(
        face / "insightface_train.py",
        *[item for k, v in args.items() for item in (f"--{k}", v)],
        timeout=1100,
    )
    assert done.returncode == 0, f"{done.stdout[-3000:]}\n{done.stderr[-6000:]}"
    losses = [float(m.group(2)) for m in map(LOSS.match, done.stdout.splitlines()) if m]
    assert len(losses) == ITERS and np.all(np.isfinite(losses)), losses
    # ArcFace at initialization: 64 x cos over 85,744 nearly orthogonal classes (cos ~ N(0,
    # 1/128)) has a log-sum-exp near 27-28, and the own class's margin makes its logit
    # 64 x cos(pi/2 + 0.5) = -30.7: about 58. Without the margin it would be about 27.
    assert 45 < losses[0] < 65, losses
    assert losses[-1] < losses[0], losses
    saved = tmp_path / "models" / "y1-arcface-emore" / "snapshot_last"
    weight = np.fromfile(saved / "fc7-weight" / "out", np.float32)
    assert weight.size == CLASSES * EMBEDDING and np.all(np.isfinite(weight))
    steps = np.fromfile(saved / "System-Train-TrainStep-get_symbol_train_job" / "out", np.int64)
    assert steps.tolist() == [ITERS]
