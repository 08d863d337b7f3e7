"""oneflow_nlp_model: BERT and RoBERTa, IMDB text classifiers, its RNN tests."""

from __future__ import annotations

from tests.upstream import NLP

from . import data_text
from ._common import _CLASSIFY, _PRETRAIN, _SQUAD, SEQ, VOCAB, _glue, flags
from .program import Program

_IMDB = flags(sequence_length=12, emb_dim=8, batch_size=5000, n_epochs=1)

_NLP_EXCLUDED = ("RoBERTa/run_pretraining.py", "RoBERTa/run_squad.py")  # see EXCLUDED

NLP_PROGRAMS = (
    *(
        program
        for model in ("BERT", "RoBERTa")
        for program in (
            Program(
                NLP,
                f"LanguageModeling/{model}/run_pretraining.py",
                _PRETRAIN,
                data=data_text.bert_pretrain("data", 8, SEQ, 4, VOCAB),
            ),
            Program(NLP, f"LanguageModeling/{model}/run_classifier.py", _CLASSIFY, data=_glue),
            Program(
                NLP,
                f"LanguageModeling/{model}/run_squad.py",
                _SQUAD,
                data=data_text.squad("squad", 4, SEQ),
            ),
        )
        if f"{model}/{program.script.rpartition('/')[2]}" not in _NLP_EXCLUDED
    ),
    Program(
        NLP,
        "text_classification/textcnn/train_textcnn.py",
        _IMDB + flags(ksize_list="2,3", n_filters=4),
        data=data_text.imdb("../imdb"),
    ),
    Program(
        NLP,
        "text_classification/bilstm/train_lstm.py",
        _IMDB + flags(hidden_size=8, nfc=8),
        data=data_text.imdb("../imdb"),
        folder="",  # it imports nlp_ops from the repository's root
    ),
    Program(NLP, "tests/test_rnn.py", folder="", unittest=True, expect=r"^OK"),
)
