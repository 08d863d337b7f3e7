"""Oneflow-Model-Compression: channel slimming, distillation, BERT-of-Theseus."""

from __future__ import annotations

from tests.upstream import COMPRESSION

from . import data, data_text
from ._common import _PRETRAIN, _SQUAD, SEQ, VOCAB, _glue, flags
from .program import Program

_SLIM = "model_compress/ChannelSlimming"
# run_alexnet_cifar10.sh's flags, at 4 training and 2 test images
_SLIM_TRAIN = flags(
    model="alexnet",
    data_type="cifar10",
    model_update="adam",
    num_classes=10,
    train_data_dir="ofData/cifar10/train",
    train_data_part_num=1,
    val_data_dir="ofData/cifar10/test",
    val_data_part_num=1,
    gpu_num_per_node=1,
    loss_print_every_n_iter=1,
    label_smoothing=0,
    warmup_epochs=0,
    lr_decay="None",
    image_shape="3,32,32",
    image_size=32,
    resize_shorter=32,
    rgb_mean="124.95,122.65,114.75",
    rgb_std="61.252,60.767,65.852",
    num_examples=4,
    num_val_examples=2,
    batch_size_per_device=2,
    val_batch_size_per_device=2,
    learning_rate=0.001,
    bn="True",
    num_epochs=1,
    model_save_every_n_epoch=10,
)
_SLIM_BASE = _SLIM_TRAIN + flags(log_type="base_model", model_save_dir="out/base")
_SLIM_PRUNE = flags(
    percent=0.7,
    optimizer="adam",
    prune_method="bn",
    bn="True",
    model_load_dir="out/base/snapshot_last",
    model_save_dir="out/prune",
)
_SLIM_REFINE = _SLIM_TRAIN + flags(
    log_type="prune_model", model_save_dir="out/refine", model_load_dir="out/prune/model"
)
_slim_data = data.together(
    data.raw_image_ofrecord("ofData/cifar10/train", 4, (3, 32, 32)),
    data.raw_image_ofrecord("ofData/cifar10/test", 2, (3, 32, 32)),
)

COMPRESSION_PROGRAMS = (
    Program(COMPRESSION, f"{_SLIM}/train_val.py", _SLIM_BASE, data=_slim_data, folder=_SLIM),
    Program(
        COMPRESSION,
        f"{_SLIM}/prune/pruneAlexnet.py",
        _SLIM_PRUNE,
        data=_slim_data,
        folder=_SLIM,
        workdir=_SLIM,
        before=((f"{_SLIM}/train_val.py", _SLIM_BASE),),
    ),
    Program(
        COMPRESSION,
        f"{_SLIM}/train_val.py",
        _SLIM_REFINE,
        data=_slim_data,
        folder=_SLIM,
        label="refine the pruned model",
        before=(
            (f"{_SLIM}/train_val.py", _SLIM_BASE),
            (f"{_SLIM}/prune/pruneAlexnet.py", _SLIM_PRUNE),
        ),
    ),
)

_QUANT = "model_compress/quantization"

_DISTIL = "model_compress/distil"
_GLUE = flags(
    task_name="MRPC",
    gpu_num_per_node=1,
    num_epochs=1,
    train_data_dir="glue/train",
    train_example_num=4,
    eval_data_dir="glue/eval",
    eval_example_num=2,
    batch_size_per_device=2,
    eval_batch_size_per_device=2,
    loss_print_every_n_iter=1,
    log_dir="log",
    seq_length=SEQ,
    learning_rate=1e-4,
    model_save_every_n_iter=50000,
    weight_decay_rate=0.01,
)
_TEACHER_SIZE = dict(
    num_hidden_layers=2,
    num_attention_heads=2,
    max_position_embeddings=SEQ + 2,
    type_vocab_size=2,
    vocab_size=VOCAB,
    attention_probs_dropout_prob=0.1,
    hidden_dropout_prob=0.1,
    hidden_size_per_head=64,  # the teacher's job fixes 64 per head
)
_STUDENT_SIZE = dict(_TEACHER_SIZE, num_hidden_layers=1, hidden_size_per_head=4)
_TEACHER = _GLUE + flags(
    do_train="True",
    do_eval="True",
    serve_for_online="True",
    model="Glue_MRPC",
    result_dir="result",
    model_save_dir="teacher",
    model_load_dir="pretrained",
    **_TEACHER_SIZE,
)
_STUDENT = _GLUE + flags(
    do_train="True",
    do_eval="True",
    serve_for_online="True",
    model="Glue_MRPC",
    teacher_model="teacher/snapshot_best",
    student_model="student_init",
    result_dir="result",
    model_save_dir="student",
    vocab_size=VOCAB,  # the teacher's vocabulary
    **{f"student_{k}": v for k, v in _STUDENT_SIZE.items()},
    student_hidden_size=8,
    **{f"teacher_{k}": v for k, v in _TEACHER_SIZE.items()},
    teacher_hidden_size=128,
)
_LSTM = flags(train_data_dir_lstm="glue_lstm/train", eval_data_dir_lstm="glue_lstm/eval")
_distil_data = data.together(
    _glue,
    data_text.glue("glue_lstm/train", "train.of_record-", 4, 8, VOCAB),
    data_text.glue("glue_lstm/eval", "eval.of_record-", 2, 8, VOCAB),
    data.placeholder_weights("pretrained"),
    data.placeholder_weights("student_init"),
)
_TRAIN_TEACHER = ((f"{_DISTIL}/examples/teacher_bert/task_teacher.py", _TEACHER),)


def _distil(script: str, args: tuple[str, ...], **more) -> Program:
    """A program of the distillation examples, run from the distil folder as its scripts do
    (they put ./src on the path)."""
    more.setdefault("before", _TRAIN_TEACHER)
    return Program(
        COMPRESSION,
        f"{_DISTIL}/{script}",
        args,
        data=_distil_data,
        folder=_DISTIL,
        workdir=_DISTIL,
        **more,
    )


COMPRESSION_PROGRAMS += (
    _distil("examples/teacher_bert/task_teacher.py", _TEACHER, before=()),
    _distil("examples/knowledge_distillation/task_student_kd.py", _STUDENT + flags(kd_alpha=0.8)),
    _distil(
        "examples/distilled-bilstm/task_lstm.py",
        _GLUE
        + _LSTM
        + flags(
            do_train="True",
            do_eval="True",
            model="Glue_MRPC",
            model_save_dir="student",
            seq_length=8,
            **{f"student_{k}": v for k, v in _STUDENT_SIZE.items()},
            student_hidden_size=8,
        ),
        before=(),
    ),
    _distil(
        "examples/distilled-bilstm/task_student_kd_lstm.py",
        _STUDENT + _LSTM + flags(student_seq_length=8, kd_alpha=0.7),
    ),
    _distil(
        "examples/bert-pkd/task_student_bert-pkd.py",
        _STUDENT + flags(kd_alpha=0.2, kd_beta=10, from_scratch="False"),
    ),
    _distil(
        "examples/tinybert/task_student_tinybert.py",
        _STUDENT + flags(pred_distill="True", intermediate_distill="True"),
    ),
)

# BERT-of-Theseus (run_train_theseus.sh): the successor stage, then the student alone
_THESEUS_SIZE = flags(**dict(_TEACHER_SIZE, num_hidden_layers=4, vocab_size=VOCAB))
_THESEUS = (
    _GLUE
    + _THESEUS_SIZE
    + flags(
        do_train="True",
        model="Glue_MRPC",
        result_dir="result",
        save_last_snapshot="True",
        compress_ratio=2,
    )
)
_THESEUS_1 = _THESEUS + flags(
    model_load_dir="student_init", model_save_dir="stage1", replace_prob=0.5
)
COMPRESSION_PROGRAMS += (
    _distil("theseus/run_classifier.py", _THESEUS_1, before=()),
    _distil(
        "theseus/run_classifier.py",
        _THESEUS
        + flags(
            model_load_dir="stage1/snapshot_last_snapshot",
            model_save_dir="stage2",
            replace_prob=1.0,
            learning_rate=1e-5,
        ),
        before=(("model_compress/distil/theseus/run_classifier.py", _THESEUS_1),),
        label="second stage, replace_prob 1.0",
    ),
    Program(
        COMPRESSION,
        f"{_DISTIL}/theseus/run_pretraining.py",
        _PRETRAIN,
        data=data_text.bert_pretrain("data", 8, SEQ, 4, VOCAB),
        folder=_DISTIL,
    ),
    Program(
        COMPRESSION,
        f"{_DISTIL}/theseus/run_squad.py",
        _SQUAD,
        data=data_text.squad("squad", 4, SEQ),
        folder=_DISTIL,
    ),
)
