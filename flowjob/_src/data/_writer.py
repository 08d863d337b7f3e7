"""Writing OFRecord data sets: from NumPy arrays, or from a folder of images per class."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

import google_crc32c
import numpy as np

from .._files import naming_write_errors
from ._dataset import Manifest, PartInfo, check_target, staged_folder, write_manifest
from ._progress import Progress
from ._record import OFRecord, RecordError, frame
from ._stream import part_paths

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".gif", ".webp", ".tif", ".tiff")


def _set_feature(feature: Any, value: Any, name: str) -> None:
    if isinstance(value, (bytes, bytearray, memoryview)):
        feature.bytes_list.value.append(bytes(value))
        return
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, bytes) for v in value):
        feature.bytes_list.value.extend(value)
        return
    array = np.asarray(value)
    kind, size = array.dtype.kind, array.dtype.itemsize
    flat = array.reshape(-1)
    if kind == "f" and size <= 4:
        feature.float_list.value.extend(flat.astype(np.float32).tolist())
    elif kind == "f":
        feature.double_list.value.extend(flat.tolist())
    elif kind in "biu" and (size < 4 or (kind == "i" and size == 4)):
        feature.int32_list.value.extend(flat.astype(np.int32).tolist())
    elif kind in "iu":
        if kind == "u" and flat.size and flat.max() > np.iinfo(np.int64).max:
            raise RecordError(
                f"feature {name!r}: value {flat.max()} does not fit OFRecord's "
                "int64_list (signed, at most 2**63 - 1); store it as bytes or "
                "split it"
            )
        feature.int64_list.value.extend(flat.astype(np.int64).tolist())
    elif kind in "SO" and all(isinstance(v, bytes) for v in flat):
        feature.bytes_list.value.extend(flat.tolist())
    else:
        raise TypeError(
            f"feature {name!r}: cannot store values of dtype {array.dtype} in an "
            "OFRecord (use floats, integers or bytes)"
        )


def make_record(features: Mapping[str, Any]) -> Any:
    """One ``OFRecord`` from ``{name: value}``: float32/16 arrays become ``float_list``,
    float64 ``double_list``, integers up to 32 bits ``int32_list``, wider ``int64_list``, and
    ``bytes`` (or a list of them) ``bytes_list``."""
    if not features:
        raise RecordError(
            "make_record: a record needs at least one feature (an empty record "
            "serializes to 0 bytes, which OneFlow's reader and flowjob's refuse)"
        )
    record = OFRecord()
    for name, value in features.items():
        _set_feature(record.feature[name], value, name)
    return record


def _count(features: Mapping[str, Any]) -> int:
    counts = {name: len(v) for name, v in features.items()}
    if not counts:
        raise RecordError("write_ofrecord: no features given")
    if len(set(counts.values())) != 1:
        raise RecordError(
            f"write_ofrecord: every feature needs one value per record; got counts {counts}"
        )
    return next(iter(counts.values()))


def write_records(
    records: Sequence[Any],
    out_dir: str | os.PathLike,
    part_num: int = 1,
    part_name_prefix: str = "part-",
    part_name_suffix_length: int = -1,
    progress: bool = False,
    overwrite: bool = False,
) -> list[str]:
    """Writes ``OFRecord`` messages (or serialized bytes) to ``part_num`` part files, split
    into contiguous, nearly equal runs; returns the file paths.

    The data set appears complete or not at all: parts and manifest are written to a hidden
    folder next to ``out_dir`` that is renamed into place at the end. A non-empty ``out_dir``
    is refused unless ``overwrite`` (then it is replaced as a whole, never mixed).
    """
    if part_num < 1:
        raise RecordError(f"part_num must be >= 1, got {part_num}")
    if not len(records):
        raise RecordError(
            f"{os.fspath(out_dir)}: no records to write (a reader of an empty "
            "data set has nothing to deliver)"
        )
    out_dir = os.fspath(out_dir)
    names = [
        os.path.basename(p)
        for p in part_paths("", part_num, part_name_prefix, part_name_suffix_length)
    ]
    bounds = np.linspace(0, len(records), part_num + 1).astype(int)
    meter = Progress(f"writing {out_dir}", len(records), enabled=progress)
    parts = []
    with (
        naming_write_errors("OFRecord data set", out_dir),
        staged_folder(out_dir, overwrite) as staging,
    ):
        for name, start, stop in zip(names, bounds[:-1], bounds[1:]):
            with naming_write_errors("OFRecord part file", os.path.join(out_dir, name)):
                parts.append(_write_part(os.path.join(staging, name), records, start, stop, meter))
        write_manifest(staging, Manifest(part_name_prefix, tuple(parts)))
    meter.close()
    return [os.path.join(out_dir, name) for name in names]


def _write_part(
    path: str, records: Sequence[Any], start: int, stop: int, meter: Progress
) -> PartInfo:
    size, crc = 0, 0
    with open(path, "wb") as handle:
        for index in range(start, stop):
            data = frame(records[index])
            if len(data) == 8:  # only a length field: the record serialized to nothing
                raise RecordError(
                    f"record {index} is empty (no features); OneFlow's reader "
                    "and flowjob's refuse a 0-byte record"
                )
            handle.write(data)
            size += len(data)
            crc = google_crc32c.extend(crc, data)
            meter.update()
        handle.flush()
        os.fsync(handle.fileno())
    return PartInfo(os.path.basename(path), int(stop - start), size, crc)


def write_ofrecord(
    out_dir: str | os.PathLike,
    features: Mapping[str, Any],
    part_num: int = 1,
    part_name_prefix: str = "part-",
    part_name_suffix_length: int = -1,
    progress: bool = False,
    overwrite: bool = False,
) -> list[str]:
    """Writes a data set that ``flow.data.ofrecord_reader`` reads.

    ``features`` maps field names to one value per record: an array whose first axis is the
    record index (each record gets its row, flattened), or a list (e.g. encoded images as
    ``bytes``, or arrays of differing lengths). Written as ``write_records`` writes:
    complete or not at all, ``overwrite`` to replace a folder.

    Args:
        out_dir: the folder to create (refused when it holds files, unless ``overwrite``).
        features: field name -> one value per record.
        part_num: the number of part files the records are spread over.
        part_name_prefix: the part files' name before their number.
        part_name_suffix_length: zero-pad part numbers to this many digits (-1: no padding).
        progress: print a progress line.
        overwrite: replace a non-empty ``out_dir`` as a whole.

    Returns:
        The paths of the part files written.

    Raises:
        DatasetExistsError: ``out_dir`` is not empty and ``overwrite`` is false.
        RecordError: the fields have different record counts, or a value cannot be stored.

    Examples:
        >>> import os, tempfile, numpy as np, flowjob as flow
        >>> folder = os.path.join(tempfile.mkdtemp(), "train")
        >>> x = np.arange(12, dtype=np.float32).reshape(6, 2)
        >>> parts = flow.data.write_ofrecord(folder, {"x": x, "y": np.arange(6)}, part_num=2)
        >>> [os.path.basename(p) for p in parts]
        ['part-0', 'part-1']
        >>> flow.data.inspect_ofrecord(folder).records
        6
    """
    check_target(os.path.abspath(out_dir), overwrite)  # before the work, not after it
    n = _count(features)
    records = [
        make_record({name: values[i] for name, values in features.items()}) for i in range(n)
    ]
    return write_records(
        records, out_dir, part_num, part_name_prefix, part_name_suffix_length, progress, overwrite
    )


def write_image_folder(
    image_dir: str | os.PathLike,
    out_dir: str | os.PathLike,
    part_num: int = 1,
    part_name_prefix: str = "part-",
    part_name_suffix_length: int = -1,
    shuffle: bool = True,
    seed: int = 0,
    progress: bool = False,
    overwrite: bool = False,
) -> tuple[list[str], list[str]]:
    """``image_dir/<class>/<image>`` files to records ``{"encoded": file bytes,
    "class/label": int32 class index}`` (the fields OneFlow's ImageNet scripts read).

    Classes are the sub-folder names in sorted order. Returns (part paths, class names).
    """
    image_dir = os.fspath(image_dir)
    check_target(os.path.abspath(out_dir), overwrite)
    classes = sorted(e.name for e in os.scandir(image_dir) if e.is_dir())
    if not classes:
        raise RecordError(f"{image_dir}: no class sub-folders (expected <dir>/<class>/<image>)")
    files = [
        (os.path.join(image_dir, c, f), label)
        for label, c in enumerate(classes)
        for f in sorted(os.listdir(os.path.join(image_dir, c)))
        if f.lower().endswith(IMAGE_SUFFIXES)
    ]
    if not files:
        raise RecordError(f"{image_dir}: no image files ({', '.join(IMAGE_SUFFIXES)})")
    if shuffle:
        order = np.random.default_rng(seed).permutation(len(files))
        files = [files[i] for i in order]
    meter = Progress(f"reading {image_dir}", len(files), unit="images", enabled=progress)
    records = []
    for path, label in files:
        with open(path, "rb") as handle:
            records.append(make_record({"encoded": handle.read(), "class/label": np.int32(label)}))
        meter.update()
    meter.close()
    paths = write_records(
        records, out_dir, part_num, part_name_prefix, part_name_suffix_length, progress, overwrite
    )
    return paths, classes
