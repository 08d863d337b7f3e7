"""``flow.summary.Projector``: OneFlow's embedding/exception projector API, written in
TensorBoard's projector format (``projector_config.pbtxt`` + tensors, metadata and sprite)."""

from __future__ import annotations

import numbers
import os
import threading
import warnings
from typing import Any

import numpy as np
from tensorboard.plugins.projector.projector_config_pb2 import EmbeddingInfo

from . import _anomaly_files as anomaly_files
from . import _projector_files as files
from ._anomaly import DEFAULT_THRESHOLD, OutlierScores, format_score, robust_outlier_scores
from ._anomaly_summaries import write_anomaly_summaries
from ._live_writers import acquire_writer, release_writer
from ._projector_files import ProjectorKind, SampleType
from ._projector_images import MAX_SPRITE_PX, encode_png, make_sprite, to_uint8_images

__all__ = ["Projector"]


class Projector:
    """Writes embeddings (and anomaly reports) for TensorBoard's Projector tab.

    ``Projector(logdir)``, then ``create_embedding_projector()`` /
    ``create_exception_projector()``, then any number of ``embedding_projector(...)`` /
    ``exception_projector(...)`` calls. Each call writes one embedding per ``(tag, step)``
    (a later call with the same pair replaces it) into ``<logdir>/projector_config.pbtxt``
    with its files under ``<logdir>/projector/``.

    The anomaly summaries of ``exception_projector`` go to the open summary writer of
    ``logdir`` (one is opened if there is none), so the run shows once in TensorBoard with
    one live event file. flowjob extensions: ``writer`` (a ``SummaryWriter`` to log them with
    instead) and ``outlier_threshold``, the robust z-score above which a sample is flagged
    (see ``flowjob._src.summary._anomaly``).
    """

    def __init__(
        self,
        logdir: str | os.PathLike[str] | None = None,
        *,
        writer: Any = None,
        outlier_threshold: float = DEFAULT_THRESHOLD,
    ):
        if logdir is None:
            raise ValueError(
                "Projector(logdir): logdir should not be None! "
                "Pass the summary log directory, e.g. Projector('./log')"
            )
        if not isinstance(logdir, (str, os.PathLike)):
            raise TypeError(
                f"Projector(logdir): logdir must be a str or path, "
                f"got {type(logdir).__name__}: {logdir!r}"
            )
        if not isinstance(outlier_threshold, numbers.Real) or not np.isfinite(outlier_threshold):
            raise ValueError(
                f"Projector(outlier_threshold=...): must be a finite number, "
                f"got {outlier_threshold!r}"
            )
        self.logdir = os.fspath(logdir)
        self.outlier_threshold = float(outlier_threshold)
        self._assets = os.path.join(self.logdir, files.ASSET_DIR)
        os.makedirs(self._assets, exist_ok=True)
        self._created: set[str] = set()
        self._user_writer = writer
        self._writer: Any = None
        self._writer_lock = threading.Lock()

    # -- OneFlow API ------------------------------------------------------------------------
    def create_embedding_projector(self) -> None:
        """Enables ``embedding_projector``; a second call on the same object raises OSError."""
        self._create(ProjectorKind.EMBEDDING)

    def create_exception_projector(self) -> None:
        """Enables ``exception_projector``; a second call on the same object raises OSError."""
        self._create(ProjectorKind.EXCEPTION)

    def embedding_projector(
        self,
        value=None,
        label=None,
        tag=None,
        step=None,
        sample_name=None,
        sample_type=None,
        x=None,
    ) -> None:
        """Writes ``value`` (reshaped to ``N x d``) as the embedding ``<tag>:<step>``.

        ``label`` (N values) becomes a metadata column; with ``sample_name`` and
        ``sample_type="image"``, the N images in ``x`` become the sprite.
        """
        self._require(ProjectorKind.EMBEDDING)
        self._write(
            ProjectorKind.EMBEDDING, value, label, None, tag, step, sample_name, sample_type, x
        )

    def exception_projector(
        self,
        value=None,
        tag=None,
        step=None,
        sample_name=None,
        sample_type=None,
        x=None,
        *,
        label=None,
        prediction=None,
    ) -> OutlierScores:
        """Scores every sample of ``value`` for outliers, writes the embedding with
        ``anomaly_score``/``is_outlier`` metadata columns, and logs ``~anomaly/<tag>/report``
        (text table), ``~anomaly/<tag>/outliers``, ``/nonfinite`` and ``/max_score`` (scalars)
        and, for image samples, ``~anomaly/<tag>/samples`` (grid of the flagged images).

        It also writes ``anomaly.json`` (the flagged samples with score, threshold, label and
        prediction; format in ``_anomaly_files.py``), which flowjob's TensorBoard plugin shows
        as the Anomalies tab. ``label`` and ``prediction`` (N values each: the true class and
        the model's answer) are flowjob extensions; OneFlow's exception projector has neither.
        Returns the scores.
        """
        self._require(ProjectorKind.EXCEPTION)
        return self._write(
            ProjectorKind.EXCEPTION,
            value,
            label,
            prediction,
            tag,
            step,
            sample_name,
            sample_type,
            x,
        )

    # -- extensions -------------------------------------------------------------------------
    def flush(self) -> None:
        """Flushes the event file holding the anomaly summaries (projector files are written
        synchronously)."""
        with self._writer_lock:
            if self._writer is not None:
                self._writer.flush()

    def close(self) -> None:
        """Releases the anomaly summary writer (a ``writer=`` given by the caller stays open)."""
        with self._writer_lock:
            if self._writer is not None and self._writer is not self._user_writer:
                release_writer(self._writer)
            self._writer = None

    def __enter__(self) -> Projector:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- internals --------------------------------------------------------------------------
    def _create(self, kind: ProjectorKind) -> None:
        if kind in self._created and os.path.isdir(self._assets):
            # OneFlow's message, the same for both kinds, plus which call was repeated.
            raise OSError(
                "You must create only one embedding projector! "
                f"(create_{kind}_projector() was already called on this Projector)"
            )
        os.makedirs(self._assets, exist_ok=True)
        self._created.add(kind)

    def _require(self, kind: ProjectorKind) -> None:
        if kind not in self._created:
            # OneFlow fails here with a TypeError from open(None); keep the type, say why.
            raise TypeError(
                f"Projector.{kind}_projector() called before "
                f"create_{kind}_projector(); call "
                f"projector.create_{kind}_projector() first"
            )

    def _write(self, kind, value, label, prediction, tag, step, sample_name, sample_type, x):
        where = f"{kind.call}()"
        tag = _check_tag(tag if tag is not None else kind.call, where)
        step = _check_step(step, where)
        rows = _rows(value, where)
        n = rows.shape[0]
        bad = int((~np.isfinite(rows).all(axis=1)).sum())
        if bad:
            warnings.warn(
                f"{where}: {bad} of {n} rows of value hold NaN or Inf; TensorBoard's "
                "projector cannot place them",
                stacklevel=3,
            )
        labels = _labels(label, n, where)
        predictions = _labels(prediction, n, where, "prediction")
        sample = _sample(sample_name, sample_type, x, n, where)

        rel = files.asset_dir(kind, tag, step)
        directory = os.path.join(self.logdir, *rel.split("/"))
        os.makedirs(directory, exist_ok=True)
        info = EmbeddingInfo(tensor_name=f"{tag}:{step:05d}")
        info.tensor_shape.extend(rows.shape)

        tensor_name, tensor_bytes = files.tensor_file(rows)
        files.atomic_write(os.path.join(directory, tensor_name), tensor_bytes)
        info.tensor_path = f"{rel}/{tensor_name}"

        columns: dict[str, list[object]] = {"index": list(range(n))}
        if labels is not None:
            columns["label"] = labels
        if predictions is not None:
            columns["prediction"] = predictions
        if sample is not None and sample[0] is SampleType.TEXT:
            columns[sample_name if sample_name not in columns else f"{sample_name}_sample"] = (
                sample[1]
            )
        result = None
        if kind is ProjectorKind.EXCEPTION:
            result = robust_outlier_scores(rows, self.outlier_threshold)
            columns.update(_anomaly_columns(result))
        files.atomic_write(os.path.join(directory, "metadata.tsv"), files.metadata_tsv(columns))
        info.metadata_path = f"{rel}/metadata.tsv"

        images = sample[1] if sample is not None and sample[0] is SampleType.IMAGE else None
        sprite_file = None
        if images is not None:
            sprite = make_sprite(images)
            if sprite is None:
                warnings.warn(
                    f"{where}: {n} samples do not fit a {MAX_SPRITE_PX} px sprite "
                    "even as 1-pixel thumbnails; no sprite written",
                    stacklevel=3,
                )
            else:
                files.atomic_write(os.path.join(directory, "sprite.png"), encode_png(sprite[0]))
                info.sprite.image_path = f"{rel}/sprite.png"
                info.sprite.single_image_dim.extend([sprite[1], sprite[1]])
                sprite_file = ("sprite.png", sprite[1], sprite[0].shape[1] // sprite[1])
        if result is not None:
            files.atomic_write(
                os.path.join(directory, anomaly_files.ANOMALY_FILE),
                anomaly_files.encode_record(tag, step, result, labels, predictions, sprite_file),
            )

        files.config_index(self.logdir).upsert(info)
        if result is not None:
            with self._writer_lock:
                write_anomaly_summaries(
                    self._summary_writer(), tag, step, result, labels, images, predictions
                )
        return result

    def _summary_writer(self):
        if (
            self._writer is not None
            and self._writer.closed
            and self._writer is not self._user_writer
        ):
            release_writer(self._writer)  # a borrowed writer its owner closed
            self._writer = None
        if self._writer is None:
            self._writer = self._user_writer or acquire_writer(self.logdir)
        return self._writer


def _anomaly_columns(result: OutlierScores) -> dict[str, list[object]]:
    """Metadata columns. The projector treats a column as numeric (gradient colouring) only
    if every cell parses as a finite-friendly number, so the ``+inf`` score of a NaN/Inf row
    is written as the highest finite score (at least the threshold) and marked in a
    ``nonfinite`` column."""
    scores = result.scores
    finite = np.isfinite(scores)
    ceiling = max([result.threshold, *scores[finite].tolist()])
    columns: dict[str, list[object]] = {
        "anomaly_score": [format_score(s if ok else ceiling) for s, ok in zip(scores, finite)],
        "is_outlier": ["true" if o else "false" for o in result.is_outlier],
    }
    if not finite.all():
        columns["nonfinite"] = ["false" if ok else "true" for ok in finite]
    return columns


def _check_tag(tag: object, where: str) -> str:
    if isinstance(tag, bytes):
        tag = tag.decode("utf-8")
    if not isinstance(tag, str) or not tag.strip():
        raise TypeError(f"{where}: tag must be a non-empty str, got {tag!r}")
    return tag


def _check_step(step: object, where: str) -> int:
    if isinstance(step, np.ndarray) and step.size == 1:
        step = step.reshape(()).item()
    if isinstance(step, bool) or not isinstance(step, numbers.Integral):
        raise TypeError(f"{where}: step must be an int (OneFlow requires it), got {step!r}")
    return int(step)


def _rows(value: object, where: str) -> np.ndarray:
    if value is None:
        raise ValueError(f"{where}: value is required (an array with one row per sample)")
    arr = np.asarray(value)
    if (
        arr.dtype == np.bool_
        or not np.issubdtype(arr.dtype, np.number)
        or np.issubdtype(arr.dtype, np.complexfloating)
    ):
        raise TypeError(f"{where}: value must be a real numeric array, got dtype {arr.dtype}")
    if arr.ndim == 0 or arr.shape[0] == 0 or arr.size == 0:
        raise ValueError(
            f"{where}: value must hold at least one sample with at least one "
            f"element (shape (N, ...)), got shape {arr.shape}"
        )
    return arr.reshape(arr.shape[0], -1).astype(np.float32)


def _labels(label: object, n: int, where: str, what: str = "label") -> list[object] | None:
    if label is None:
        return None
    arr = np.asarray(label)
    if arr.ndim == 0 or arr.shape[0] != n:
        warnings.warn(
            f"{where}: {what} has shape {arr.shape} but value has {n} samples; "
            f"{what}s are not written",
            stacklevel=4,
        )
        return None
    if arr.ndim > 1:
        return [",".join(str(v) for v in row.reshape(-1).tolist()) for row in arr]
    return [_as_text(v) if isinstance(v, bytes) else v for v in arr.tolist()]


def _as_text(value: object) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def _sample(name: object, kind: object, x: object, n: int, where: str):
    """``(SampleType.IMAGE, uint8 NHWC)``, ``(SampleType.TEXT, [str])`` or None (no usable
    sample data)."""
    sample_type = SampleType.parse(kind)
    if kind is not None and sample_type is None:
        raise NotImplementedError(
            f"{where}: sample_type must be 'image', 'audio' or 'text' (or upper case), got {kind!r}"
        )
    if name is None or kind is None:
        if x is not None:
            warnings.warn(
                f"{where}: x is ignored because sample_name and sample_type are not "
                "both given (as in OneFlow)",
                stacklevel=4,
            )
        return None
    if not isinstance(name, str) or not name:
        raise TypeError(f"{where}: sample_name must be a non-empty str, got {name!r}")
    if x is None:
        raise ValueError(
            f"{where}: x (the samples) is required when sample_name and sample_type are given"
        )
    arr = np.asarray(x)
    count = arr.shape[0] if arr.ndim else 1
    if count != n:
        # The OneFlow docs pass value with 100 rows and x with 10 samples; keep the embedding.
        warnings.warn(
            f"{where}: x holds {count} samples but value has {n} rows; samples "
            "cannot be matched to points, so no sprite/sample column is written",
            stacklevel=4,
        )
        return None
    if sample_type is SampleType.AUDIO:
        warnings.warn(
            f"{where}: audio samples cannot be shown by TensorBoard's projector; x is not written",
            stacklevel=4,
        )
        return None
    if sample_type is SampleType.TEXT:
        rows = arr.reshape(n, -1).tolist()
        return SampleType.TEXT, [" ".join(_as_text(v) for v in row) for row in rows]
    try:
        return SampleType.IMAGE, to_uint8_images(arr)
    except ValueError as e:
        warnings.warn(f"{where}: {e}; no sprite written", stacklevel=4)
        return None
