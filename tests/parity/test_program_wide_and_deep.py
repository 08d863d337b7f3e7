"""``programs/wide_and_deep.py`` (this project's Wide & Deep program on the Benchmark WDL
program's API surface) through ``flowjob run``, on data written here as OFRecord parts
(``write_ofrecord``) or OneRec files (``write_onerec``). The click probability depends on one
dense field and one wide id, so the loss falls from ln 2 and the held-out AUC beats chance."""

from __future__ import annotations

import re

import numpy as np
import pytest

from flowjob.data import write_ofrecord, write_onerec


@pytest.mark.parametrize("dataset_format", ["ofrecord", "onerec"])
def test_wide_and_deep_loss_falls_and_auc_beats_chance(run_program, tmp_path, dataset_format):
    rng = np.random.default_rng(0)
    n, vocab = 768, 64
    dense = rng.normal(size=(n, 13)).astype(np.float32)
    wide = rng.integers(0, vocab, (n, 2)).astype(np.int32)
    deep = rng.integers(0, vocab, (n, 26)).astype(np.int32)
    logit = 2.0 * dense[:, 0] + np.where(wide[:, 0] < vocab // 2, 1.5, -1.5)
    labels = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(np.int32)[:, None]
    for split, rows in (("train", slice(0, 640)), ("val", slice(640, n))):
        fields = {
            "labels": labels[rows],
            "dense_fields": dense[rows],
            "wide_sparse_fields": wide[rows],
            "deep_sparse_fields": deep[rows],
        }
        if dataset_format == "ofrecord":
            write_ofrecord(tmp_path / split, fields, part_num=2, part_name_suffix_length=5)
        else:
            (tmp_path / split).mkdir()
            for part in range(2):
                write_onerec(
                    tmp_path / split / f"part-{part}.onerec",
                    {k: v[part::2] for k, v in fields.items()},
                )
    out = run_program(
        "wide_and_deep.py",
        "--dataset_format",
        dataset_format,
        "--train_data_dir",
        tmp_path / "train",
        "--train_data_part_num",
        2,
        "--eval_data_dir",
        tmp_path / "val",
        "--eval_data_part_num",
        2,
        "--max_iter",
        80,
        "--loss_print_every_n_iter",
        10,
        "--eval_batchs",
        4,
    )
    losses = [float(v) for v in re.findall(r"^iter \d+ loss ([\d.]+)$", out, re.M)]
    assert len(losses) == 8, out[-2000:]
    assert losses[0] > 0.55  # about ln 2 = 0.69 at the start
    assert losses[-1] < 0.85 * losses[0], losses
    auc = float(re.search(r"^eval_auc ([\d.]+)$", out, re.M).group(1))
    # 128 held-out rows; the true logit reaches AUC ~0.85, chance is 0.5
    assert auc > 0.7, auc
