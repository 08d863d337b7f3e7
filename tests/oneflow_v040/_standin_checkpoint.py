"""OneFlow's checkpoint layout, written and read with NumPy alone, and the stand-in weights of
the ResNet-50 without normalization that ``modules/test_resnet50_without_bn.py`` loads.

The layout (OneFlow v0.4.0's ``flow.save``): one folder per variable holding ``out`` (the
values' bytes, C order, little-endian) and ``meta`` (the protobuf text of
``VariableMetaInfo``: ``shape { dim: ... }`` and ``data_type``), and an empty
``snapshot_done`` written last. It is written here without flowjob, so that the test's own
``flow.load`` reads a checkpoint flowjob did not make.

The weights (``resnet50_fixup``) keep a ResNet-50 whose norm layers are identities
well-conditioned, after Fixup (Zhang et al., 2019): He-normal convolutions, the last
convolution of each residual branch scaled down (``BRANCH_SCALE``), shortcut projections
that keep their input's scale, a scaled-down stem (``STEM_SCALE``) and a small classifier,
so that the logits start small and the loss falls steadily, each step by more than the
test's tolerance. Each norm layer (``FakeBN``: a
weight, a bias and running statistics it never uses) holds 1, 0, 0 and 1.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

import numpy as np

# (planes, blocks, stride) of ResNet-50's four stages (resnet50_model.resnet50)
STAGES = ((64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2))
EXPANSION = 4
NUM_CLASSES = 1000
BRANCH_SCALE = 0.2  # the last convolution of each residual branch, relative to He
# The body has no bias, so its features scale with the stem: 0.3 makes them small enough that
# the loss falls from log(1000) to about 2.5 over the test's 100 steps, not to 0 in 20.
STEM_SCALE = 0.3
FC_STD = 0.01
NORM_FIELDS = ("weight", "bias", "running_mean", "running_var")
_DATA_TYPES = {np.dtype(np.float32): "kFloat", np.dtype(np.float64): "kDouble"}
_META = re.compile(r"shape\s*\{((?:\s*dim:\s*\d+)*)\s*\}\s*data_type:\s*(\w+)\s*")


def resnet50_convs() -> list[tuple[str, tuple[int, int, int, int], str]]:
    """Every convolution of ResNet-50 v1.5 (stride on the 3 x 3): (name, weight shape, role),
    role "stem", "in" (first two of a branch), "last" (its last) or "shortcut"; the
    norm layer after a convolution named ``P.convK`` is ``P.bnK`` (``P.downsample.1`` after
    ``P.downsample.0``; ``bn1`` after ``conv1``)."""
    convs = [("conv1", (64, 3, 7, 7), "stem")]
    inplanes = 64
    for stage, (planes, blocks, stride) in enumerate(STAGES, 1):
        for block in range(blocks):
            p = f"layer{stage}.{block}"
            convs += [
                (f"{p}.conv1", (planes, inplanes, 1, 1), "in"),
                (f"{p}.conv2", (planes, planes, 3, 3), "in"),
                (f"{p}.conv3", (planes * EXPANSION, planes, 1, 1), "last"),
            ]
            if block == 0 and (stride != 1 or inplanes != planes * EXPANSION):
                shape = (planes * EXPANSION, inplanes, 1, 1)
                convs.append((f"{p}.downsample.0", shape, "shortcut"))
            inplanes = planes * EXPANSION
    return convs


def norm_name(conv: str) -> str:
    """The norm layer that follows the convolution ``conv`` (its output channels)."""
    if conv.endswith("downsample.0"):
        return conv[: -len("0")] + "1"
    head, _, k = conv.rpartition("conv")
    return f"{head}bn{k}"


def resnet50_fixup(seed: int = 0) -> dict[str, np.ndarray]:
    """The stand-in state dict of ``resnet50(norm_layer=FakeBN)`` (float32, its keys), drawn
    from ``seed``: see the module docstring."""
    rng = np.random.default_rng(seed)
    out: dict[str, np.ndarray] = {}
    for name, shape, role in resnet50_convs():
        fan_in = int(np.prod(shape[1:]))
        # He for convolutions followed by ReLU; a projection keeps the variance of its input
        gain = {
            "stem": 2.0 * STEM_SCALE**2,
            "in": 2.0,
            "last": 2.0 * BRANCH_SCALE**2,
            "shortcut": 1.0,
        }[role]
        out[f"{name}.weight"] = (rng.standard_normal(shape) * np.sqrt(gain / fan_in)).astype(
            np.float32
        )
        channels = shape[0]
        for field, value in zip(NORM_FIELDS, (1.0, 0.0, 0.0, 1.0)):
            out[f"{norm_name(name)}.{field}"] = np.full(channels, value, np.float32)
    features = STAGES[-1][0] * EXPANSION
    out["fc.weight"] = (rng.standard_normal((NUM_CLASSES, features)) * FC_STD).astype(np.float32)
    out["fc.bias"] = np.zeros(NUM_CLASSES, np.float32)
    return out


def write_checkpoint(path: str | os.PathLike, values: dict[str, np.ndarray]) -> Path:
    """Writes ``values`` (name -> float32/float64 array) at ``path`` (a new folder) in
    OneFlow's layout; returns ``path``."""
    path = Path(path)
    path.mkdir(parents=True)
    for name, value in values.items():
        value = np.asarray(value)
        if value.dtype not in _DATA_TYPES:
            raise TypeError(f"write_checkpoint: {name} has dtype {value.dtype}, not float32/64")
        (path / name).mkdir()
        (path / name / "out").write_bytes(value.astype(value.dtype.newbyteorder("<")).tobytes())
        dims = "".join(f"  dim: {d}\n" for d in value.shape)
        meta = f"shape {{\n{dims}}}\ndata_type: {_DATA_TYPES[value.dtype]}\n"
        (path / name / "meta").write_text(meta, encoding="utf-8")
    (path / "snapshot_done").write_bytes(b"")
    return path


def read_checkpoint(path: str | os.PathLike) -> dict[str, np.ndarray]:
    """The variables of a checkpoint folder in OneFlow's layout (``write_checkpoint``'s)."""
    by_name = {v: k for k, v in _DATA_TYPES.items()}
    out = {}
    for var in sorted(p for p in Path(path).iterdir() if p.is_dir()):
        meta = (var / "meta").read_text(encoding="utf-8")
        found = _META.fullmatch(meta)
        if found is None or found.group(2) not in by_name:
            raise ValueError(f"{var / 'meta'}: not a float VariableMetaInfo: {meta!r}")
        shape = tuple(int(d) for d in re.findall(r"\d+", found.group(1)))
        dtype = by_name[found.group(2)].newbyteorder("<")
        out[var.name] = np.frombuffer((var / "out").read_bytes(), dtype).reshape(shape)
    return out


def digest_checkpoint(path: str | os.PathLike, sha: hashlib._Hash) -> None:
    """Feeds every file of the checkpoint at ``path`` (names and bytes, sorted) to ``sha``."""
    root = Path(path)
    for file in sorted(p for p in root.rglob("*") if p.is_file()):
        sha.update(file.relative_to(root).as_posix().encode() + b"\0")
        sha.update(file.read_bytes())
