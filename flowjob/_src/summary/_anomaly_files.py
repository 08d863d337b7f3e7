"""The anomaly record of one exception projection, ``anomaly.json``: format, writer, reader.

``Projector.exception_projector`` writes it beside the embedding's tensors, metadata and
sprite (``<logdir>/projector/exception/<tag>/<step>/anomaly.json``, listed through
``projector_config.pbtxt``); flowjob's TensorBoard plugin (``flowjob._src.board_plugin``) reads it
with :func:`read_run`. Both sides use only this module, so the format is defined once::

    {"format": "flowjob.anomaly/1", "tag": str, "step": int, "method": "robust_mad",
     "threshold": float, "num_samples": int, "num_nonfinite": int,
     "sprite": {"path": "sprite.png", "cell": int, "columns": int} or null,
     "flagged": [{"index": int, "score": float or null (+inf: a NaN/Inf row),
                  "label": str or null, "prediction": str or null}, ...]}

``flagged`` holds the flagged samples, highest score first; ``index`` is the sample's row in
the projected value (and its cell in the sprite, row-major, ``columns`` per row).
"""

from __future__ import annotations

import json
import math
import os
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .._files import FileCheckError, read_bounded
from ..errors import FlowJobError
from ._anomaly import OutlierScores
from ._projector_files import read_config

__all__ = [
    "ANOMALY_FILE",
    "FORMAT",
    "METHOD",
    "FlaggedSample",
    "AnomalyRecord",
    "AnomalyFormatError",
    "encode_record",
    "decode_record",
    "read_run",
]

ANOMALY_FILE = "anomaly.json"
FORMAT = "flowjob.anomaly/1"
METHOD = "robust_mad"
# A record lists flagged samples (~100 bytes each): 64 MiB is far more than any holds.
RECORD_LIMIT = 64 << 20


class AnomalyFormatError(FlowJobError, ValueError):
    """An ``anomaly.json`` that is not in :data:`FORMAT` (names the file)."""


@dataclass(frozen=True)
class FlaggedSample:
    index: int
    score: float  # +inf for a row holding NaN/Inf
    label: str | None
    prediction: str | None


@dataclass(frozen=True)
class AnomalyRecord:
    """One ``(tag, step)`` of the exception projector; ``directory`` holds its files."""

    tag: str
    step: int
    threshold: float
    num_samples: int
    num_nonfinite: int
    flagged: tuple[FlaggedSample, ...]
    directory: str
    sprite_path: str | None = None  # relative to ``directory``
    sprite_cell: int = 0
    sprite_columns: int = 0


def _text(value: object) -> str | None:
    return None if value is None else " ".join(str(value).split())


def encode_record(
    tag: str,
    step: int,
    result: OutlierScores,
    labels: Sequence[object] | None,
    predictions: Sequence[object] | None,
    sprite: tuple[str, int, int] | None,
) -> bytes:
    """The ``anomaly.json`` bytes of ``result``; ``sprite`` is ``(path, cell, columns)``."""
    flagged = []
    for i in result.outliers.tolist():
        score = float(result.scores[i])
        flagged.append(
            {
                "index": int(i),
                "score": score if math.isfinite(score) else None,
                "label": None if labels is None else _text(labels[i]),
                "prediction": None if predictions is None else _text(predictions[i]),
            }
        )
    doc = {
        "format": FORMAT,
        "tag": tag,
        "step": int(step),
        "method": METHOD,
        "threshold": result.threshold,
        "num_samples": int(result.scores.shape[0]),
        "num_nonfinite": result.num_nonfinite,
        "sprite": None
        if sprite is None
        else {"path": sprite[0], "cell": int(sprite[1]), "columns": int(sprite[2])},
        "flagged": flagged,
    }
    return json.dumps(doc, ensure_ascii=False, indent=1).encode("utf-8")


def decode_record(data: bytes, directory: str, where: str = ANOMALY_FILE) -> AnomalyRecord:
    """Parses ``anomaly.json`` bytes; raises :class:`AnomalyFormatError` naming ``where``."""
    try:
        doc = json.loads(data.decode("utf-8"))
        if doc.get("format") != FORMAT:
            raise AnomalyFormatError(
                f"{where}: format is {doc.get('format')!r}, expected {FORMAT!r}"
            )
        flagged = tuple(
            FlaggedSample(
                int(s["index"]),
                math.inf if s["score"] is None else float(s["score"]),
                s.get("label"),
                s.get("prediction"),
            )
            for s in doc["flagged"]
        )
        sprite = doc.get("sprite") or {}
        return AnomalyRecord(
            tag=str(doc["tag"]),
            step=int(doc["step"]),
            threshold=float(doc["threshold"]),
            num_samples=int(doc["num_samples"]),
            num_nonfinite=int(doc["num_nonfinite"]),
            flagged=flagged,
            directory=directory,
            sprite_path=sprite.get("path"),
            sprite_cell=int(sprite.get("cell", 0)),
            sprite_columns=int(sprite.get("columns", 0)),
        )
    except AnomalyFormatError:
        raise
    except (UnicodeDecodeError, ValueError, KeyError, TypeError, AttributeError) as e:
        raise AnomalyFormatError(f"{where}: not a {FORMAT} record: {e!r}") from e


def read_run(
    run_dir: str, skipped: Callable[[str, str], None] | None = None
) -> list[AnomalyRecord]:
    """The anomaly records of the run ``run_dir`` (found through its projector config),
    by tag then step. Unreadable records are skipped: TensorBoard may read while a writer
    replaces files (they are written atomically, so this is rare). A record that is not a
    regular file of a sane size is skipped too, and named: ``skipped(path, message)`` when
    given (the board names each file once), else a warning."""
    records = []
    root = os.path.realpath(run_dir)
    for info in read_config(run_dir):
        directory = os.path.realpath(
            os.path.join(root, *os.path.dirname(info.tensor_path).split("/"))
        )
        if not directory.startswith(root + os.sep):
            continue  # only files below the run (as TensorBoard's projector requires)
        path = os.path.join(directory, ANOMALY_FILE)
        if not os.path.lexists(path):
            continue
        try:
            # bounded and opened without blocking: a FIFO or a 3 GiB file is named, not read
            data = read_bounded(path, RECORD_LIMIT, what="anomaly record")
            records.append(decode_record(data, directory, path))
        except FileCheckError as e:
            if skipped is None:
                warnings.warn(f"skipping {e}", stacklevel=2)
            else:
                skipped(path, f"skipping {e}")
        except (OSError, AnomalyFormatError):
            continue
    return sorted(records, key=lambda r: (r.tag, r.step))
