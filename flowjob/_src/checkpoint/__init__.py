"""Checkpoints: OneFlow's directory layout, safetensors, and the variable load/save API."""

from flowjob._src.checkpoint._api import (
    get,
    get_all_variables,
    load_variables,
    restore,
    save,
    save_object,
    strict,
)
from flowjob._src.checkpoint._blobs import (
    DATA_FILENAME,
    META_FILENAME,
    SNAPSHOT_DONE,
    FileBackendVariableBlob,
    VariableBlob,
)
from flowjob._src.checkpoint._meta import CheckpointError
from flowjob._src.checkpoint._safetensors import check_file as check_safetensors

__all__ = [
    "DATA_FILENAME",
    "META_FILENAME",
    "SNAPSHOT_DONE",
    "CheckpointError",
    "FileBackendVariableBlob",
    "VariableBlob",
    "check_safetensors",
    "get",
    "get_all_variables",
    "load_variables",
    "restore",
    "strict",
    "save",
    "save_object",
]
