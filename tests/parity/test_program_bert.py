"""``programs/bert_pretrain.py`` (this project's BERT-style pretraining program on the Benchmark
BERT scripts' API surface) through ``flowjob run`` on an OFRecord set written here: the masked
tokens follow a skewed distribution and the next-sentence label is a function of the first
token, so both losses can fall well below chance."""

from __future__ import annotations

import re

import numpy as np

from flowjob.data import write_ofrecord


def test_bert_pretraining_losses_fall(run_program, tmp_path):
    rng = np.random.default_rng(0)
    n, seq, preds, vocab = 256, 16, 4, 40
    ids = rng.integers(5, vocab, (n, seq)).astype(np.int32)
    positions = np.sort(
        np.stack([rng.choice(np.arange(1, seq), preds, replace=False) for _ in range(n)]), axis=1
    ).astype(np.int32)
    ids[np.arange(n)[:, None], positions] = 3  # the mask token
    lengths = rng.integers(seq - 3, seq + 1, n)
    write_ofrecord(
        tmp_path / "data",
        {
            "input_ids": ids,
            "input_mask": (np.arange(seq) < lengths[:, None]).astype(np.int32),
            "segment_ids": (np.arange(seq) >= seq // 2).astype(np.int32)[None].repeat(n, 0),
            "masked_lm_positions": positions,
            "masked_lm_ids": rng.choice([5, 6, 7], (n, preds), p=[0.6, 0.3, 0.1]).astype(np.int32),
            "masked_lm_weights": np.ones((n, preds), np.float32),
            "next_sentence_labels": (ids[:, :1] % 2).astype(np.int32),
        },
        part_num=2,
    )
    out = run_program(
        "bert_pretrain.py",
        "--data_dir",
        tmp_path / "data",
        "--data_part_num",
        2,
        "--seq_length",
        seq,
        "--max_predictions_per_seq",
        preds,
        "--vocab_size",
        vocab,
        "--iter_num",
        60,
        "--loss_print_every_n_iter",
        5,
    )
    rows = [
        dict((k, float(v)) for k, v in re.findall(r"(\w+_loss): ([\d.]+)", line))
        for line in out.splitlines()
        if line.startswith("step:")
    ]
    assert len(rows) == 12, out[-2000:]
    assert rows[0]["mlm_loss"] > 0.7 * np.log(vocab)  # starts near chance
    # the masked tokens' entropy is about 0.90 nats (memorizing the 256 records goes lower)
    assert rows[-1]["mlm_loss"] < 0.5 * rows[0]["mlm_loss"], rows
    assert rows[-1]["nsp_loss"] < 0.8 * np.log(2), rows
    assert rows[-1]["total_loss"] < rows[0]["total_loss"]
