"""Small text data sets: token-id OFRecords in the layouts of OneFlow's BERT, GLUE, SQuAD and
IMDB readers, with the vocabulary and SQuAD file their post-processing reads."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

import numpy as np

from .data import rng

# A vocabulary for the SQuAD files below: BERT's special tokens, then the words they use.
WORDS = ("the", "cat", "sat", "on", "mat", "where", "did", "dog", "run", "to", "park", "a")
VOCAB = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *WORDS)


def _ofrecord(target: Path, features: dict, part_num: int = 1, **names) -> None:
    from flowjob.data import write_ofrecord

    write_ofrecord(target, features, part_num=part_num, **names)


def _tokens(gen: np.random.Generator, n: int, seq: int, vocab: int) -> dict[str, np.ndarray]:
    return {
        "input_ids": gen.integers(5, vocab, (n, seq)).astype(np.int32),
        "input_mask": np.ones((n, seq), np.int32),
        "segment_ids": np.zeros((n, seq), np.int32),
    }


def bert_pretrain(subfolder: str, n: int, seq: int, preds: int, vocab: int, part_num: int = 1):
    """BERT pretraining records (``run_pretraining.py``'s seven fields) in ``part-0``..."""

    def write(folder: Path) -> None:
        gen = rng()
        fields = _tokens(gen, n, seq, vocab)
        positions = np.sort(
            np.stack([gen.choice(np.arange(1, seq), preds, replace=False) for _ in range(n)]), 1
        ).astype(np.int32)
        fields.update(
            next_sentence_labels=gen.integers(0, 2, (n, 1)).astype(np.int32),
            masked_lm_ids=gen.integers(5, vocab, (n, preds)).astype(np.int32),
            masked_lm_positions=positions,
            masked_lm_weights=np.ones((n, preds), np.float32),
        )
        _ofrecord(folder / subfolder, fields, part_num)

    return write


def glue(subfolder: str, prefix: str, n: int, seq: int, vocab: int, part_num: int = 1):
    """GLUE classification records (``input_ids``, ``input_mask``, ``segment_ids``,
    ``label_ids``, ``is_real_example``) in ``<prefix>0``..."""

    def write(folder: Path) -> None:
        gen = rng()
        fields = _tokens(gen, n, seq, vocab)
        fields.update(
            label_ids=(np.arange(n) % 2).astype(np.int32)[:, None],
            is_real_example=np.ones((n, 1), np.int32),
        )
        _ofrecord(folder / subfolder, fields, part_num, part_name_prefix=prefix)

    return write


def squad(subfolder: str, n_train: int, seq: int, n_eval: int = 2):
    """SQuAD v1.1 as ``run_squad.py`` reads it: ``train`` records (with answer positions),
    ``eval`` records (``unique_ids`` from 1000000000, one feature per short example),
    ``vocab.txt`` and ``dev.json`` with ``n_eval`` questions."""

    def write(folder: Path) -> None:
        root = folder / subfolder
        gen = rng()
        vocab = len(VOCAB)
        train = _tokens(gen, n_train, seq, vocab)
        train.update(
            start_positions=gen.integers(1, seq // 2, (n_train, 1)).astype(np.int32),
            end_positions=gen.integers(seq // 2, seq, (n_train, 1)).astype(np.int32),
        )
        _ofrecord(root / "train", train)
        evaluation = _tokens(gen, n_eval, seq, vocab)
        evaluation["unique_ids"] = (1000000000 + np.arange(n_eval)).astype(np.int32)[:, None]
        _ofrecord(root / "eval", evaluation)
        (root / "vocab.txt").write_text("\n".join(VOCAB) + "\n")
        context = "the cat sat on the mat"
        questions = [
            {"id": f"q{i}", "question": "where did the cat sit", "answers": []}
            for i in range(n_eval)
        ]
        paragraphs = [{"context": context, "qas": [q]} for q in questions]
        dev = {"version": "1.1", "data": [{"title": "t", "paragraphs": paragraphs}]}
        (root / "dev.json").write_text(json.dumps(dev))

    return write


def imdb(subfolder: str, length: int = 12, vocab: int = 64, n: int = 25000):
    """IMDB as OFRecords (``data``: word ids, ``labels``) in ``train-part-0`` and
    ``test-part-0`` of ``subfolder``; the readers of the time read exactly 25,000 of each."""

    def write(folder: Path) -> None:
        gen = rng()
        target = folder / subfolder
        target.mkdir(parents=True, exist_ok=True)
        for split in ("train", "test"):
            with tempfile.TemporaryDirectory() as tmp:
                data = gen.integers(2, vocab, (n, length)).astype(np.int64)
                labels = (np.arange(n) % 2).astype(np.int64)
                _ofrecord(Path(tmp) / "out", {"data": data, "labels": labels})
                shutil.move(str(Path(tmp) / "out" / "part-0"), target / f"{split}-part-0")

    return write


def wdl(subfolder: str, n: int = 96, train: int = 64, vocab: int = 64):
    """Wide&Deep's Criteo-like OFRecords (``tests/wdl_data.py``): ``train`` and ``val``."""

    def write(folder: Path) -> None:
        from tests.wdl_data import write_wdl_dataset

        write_wdl_dataset(folder / subfolder, "ofrecord", n=n, train=train, vocab=vocab)

    return write


def gpt_corpus(prefix: str, vocab: int, documents: int = 16, length: int = 20):
    """A token corpus in Megatron-LM's indexed layout (``<prefix>.bin``, ``<prefix>.idx``),
    as ``megatron_gpt_mmap_data_loader`` reads it."""

    def write(folder: Path) -> None:
        from tests.data.test_tensor_buffers import _write_megatron

        gen = rng()
        target = folder / prefix
        target.parent.mkdir(parents=True, exist_ok=True)
        docs = [gen.integers(0, vocab, length) for _ in range(documents)]
        _write_megatron(str(target), docs)

    return write
