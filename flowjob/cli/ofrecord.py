"""``flowjob ofrecord images|npz|inspect``: make and check OFRecord data sets.

* ``images IMAGE_DIR OUT_DIR``: ``IMAGE_DIR/<class>/<image>`` files to records with
  ``encoded`` (the file's bytes) and ``class/label`` (int32, classes in sorted order).
* ``npz FILE.npz OUT_DIR``: one record per row of the arrays in the file (same first axis).
* ``inspect PATH``: counts the records of a part file or of every file in a folder (each
  parsed with the protobuf classes) and shows the fields of the first record; a damaged file
  is reported with its byte offset and makes the exit status 1.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

from flowjob_cli import COMMANDS

from ..data import _writer
from ..data._progress import Progress
from ..data._record import RecordError, iter_raw_records, parse_record


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    # The help shows the module's doc as plain text (no reST ``literal`` markers).
    parser = subparsers.add_parser("ofrecord", help=COMMANDS["ofrecord"],
                                   description=__doc__.replace("``", ""),
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="action", required=True)
    for name, source in (("images", "a folder with one sub-folder of images per class"),
                         ("npz", "a NumPy .npz file; every array holds one row per record")):
        sub = commands.add_parser(name, help=f"write records from {source}")
        sub.add_argument("source", help=source)
        sub.add_argument("out_dir", help="folder for the part files")
        sub.add_argument("--part-num", type=int, default=1, help="number of part files")
        sub.add_argument("--part-name-prefix", default="part-")
        sub.add_argument("--part-name-suffix-length", type=int, default=-1,
                         help="zero-pad part numbers to this many digits (-1: no padding)")
        if name == "images":
            sub.add_argument("--no-shuffle", action="store_true",
                             help="keep the sorted order instead of shuffling the images")
            sub.add_argument("--seed", type=int, default=0, help="seed of the shuffle")
    sub = commands.add_parser("inspect", help="count and check the records of files")
    sub.add_argument("path", help="an OFRecord file, or a folder of them")
    return parser


def run(args: argparse.Namespace) -> int:
    layout = {}
    if args.action != "inspect":
        layout = dict(part_num=args.part_num, part_name_prefix=args.part_name_prefix,
                      part_name_suffix_length=args.part_name_suffix_length, progress=True)
    if args.action == "images":
        paths, classes = _writer.write_image_folder(
            args.source, args.out_dir, shuffle=not args.no_shuffle, seed=args.seed, **layout)
        print(f"wrote {len(paths)} part file(s) to {args.out_dir}; classes (label order): "
              + ", ".join(classes))
        return 0
    if args.action == "npz":
        with np.load(args.source) as data:
            features = {name: data[name] for name in data.files}
        paths = _writer.write_ofrecord(args.out_dir, features, **layout)
        print(f"wrote {len(paths)} part file(s) to {args.out_dir}; fields: "
              + ", ".join(f"{n} {a.dtype}{list(a.shape[1:])}" for n, a in features.items()))
        return 0
    return _inspect(args.path)


def _inspect(path: str) -> int:
    files = ([os.path.join(path, f) for f in sorted(os.listdir(path))
              if os.path.isfile(os.path.join(path, f))] if os.path.isdir(path) else [path])
    meter = Progress(f"scanning {path}")
    total, failed, first = 0, 0, None
    for file in files:
        count = 0
        try:
            for offset, data in iter_raw_records(file):
                record = parse_record(data, file, offset)
                first = record if first is None else first
                count += 1
                meter.update()
        except RecordError as exc:
            failed += 1
            print(f"DAMAGED {exc}", file=sys.stderr)
        print(f"{file}: {count} records")
        total += count
    meter.close()
    print(f"total: {total} records in {len(files)} file(s)")
    if first is not None:
        for name in sorted(first.feature):
            feature = first.feature[name]
            kind = feature.WhichOneof("kind")
            values = getattr(feature, kind).value if kind else []
            size = sum(len(v) for v in values) if kind == "bytes_list" else len(values)
            unit = "bytes" if kind == "bytes_list" else "values"
            print(f"  field {name!r}: {kind} ({size} {unit} in the first record)")
    return 1 if failed else 0
