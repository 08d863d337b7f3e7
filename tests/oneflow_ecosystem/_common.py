"""Flags and data shared by the program lists: a small BERT, GLUE and SQuAD."""

from __future__ import annotations

import numpy as np  # noqa: F401 (re-exported for the program modules)

from . import data, data_text


def flags(**values: object) -> tuple[str, ...]:
    """``--name value`` pairs."""
    return tuple(item for k, v in values.items() for item in (f"--{k}", str(v)))


SEQ, VOCAB = 16, 64
# A one-layer BERT (RoBERTa) at sequence length 16: the flags of the programs' config.py.
_BERT = flags(
    gpu_num_per_node=1,
    seq_length=SEQ,
    num_hidden_layers=1,
    num_attention_heads=2,
    hidden_size_per_head=8,
    max_position_embeddings=SEQ + 2,
    vocab_size=VOCAB,
    type_vocab_size=2,
    loss_print_every_n_iter=1,
    log_dir="log",
    model_save_dir="snapshots",
)
_PRETRAIN = _BERT + flags(
    data_dir="data",
    data_part_num=1,
    iter_num=3,
    batch_size_per_device=2,
    max_predictions_per_seq=4,
)
_CLASSIFY = _BERT + flags(
    task_name="CoLA",
    num_epochs=1,
    train_data_dir="glue/train",
    train_example_num=4,
    eval_data_dir="glue/eval",
    eval_example_num=2,
    batch_size_per_device=2,
    eval_batch_size_per_device=2,
)
_glue = data.together(
    data_text.glue("glue/train", "train.of_record-", 4, SEQ, VOCAB),
    data_text.glue("glue/eval", "eval.of_record-", 2, SEQ, VOCAB),
)
_SQUAD = _BERT + flags(
    num_epochs=1,
    train_data_dir="squad/train",
    train_example_num=4,
    batch_size_per_device=2,
    eval_data_dir="squad/eval",
    eval_example_num=2,
    eval_batch_size_per_device=2,
    max_seq_length=SEQ,
    vocab_file="squad/vocab.txt",
    predict_file="squad/dev.json",
    output_dir="squad_out",
    do_train="True",
    do_eval="True",
)
