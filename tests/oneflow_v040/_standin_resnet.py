"""The stand-in for OneFlow's own losses in ``modules/test_resnet50_without_bn.py``.

The test trains ``resnet50(norm_layer=FakeBN)`` (identity norm layers) from
``/dataset/imagenette/resnet50_pretrained`` for ``STEPS`` SGD steps (lr 1e-3, momentum 0.9)
on batches of 32 of the OFRecords, and compares each step's loss with a literal list,
``gt_of_losses`` (OneFlow's losses on its private data), to 1e-5. With the stand-in data
(``_standin_dataset``) and weights (``_standin_checkpoint.resnet50_fixup``) the list is
replaced by losses from an independent reference: PyTorch (CPU) running the same network
(``torch_losses``, written from ``resnet50_model.py``'s architecture) on the same input
tensors (``_standin_dataset.pipeline``: OpenCV and NumPy, not flowjob), with OneFlow's
momentum update (``v = beta * v - lr * grad; w = w + v``) and the mean cross-entropy.
The reader reads the part in order and starts over at its end, so batch ``b`` holds records
``32 * b % 64`` onwards.

The 100-step run takes minutes, so its losses are kept in ``LOSSES_FILE`` with the SHA-256
of what they were computed from (the input tensors and labels, the checkpoint's files, the
PyTorch version). ``reference_losses`` returns them while the hash matches the stand-in and
otherwise recomputes them with PyTorch and rewrites the file (an error without PyTorch).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
from pathlib import Path

import numpy as np

from . import _standin_checkpoint as ckpt
from ._standin_dataset import pipeline, standin_records

LOSSES_FILE = Path(__file__).resolve().parent / "_standin_resnet50_losses.json"
STEPS = 100
BATCH = 32
LR = 1e-3
MOMENTUM = 0.9
_LITERAL = re.compile(r"(gt_of_losses = \[)[^\]]*(\])")


def reference_batches() -> tuple[list[np.ndarray], list[np.ndarray]]:
    """The distinct input batches (NCHW float32) and their labels, in the reader's order."""
    images, labels = standin_records()
    x = np.stack([pipeline(e)[2] for e in images]).transpose(0, 3, 1, 2)
    starts = range(0, len(images), BATCH)
    return [np.ascontiguousarray(x[s : s + BATCH]) for s in starts], [
        labels[s : s + BATCH] for s in starts
    ]


def inputs_sha256(
    batches: list[np.ndarray], labels: list[np.ndarray], checkpoint: str | os.PathLike, torch: str
) -> str:
    """The SHA-256 of what the reference losses are computed from."""
    sha = hashlib.sha256()
    for x, y in zip(batches, labels):
        sha.update(np.ascontiguousarray(x, "<f4").tobytes())
        sha.update(np.ascontiguousarray(y, "<i4").tobytes())
    ckpt.digest_checkpoint(checkpoint, sha)
    sha.update(f"torch {torch}".encode())
    return sha.hexdigest()


def torch_losses(
    params: dict[str, np.ndarray],
    batches: list[np.ndarray],
    labels: list[np.ndarray],
    steps: int = STEPS,
) -> list[float]:
    """Each step's loss (before its update) of ResNet-50 v1.5 without normalization, trained
    by PyTorch on CPU from ``params`` (a state dict of ``resnet50_fixup``'s keys)."""
    import torch

    trained = [f"{name}.weight" for name, _, _ in ckpt.resnet50_convs()] + ["fc.weight", "fc.bias"]
    w = {k: torch.tensor(params[k], requires_grad=True) for k in trained}
    momentum = {k: torch.zeros_like(v) for k, v in w.items()}
    inputs = [(torch.from_numpy(x), torch.from_numpy(y).long()) for x, y in zip(batches, labels)]
    losses = []
    for step in range(steps):
        x, y = inputs[step % len(inputs)]
        loss = torch.nn.functional.cross_entropy(_forward(w, x), y)
        loss.backward()
        with torch.no_grad():
            for k, v in w.items():
                momentum[k] = MOMENTUM * momentum[k] - LR * v.grad
                v += momentum[k]
                v.grad = None
        losses.append(float(loss.detach()))
    return losses


def _forward(w: dict, x):  # noqa: ANN001, ANN202 - torch tensors
    from torch.nn import functional as F

    x = F.max_pool2d(F.relu(F.conv2d(x, w["conv1.weight"], stride=2, padding=3)), 3, 2, 1)
    for stage, (_, blocks, stride) in enumerate(ckpt.STAGES, 1):
        for block in range(blocks):
            p, s = f"layer{stage}.{block}", stride if block == 0 else 1
            out = F.relu(F.conv2d(x, w[f"{p}.conv1.weight"]))
            out = F.relu(F.conv2d(out, w[f"{p}.conv2.weight"], stride=s, padding=1))
            out = F.conv2d(out, w[f"{p}.conv3.weight"])
            shortcut = w.get(f"{p}.downsample.0.weight")
            x = F.relu(out + (x if shortcut is None else F.conv2d(x, shortcut, stride=s)))
    x = F.avg_pool2d(x, 7).flatten(1)
    return F.linear(x, w["fc.weight"], w["fc.bias"])


def reference_losses(checkpoint: str | os.PathLike) -> list[float]:
    """The losses of ``STEPS`` steps from the checkpoint at ``checkpoint``, cached in
    ``LOSSES_FILE`` (see the module docstring)."""
    batches, labels = reference_batches()
    cached = json.loads(LOSSES_FILE.read_text("utf-8")) if LOSSES_FILE.exists() else {}
    if cached and inputs_sha256(batches, labels, checkpoint, cached["torch"]) == cached["sha256"]:
        return [float(v) for v in cached["losses"]]
    try:
        import torch
    except ImportError:
        raise RuntimeError(
            f"the reference losses in {LOSSES_FILE} were computed from other stand-in inputs "
            "(SHA-256 differs), and recomputing them needs PyTorch: pip install torch"
        ) from None
    print(f"computing the reference losses with PyTorch {torch.__version__}...", file=sys.stderr)
    losses = torch_losses(ckpt.read_checkpoint(checkpoint), batches, labels)
    record = {
        "what": "modules/test_resnet50_without_bn.py: each step's loss, PyTorch on the stand-in",
        "torch": torch.__version__,
        "sha256": inputs_sha256(batches, labels, checkpoint, torch.__version__),
        "losses": losses,
    }
    LOSSES_FILE.write_text(json.dumps(record, indent=1) + "\n", "utf-8")
    return losses


def with_losses(text: str, losses: list[float]) -> str:
    """The test file's ``text`` with its ``gt_of_losses`` literal replaced by ``losses``."""
    body = "".join(f"\n            {v!r}," for v in losses) + "\n        "
    new, count = _LITERAL.subn(lambda m: m.group(1) + body + m.group(2), text)
    if count != 1:
        raise ValueError(f"expected one `gt_of_losses = [...]` literal, found {count}")
    return new
