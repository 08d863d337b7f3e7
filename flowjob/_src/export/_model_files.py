"""The files of one saved-model version: ``saved_model.json`` checked field by field, every path
in it confined to the version folder, and the manifest (size and CRC-32C of each file, written
last, checked when a file is read).

A version folder is *complete* when its manifest is there (format 2), or, for folders written
before manifests existed (format 1), when ``saved_model.json`` is.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any

import numpy as np

from .._files import check_regular, crc32c_of, inside, read_bounded, write_file
from ._program import ExportError

META_FILE = "saved_model.json"
MANIFEST_FILE = "saved_model.manifest.json"
FORMAT = "flowjob.saved_model"
FORMAT_VERSION = 2  # 2: with MANIFEST_FILE
_MANIFEST_FORMAT = "flowjob.saved_model.manifest"
_MAX_JSON = 64 << 20  # metadata of thousands of signatures fits many times over
_MAX_PROGRAM = 2 << 30


def _crc_of_bytes(data: bytes) -> int:
    import google_crc32c

    return int.from_bytes(google_crc32c.Checksum(data).digest(), "big")


def write_manifest(folder: str) -> None:
    """Lists every file below ``folder`` with its size and CRC-32C (call it last)."""
    files = []
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames.sort()
        for name in sorted(filenames):
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, folder).replace(os.sep, "/")
            size = os.path.getsize(path)
            files.append({"name": rel, "bytes": size, "crc32c": crc32c_of(path, size)})
    body = {"format": _MANIFEST_FORMAT, "version": 1, "files": files}
    write_file(os.path.join(folder, MANIFEST_FILE), [json.dumps(body, indent=1).encode()])


def read_json(folder: str, name: str) -> Any:
    path = os.path.join(folder, name)
    data = read_bounded(path, _MAX_JSON, what="saved model file", error=ExportError)
    try:
        return json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise ExportError(f"saved model file {path}: not valid JSON ({exc})") from None


class Manifest:
    """The manifest of one version folder (None entries: a format-1 folder, nothing checked)."""

    def __init__(self, folder: str) -> None:
        self.folder = folder
        self.path = os.path.join(folder, MANIFEST_FILE)
        self.files: dict[str, tuple[int, int]] | None = None
        if not os.path.lexists(self.path):
            return
        body = read_json(folder, MANIFEST_FILE)
        try:
            if body["format"] != _MANIFEST_FORMAT:
                raise ValueError(f"format {body['format']!r}, expected {_MANIFEST_FORMAT!r}")
            self.files = {
                str(f["name"]): (int(f["bytes"]), int(f["crc32c"])) for f in body["files"]
            }
        except (KeyError, TypeError, ValueError) as exc:
            raise ExportError(f"saved model file {self.path}: not a manifest ({exc!r})") from None

    def check(self, rel: str, data: bytes | None = None) -> None:
        """Checks ``rel`` (its bytes when given, else the file) against the manifest."""
        if self.files is None:
            return
        path = inside(self.folder, rel, what=f"{self.path} lists", error=ExportError)
        if rel not in self.files:
            raise ExportError(f"saved model file {path} is not listed in {self.path}")
        size, crc = self.files[rel]
        actual = len(data) if data is not None else check_regular(path, error=ExportError).st_size
        if actual != size:
            raise ExportError(
                f"saved model file {path}: {actual} bytes, but {MANIFEST_FILE} says {size} "
                "(changed or cut short after the model was saved)"
            )
        got = _crc_of_bytes(data) if data is not None else crc32c_of(path, size)
        if got != crc:
            raise ExportError(
                f"saved model file {path}: CRC-32C {got:08x} differs from {MANIFEST_FILE}'s "
                f"{crc:08x}: its bytes changed after the model was saved"
            )

    def read(self, rel: str) -> bytes:
        """The checked bytes of a program file (bounded by the manifest's size)."""
        path = os.path.join(self.folder, rel)
        limit = self.files[rel][0] if self.files and rel in self.files else _MAX_PROGRAM
        data = read_bounded(path, limit, what="saved model file", error=ExportError)
        self.check(rel, data)
        return data


def is_complete(version_dir: str) -> bool:
    """Whether a version folder holds a whole saved model (see the module docstring)."""
    if os.path.isfile(os.path.join(version_dir, MANIFEST_FILE)):
        return True
    if not os.path.isfile(os.path.join(version_dir, META_FILE)):
        return False
    try:
        return read_json(version_dir, META_FILE).get("format_version") == 1
    except (ExportError, AttributeError):
        return False


class _Fields:
    """Typed access to ``saved_model.json``; a wrong field is an error naming file and field."""

    def __init__(self, path: str) -> None:
        self.path = path

    def fail(self, field: str, why: str) -> ExportError:
        return ExportError(f"saved model file {self.path}: field {field!r} {why}")

    def get(self, obj: Any, key: str, field: str, kind: type | tuple[type, ...]) -> Any:
        if not isinstance(obj, Mapping) or key not in obj:
            raise self.fail(field, "is missing")
        value = obj[key]
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            names = kind.__name__ if isinstance(kind, type) else "/".join(k.__name__ for k in kind)
            raise self.fail(field, f"is {value!r}, expected a {names}")
        return value

    def path_in(self, root: str, obj: Any, key: str, field: str) -> str:
        rel = self.get(obj, key, field, str)
        path = inside(root, rel, what=f"field {field!r}", error=self._path_error)
        check_regular(path, what=f"field {field!r} names", error=self._path_error)
        return path

    def _path_error(self, message: str) -> ExportError:
        return ExportError(f"saved model file {self.path}: {message}")


def check_meta(folder: str, meta: Any) -> None:
    """Checks the fields of ``saved_model.json`` that the loader uses, and its paths."""
    f = _Fields(os.path.join(folder, META_FILE))
    if not isinstance(meta, Mapping):
        raise f.fail("(top level)", "is not a JSON object")
    if meta.get("format") != FORMAT:
        raise f.fail("format", f"is {meta.get('format')!r}, expected {FORMAT!r}")
    if f.get(meta, "format_version", "format_version", int) not in (1, FORMAT_VERSION):
        raise f.fail("format_version", f"is {meta['format_version']}, expected 1 or 2")
    f.get(meta, "name", "name", str)
    f.get(meta, "version", "version", int)
    f.path_in(folder, meta, "checkpoint_dir", "checkpoint_dir")
    graphs = f.get(meta, "graphs", "graphs", dict)
    if not graphs:
        raise f.fail("graphs", "is empty")
    if f.get(meta, "default_graph_name", "default_graph_name", str) not in graphs:
        raise f.fail("default_graph_name", f"names no graph (graphs: {', '.join(graphs)})")
    for gname, graph in graphs.items():
        at = f"graphs.{gname}"
        sigs = f.get(graph, "signatures", f"{at}.signatures", dict)
        default = f.get(graph, "default_signature_name", f"{at}.default_signature_name", str)
        if default not in sigs:
            raise f.fail(f"{at}.default_signature_name", "names no signature")
        for sname, sig in sigs.items():
            here = f"{at}.signatures.{sname}"
            for kind in ("inputs", "outputs"):
                for name, spec in f.get(sig, kind, f"{here}.{kind}", dict).items():
                    where = f"{here}.{kind}.{name}"
                    f.get(spec, "lbn", f"{where}.lbn", str)
                    shape = f.get(spec, "shape", f"{where}.shape", list)
                    if not all(type(d) is int and d >= 0 for d in shape):
                        raise f.fail(f"{where}.shape", f"is {shape!r}, expected sizes >= 0")
                    dtype = f.get(spec, "dtype", f"{where}.dtype", str)
                    try:
                        np.dtype(dtype)
                    except TypeError:
                        raise f.fail(f"{where}.dtype", f"is {dtype!r}, not a dtype") from None
            names = f.get(sig, "variables", f"{here}.variables", list)
            if not all(isinstance(n, str) for n in names):
                raise f.fail(f"{here}.variables", "must list variable names (strings)")
            f.get(sig, "batch_polymorphic", f"{here}.batch_polymorphic", bool)
            f.path_in(folder, sig, "program", f"{here}.program")
