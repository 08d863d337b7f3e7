"""OneFlow-Benchmark: the programs tests/compat runs (counted through those tests) and the
others."""

from __future__ import annotations

from tests.upstream import BENCHMARK, ONEFLOW_ONNX

from . import data, data_text
from ._common import _CLASSIFY, _SQUAD, SEQ, VOCAB, _glue, flags
from .program import Program

# OneFlow-Benchmark at the commit tests/compat pins: the programs those tests run are counted
# through them; the others run here.
_CNNS = "tests/compat/test_benchmark_programs.py"
_WDL = "ClickThroughRate/WideDeepLearning"
_WDL_FLAGS = flags(
    train_data_dir="wdl/train",
    train_data_part_num=2,
    train_part_name_suffix_length=5,
    eval_data_dir="wdl/val",
    eval_data_part_num=2,
    eval_part_name_suffix_length=5,
    batch_size=32,
    wide_vocab_size=64,
    deep_vocab_size=64,
    deep_embedding_vec_size=4,
    hidden_units_num=2,
    hidden_size=16,
    deep_dropout_rate=0,
    learning_rate=0.003,
    loss_print_every_n_iter=1,
)
_GPT = flags(
    **{
        "num-layers": 1,
        "hidden-size": 16,
        "num-attention-heads": 2,
        "micro-batch-size": 2,
        "global-batch-size": 2,
        "num-gpus-per-node": 1,
        "num-nodes": 1,
        "node-ips": "127.0.0.1",
        "train-iters": 3,
        "dataset": "data/gpt_sample_dataset_text_document",
        "seq-length": 8,
        "vocab-size": VOCAB,
        "split": "949,50,1",
        "learning-rate": 0.00015,
        "min-lr": 1.0e-5,
        "lr-decay-style": "cosine",
        "lr-decay-iters": 320000,
        "lr-warmup-fraction": 0.01,
        "optimizer": "adamw",
        "initial-loss-scale": 4294967296,
        "weight-decay": 1e-2,
        "clip-grad": 1.0,
        "load": "checkpoint",
        "save": "checkpoint",
        "save-interval": 10000,
        "log-interval": 1,
    }
) + ("--checkpoint-activations", "--multihead-attention-fusion", "--fp16")
BENCHMARK_PROGRAMS = (
    Program(
        BENCHMARK,
        "Classification/cnns/of_cnn_train_val.py",
        covered_by=f"{_CNNS}::test_cnn_trains_on_synthetic_data_and_infers_from_its_checkpoint"
        "[alexnet]",
        timeout=1200,
    ),
    Program(
        BENCHMARK,
        "Classification/cnns/of_cnn_inference.py",
        covered_by=f"{_CNNS}::test_cnn_trains_on_synthetic_data_and_infers_from_its_checkpoint"
        "[alexnet]",
        timeout=1200,
    ),
    Program(
        BENCHMARK,
        "Classification/cnns/of_cnn_evaluate.py",
        covered_by=f"{_CNNS}::test_cnn_trains_and_evaluates_on_ofrecord_jpegs[alexnet-0.005]",
        timeout=1200,
    ),
    # Its ResNet-50 weights (a download) come from one training step of of_cnn_train_val.py;
    # it converts with oneflow-onnx (the oneflow_onnx package of tests/oneflow_onnx's clone).
    Program(
        BENCHMARK,
        "Classification/cnns/resnet_to_onnx.py",
        data=data.together(
            data.link("resnet_v15_of_best_model_val_top1_77318", "out/snapshot_epoch_0"),
            data.image_files("data", 1, 64, 64, "tiger.jpg"),
        ),
        before=(
            (
                "Classification/cnns/of_cnn_train_val.py",
                flags(
                    model="resnet50",
                    gpu_num_per_node=1,
                    batch_size_per_device=2,
                    num_examples=2,
                    num_epochs=1,
                    warmup_epochs=0,
                    model_save_dir="out",
                    log_dir="log",
                ),
            ),
        ),
        requires=((ONEFLOW_ONNX, "oneflow_onnx"),),
        expect=r"^Are the results equal\? Yes",
    ),
    Program(
        BENCHMARK,
        "LanguageModeling/BERT/run_pretraining.py",
        covered_by="tests/compat/test_benchmark_data_programs.py::test_bert_pretraining_loss_falls",
    ),
    Program(BENCHMARK, "LanguageModeling/BERT/run_classifier.py", _CLASSIFY, data=_glue),
    Program(
        BENCHMARK,
        "LanguageModeling/BERT/run_squad.py",
        _SQUAD,
        data=data_text.squad("squad", 4, SEQ),
    ),
    Program(
        BENCHMARK,
        f"{_WDL}/wdl_train_eval.py",
        covered_by="tests/compat/test_benchmark_data_programs.py::test_wide_and_deep_loss_falls"
        "[ofrecord]",
    ),
    Program(
        BENCHMARK,
        f"{_WDL}/wdl_train_eval_test.py",
        _WDL_FLAGS
        + flags(
            test_data_dir="wdl/val",
            test_data_part_num=2,
            test_part_name_suffix_length=5,
            train_data_num=64,
            eval_data_num=32,
            test_data_num=32,
            epoch_num=1,
            gpu_num=1,
        ),
        data=data_text.wdl("wdl"),
    ),
    Program(
        BENCHMARK,
        f"{_WDL}/wdl_train_eval_with_hybrid_embd.py",
        _WDL_FLAGS
        + flags(
            hf_wide_vocab_size=32,
            hf_deep_vocab_size=32,
            max_iter=3,
            eval_interval=3,
            eval_batchs=2,
            gpu_num_per_node=1,
        ),
        data=data_text.wdl("wdl"),
    ),
    Program(
        BENCHMARK,
        "Generative/dcgan.py",
        covered_by="tests/compat/test_benchmark_dcgan.py",
        timeout=1500,
    ),
    Program(
        BENCHMARK,
        "LanguageModeling/GPT/oneflow_gpt/training.py",
        _GPT,
        data=data_text.gpt_corpus("data/gpt_sample_dataset_text_document", VOCAB),
        folder="LanguageModeling/GPT",
        workdir="LanguageModeling/GPT",
        pythonpath=("LanguageModeling/GPT",),
    ),
)
