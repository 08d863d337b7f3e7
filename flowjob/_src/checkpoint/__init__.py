"""Checkpoints: OneFlow's directory layout, safetensors, and the variable load/save API."""

from flowjob._src.checkpoint._api import get, get_all_variables, load_variables, restore, save
from flowjob._src.checkpoint._blobs import (
    DATA_FILENAME,
    META_FILENAME,
    SNAPSHOT_DONE,
    FileBackendVariableBlob,
    VariableBlob,
)
from flowjob._src.checkpoint._meta import CheckpointError

__all__ = [
    "DATA_FILENAME",
    "META_FILENAME",
    "SNAPSHOT_DONE",
    "CheckpointError",
    "FileBackendVariableBlob",
    "VariableBlob",
    "get",
    "get_all_variables",
    "load_variables",
    "restore",
    "save",
]
