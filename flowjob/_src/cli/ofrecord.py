"""``flowjob ofrecord images|npz|inspect``: make and check OFRecord data sets.

* ``images IMAGE_DIR OUT_DIR``: ``IMAGE_DIR/<class>/<image>`` files to records with
  ``encoded`` (the file's bytes) and ``class/label`` (int32, classes in sorted order).
* ``npz FILE.npz OUT_DIR``: one record per row of the arrays in the file (same first axis).
* ``inspect PATH``: counts the records of a part file or of every file in a folder (each
  parsed with the protobuf classes) and shows the fields of the first record. A folder written
  by flowjob is checked against its manifest (part names, record counts, sizes, CRC-32C). A
  damaged file (with its byte offset), a missing, extra or changed part, an empty folder or a
  set without records makes the exit status 1.

Writing is all or nothing: the parts go to a hidden folder next to OUT_DIR that is renamed into
place when complete. A non-empty OUT_DIR is refused unless --overwrite (it is then replaced).
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from flowjob_cli import COMMANDS

from ..data import (
    DatasetReport,
    RecordError,
    inspect_ofrecord,
    write_image_folder,
    write_ofrecord,
)
from ._usage import existing_dir, existing_file


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    # The help shows the module's doc as plain text (no reST ``literal`` markers).
    parser = subparsers.add_parser(
        "ofrecord",
        help=COMMANDS["ofrecord"],
        description=__doc__.replace("``", ""),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = parser.add_subparsers(dest="action", required=True)
    for name, source in (
        ("images", "a folder with one sub-folder of images per class"),
        ("npz", "a NumPy .npz file; every array holds one row per record"),
    ):
        sub = commands.add_parser(name, help=f"write records from {source}")
        sub.add_argument("source", help=source)
        sub.add_argument("out_dir", help="folder for the part files")
        sub.add_argument("--part-num", type=int, default=1, help="number of part files")
        sub.add_argument("--part-name-prefix", default="part-")
        sub.add_argument(
            "--part-name-suffix-length",
            type=int,
            default=-1,
            help="zero-pad part numbers to this many digits (-1: no padding)",
        )
        sub.add_argument(
            "--overwrite",
            action="store_true",
            help="replace OUT_DIR if it is not empty (default: refuse)",
        )
        if name == "images":
            sub.add_argument(
                "--no-shuffle",
                action="store_true",
                help="keep the sorted order instead of shuffling the images",
            )
            sub.add_argument("--seed", type=int, default=0, help="seed of the shuffle")
    sub = commands.add_parser("inspect", help="count and check the records of files")
    sub.add_argument("path", help="an OFRecord file, or a folder of them")
    return parser


def run(args: argparse.Namespace) -> int:
    if args.action == "inspect":
        return _inspect(args.path)  # a missing path is a finding of the check: exit 1
    if args.action == "images":
        existing_dir(args.source, "image folder")
    else:
        existing_file(args.source, "npz file")
    try:
        return _write(args)
    except RecordError as exc:  # a refused folder or bad input: the message says which
        print(f"flowjob ofrecord {args.action}: error: {exc}", file=sys.stderr)
        return 1


def _write(args: argparse.Namespace) -> int:
    layout = dict(
        part_num=args.part_num,
        part_name_prefix=args.part_name_prefix,
        part_name_suffix_length=args.part_name_suffix_length,
        progress=True,
        overwrite=args.overwrite,
    )
    if args.action == "images":
        paths, classes = write_image_folder(
            args.source, args.out_dir, shuffle=not args.no_shuffle, seed=args.seed, **layout
        )
        print(
            f"wrote {len(paths)} part file(s) to {args.out_dir}; classes (label order): "
            + ", ".join(classes)
        )
        return 0
    try:
        with np.load(args.source) as data:
            features = {name: data[name] for name in data.files}
    except (OSError, ValueError, EOFError, AttributeError) as exc:  # .npy: no .files
        raise RecordError(f"{args.source}: not a readable .npz file ({exc})") from None
    paths = write_ofrecord(args.out_dir, features, **layout)
    print(
        f"wrote {len(paths)} part file(s) to {args.out_dir}; fields: "
        + ", ".join(f"{n} {a.dtype}{list(a.shape[1:])}" for n, a in features.items())
    )
    return 0


def _inspect(path: str) -> int:
    report = inspect_ofrecord(path, progress=True)
    for file in report.files:
        print(f"{file.path}: {file.records} records")
    print(f"total: {report.records} records in {len(report.files)} file(s)")
    _show_fields(report)
    for note in report.notes:
        print(f"note: {note}")
    for problem in report.problems:
        print(problem, file=sys.stderr)
    if report.ok and report.manifest is not None:
        print(
            f"complete: {len(report.manifest.parts)} part(s) and {report.manifest.records} "
            "records, as the manifest lists"
        )
    return 0 if report.ok else 1


def _show_fields(report: DatasetReport) -> None:
    first = report.first_record
    if first is None:
        return
    for name in sorted(first.feature):
        feature = first.feature[name]
        kind = feature.WhichOneof("kind")
        values = getattr(feature, kind).value if kind else []
        size = sum(len(v) for v in values) if kind == "bytes_list" else len(values)
        unit = "bytes" if kind == "bytes_list" else "values"
        print(f"  field {name!r}: {kind} ({size} {unit} in the first record)")
