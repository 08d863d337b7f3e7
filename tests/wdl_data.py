"""Synthetic Wide & Deep click data, written as OFRecord parts or OneRec files, shared by the
Benchmark WDL program test and this project's own Wide & Deep program test.

The click probability depends on one dense field and one wide id only, so a model's loss
falls from ln 2 and its held-out AUC beats chance."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from flowjob.data import write_ofrecord, write_onerec


def write_wdl_dataset(root: Path, dataset_format: str, n: int, train: int, vocab: int) -> None:
    """``root/train`` (the first ``train`` of ``n`` rows) and ``root/val`` (the rest), two
    parts each: ``part-0000x`` OFRecord parts or ``part-x.onerec`` files."""
    rng = np.random.default_rng(0)
    dense = rng.normal(size=(n, 13)).astype(np.float32)
    wide = rng.integers(0, vocab, (n, 2)).astype(np.int32)
    deep = rng.integers(0, vocab, (n, 26)).astype(np.int32)
    logit = 2.0 * dense[:, 0] + np.where(wide[:, 0] < vocab // 2, 1.5, -1.5)
    labels = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(np.int32)[:, None]
    for split, rows in (("train", slice(0, train)), ("val", slice(train, n))):
        fields = {
            "labels": labels[rows],
            "dense_fields": dense[rows],
            "wide_sparse_fields": wide[rows],
            "deep_sparse_fields": deep[rows],
        }
        if dataset_format == "ofrecord":
            write_ofrecord(root / split, fields, part_num=2, part_name_suffix_length=5)
        else:  # the programs glob <dir>/*.onerec
            (root / split).mkdir()
            for part in range(2):
                write_onerec(
                    root / split / f"part-{part}.onerec",
                    {k: v[part::2] for k, v in fields.items()},
                )
