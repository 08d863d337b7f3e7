"""Files of TensorBoard's projector: the config index, tensors, metadata TSV, atomic writes.

Layout (all assets below the directory of ``projector_config.pbtxt``, as TensorBoard requires
since tensorflow/tensorboard#7115)::

    <logdir>/projector_config.pbtxt
    <logdir>/projector/<kind>/<tag>/<step>/{tensors.bin|tensors.tsv, metadata.tsv, sprite.png}
"""

from __future__ import annotations

import hashlib
import os
import re
import threading
import warnings

import numpy as np
from google.protobuf import text_format
from tensorboard.plugins.projector.projector_config_pb2 import EmbeddingInfo, ProjectorConfig

from .._enum import Mode
from .._files import FileCheckError, atomic_file, read_bounded

__all__ = [
    "ProjectorKind",
    "SampleType",
    "CONFIG_NAME",
    "ASSET_DIR",
    "atomic_write",
    "asset_dir",
    "tensor_file",
    "metadata_tsv",
    "read_config",
    "ConfigIndex",
    "config_index",
]

CONFIG_NAME = "projector_config.pbtxt"
ASSET_DIR = "projector"
# One entry per embedding, a few hundred bytes each: 16 MiB is tens of thousands of them.
CONFIG_LIMIT = 16 << 20
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


class ProjectorKind(Mode):
    """The two projectors of a ``Projector``; the value names its asset folder."""

    EMBEDDING = "embedding"
    EXCEPTION = "exception"

    @property
    def call(self) -> str:
        """The public method that writes this kind (``embedding_projector``...)."""
        return f"{self.value}_projector"


class SampleType(Mode):
    """``sample_type`` of a projector call; OneFlow spelled each lower or upper case."""

    IMAGE = "image"
    AUDIO = "audio"
    TEXT = "text"

    @classmethod
    def parse(cls, value: object) -> SampleType | None:
        if isinstance(value, str) and value in (value.lower(), value.upper()):
            return cls.lookup(value.lower())
        return None


def atomic_write(path: str, data: bytes) -> None:
    """Writes ``data`` to ``path`` staged and renamed (``flowjob._src._files.atomic_file``), so a
    reader (TensorBoard polls these files) never sees a half-written file."""
    with atomic_file(path) as f:
        f.write(data)


def _safe_component(text: str) -> str:
    """A file-name-safe stand-in for a tag path component; a short hash keeps it unique."""
    safe = _UNSAFE.sub("_", text).strip(".") or "_"
    if safe != text:
        safe = f"{safe}-{hashlib.sha1(text.encode()).hexdigest()[:8]}"
    return safe


def asset_dir(kind: str, tag: str, step: int) -> str:
    """Relative (POSIX) directory of one embedding's files; never leaves the config dir."""
    parts = [_safe_component(p) for p in tag.split("/") if p] or ["_"]
    return "/".join([ASSET_DIR, kind, *parts, str(step)])


def tensor_file(rows: np.ndarray) -> tuple[str, bytes]:
    """File name and bytes for the float32 ``N x d`` matrix ``rows``.

    Raw little-endian float32 is smaller and exact. TensorBoard first tries to read the file
    as UTF-8 TSV and falls back to binary only on a decode error, so raw bytes that happen to
    be valid UTF-8 (e.g. all values 0 or 0.5) would be misread: those are written as TSV with
    9 significant digits, which round-trips float32 exactly.
    """
    rows = np.ascontiguousarray(rows, dtype="<f4")
    raw = rows.tobytes()
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return "tensors.bin", raw
    lines = ("\t".join(f"{v:.9g}" for v in row.tolist()) for row in rows)
    return "tensors.tsv", ("\n".join(lines) + "\n").encode()


def _tsv_cell(value: object) -> str:
    text = str(value.tolist() if isinstance(value, np.ndarray) else value)
    return " ".join(text.split())  # tabs/newlines would shift columns or rows


def metadata_tsv(columns: dict[str, list[object]]) -> bytes:
    """TSV with one line per point. TensorBoard treats the first line as a header only when it
    contains a tab, so a header is written exactly when there are two or more columns."""
    names = list(columns)
    lengths = {len(v) for v in columns.values()}
    if len(lengths) != 1:
        raise ValueError(
            f"metadata columns differ in length: { {k: len(v) for k, v in columns.items()} }"
        )
    lines = ["\t".join(names)] if len(names) > 1 else []
    for cells in zip(*columns.values()):
        lines.append("\t".join(_tsv_cell(c) for c in cells))
    return ("\n".join(lines) + "\n").encode()


def read_config(config_dir: str) -> list[EmbeddingInfo]:
    """The embeddings listed in ``<config_dir>/projector_config.pbtxt`` (none if it is
    missing; an unreadable file warns and counts as empty)."""
    path = os.path.join(config_dir, CONFIG_NAME)
    if not os.path.lexists(path):
        return []
    try:
        # opened without blocking and bounded: a FIFO or a huge file is named, never read
        text = read_bounded(path, CONFIG_LIMIT, what="projector config").decode("utf-8")
    except (FileCheckError, UnicodeDecodeError) as e:
        warnings.warn(f"ignoring unreadable projector config {path}: {e}", stacklevel=3)
        return []
    config = ProjectorConfig()
    try:
        text_format.Parse(text, config)
    except text_format.ParseError as e:
        warnings.warn(f"ignoring unreadable projector config {path}: {e}", stacklevel=3)
        return []
    return list(config.embeddings)


class ConfigIndex:
    """The embeddings of one ``projector_config.pbtxt``, keyed by tensor name.

    Every change rewrites the whole file atomically. Entries already on disk (from an earlier
    process, or another index in this process) are kept: the file is re-read and merged
    before each write, so the in-process index never drops what it did not write.
    """

    def __init__(self, config_dir: str):
        self.config_dir = config_dir
        self.path = os.path.join(config_dir, CONFIG_NAME)
        self._entries: dict[str, EmbeddingInfo] = {}
        self._lock = threading.Lock()

    def upsert(self, info: EmbeddingInfo) -> None:
        """Adds ``info`` (replacing an entry with the same tensor name) and rewrites the file."""
        with self._lock:
            for disk in read_config(self.config_dir):
                self._entries.setdefault(disk.tensor_name, disk)
            self._entries[info.tensor_name] = info
            config = ProjectorConfig()
            config.embeddings.extend(self._entries.values())
            atomic_write(self.path, text_format.MessageToString(config).encode())


_indexes: dict[str, ConfigIndex] = {}
_indexes_lock = threading.Lock()


def config_index(config_dir: str) -> ConfigIndex:
    """The process-wide index of ``config_dir`` (shared by all Projectors writing there)."""
    key = os.path.realpath(config_dir)
    with _indexes_lock:
        if key not in _indexes:
            _indexes[key] = ConfigIndex(key)
        return _indexes[key]
