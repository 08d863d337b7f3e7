"""Every runnable legacy-API program of Oneflow-Inc's public model repositories of 2020-2021
that the runner knows, with its small arguments, its data and its known cause.

A program runs unchanged (``flowjob run``, with the 2021 NumPy names of
``tests/oneflow_v040/_launch.py``) in a fresh copy of its folder, where its data was written
first. Arguments shrink it to a few steps on a tiny batch; device counts become 1.
"""

from __future__ import annotations

import numpy as np

from tests.upstream import (
    AUDIO,
    BENCHMARK,
    COMPRESSION,
    IMAGINAIRE,
    NLP,
    ONEFLOW_FACE,
    VISION,
    YOLOV3,
    Upstream,
)

from . import data, data_text
from .program import Cause, Known, Program

__all__ = ["PROGRAMS", "Cause", "Known", "Program"]

_FACE_SEG = (
    "--dataset_dir",
    "data/",
    "--img_height",
    "64",
    "--img_width",
    "64",
    "--train_batch_size",
    "2",
    "--val_batch_size",
    "2",
)
_face_seg_data = data.together(
    data.npy("data/img_train.npy", (4, 3, 64, 64)),
    data.npy("data/mask_train.npy", (4, 1, 64, 64), np.float32, 1.0),
    data.npy("data/img_val.npy", (2, 3, 64, 64)),
    data.npy("data/mask_val.npy", (2, 1, 64, 64)),
    data.placeholder_weights("backbone"),
)

_SCNET_TRAIN = (
    "--train_data_dir",
    "data/train",
    "--train_data_part_num",
    "1",
    "--val_data_dir",
    "data/val",
    "--val_data_part_num",
    "1",
    "--num_examples",
    "2",
    "--num_val_examples",
    "2",
    "--batch_size_per_device",
    "2",
    "--num_epochs",
    "1",
    "--warmup_epochs",
    "0",
    "--model_save_dir",
    "out",
    "--log_dir",
    "log",
)
_scnet_data = data.together(
    data.imagenet_ofrecord("data/train", 4, 64, fields=("images", "labels")),
    data.imagenet_ofrecord("data/val", 2, 64, fields=("images", "labels")),
)

VISION_PROGRAMS = (
    Program(VISION, "LeNet/LeNet.py", data=data.mnist_npz(200, 100), expect=r"^Epoch: 10 "),
    Program(
        VISION,
        "DCGAN/of_dcgan.py",
        ("--epoch_num", "1", "--batch_size", "30000", "--path", "out"),
        data=data.mnist_idx("data/mnist"),
    ),
    # Its training call is commented out at this commit: a run turns the test images of an
    # earlier run into a GIF.
    Program(
        VISION,
        "Pix2Pix/of_pix2pix.py",
        ("--path", "out"),
        data=data.image_files("out/test_images", 3, 64, 64, "_image.png"),
    ),
    Program(
        VISION,
        "TTSR/of_ttsr.py",
        ("--epochs", "1", "--batch_size", "1", "--path", "out", "--vgg_path", "vgg"),
        data=data.together(
            data.image_files("data/train/input", 1, 160, 160, ".png"),
            data.image_files("data/train/ref", 1, 160, 160, ".png"),
            data.image_files("data/test/CUFED5", 1, 160, 160, "_0.png"),
            data.image_files("data/test/CUFED5", 1, 160, 160, "_1.png"),
            data.placeholder_weights("vgg"),
        ),
    ),
    Program(
        VISION, "Scnet/train.py", _SCNET_TRAIN, data=_scnet_data, folder="Scnet", pythonpath=("",)
    ),
    Program(
        VISION,
        "Scnet/inference.py",
        (
            "--model_load_dir",
            "out/snapshot_epoch_0",
            "--image_path",
            "img/0.png",
            "--log_dir",
            "log",
        ),
        data=data.together(_scnet_data, data.image_files("img", 1, 64, 64, ".png")),
        pythonpath=("",),
        before=(("Scnet/train.py", _SCNET_TRAIN),),
    ),
)


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

PROGRAMS: tuple[Program, ...] = (*VISION_PROGRAMS, *NLP_PROGRAMS)

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

PROGRAMS = (*PROGRAMS, *COMPRESSION_PROGRAMS)

# pix2pixHD's CelebA scripts at 32 pixels, a small generator and one discriminator without
# the VGG loss (its weights are a download). The trainer runs its 1,000 epochs (hard-coded)
# over the one image; the tester reads the CelebA label maps the repository holds.
_HD = flags(
    loadSize=32,
    gpu_nums=1,
    batchSize=1,
    netG="global",
    label_nc=19,
    ngf=4,
    n_downsample_global=2,
    n_blocks_global=1,
    dataroot="datasets/CelebA_HQ",
) + ("--no_instance",)
_hd_data = data.together(
    data.label_maps("datasets/CelebA_HQ/train_label", 1, 32, 4),
    data.image_files("datasets/CelebA_HQ/train_img", 1, 32, 32, ".jpg"),
    data.placeholder_weights("pretrain"),
)
IMAGINAIRE_PROGRAMS = (
    Program(
        IMAGINAIRE,
        "pix2pixHD/train_of_pix2pixhd.py",
        _HD
        + flags(ndf=4, num_D=1, n_layers_D=1, checkpoints_dir="ckpt", lr=0.00002)
        + ("--no_vgg_loss",),
        data=_hd_data,
        # Each of its 1,000 epochs saves a checkpoint (every 300th image, and here the first);
        # a whole run passed once in 397 s at this commit.
        stop_after=r"^epoch 2, iter 0, ",
    ),
    Program(
        IMAGINAIRE,
        "pix2pixHD/test_of_pix2pixhd.py",
        _HD + flags(load_pretrain="pretrain", results_dir="results"),
        data=_hd_data,
    ),
    Program(
        IMAGINAIRE,
        "FUNIT/train.py",
        flags(
            num_gpus=1,
            batch_size=1,
            label_nc=4,
            gen_num_filters=4,
            gen_num_filters_mlp=8,
            gen_style_dims=4,
            dis_num_filters=4,
            dis_max_num_filters=16,
            dis_num_layers=2,
            epoch=2,
            image_size=64,
        ),
    ),
)
PROGRAMS = (*PROGRAMS, *IMAGINAIRE_PROGRAMS)

# GE2E speaker verification: config/config.yaml (training: false) evaluates a trained model
# (stood for by placeholder weights) on 4 speakers' preprocessed TIMIT spectrograms.
AUDIO_PROGRAMS = (
    Program(
        AUDIO,
        "Speaker_Verification_GE2Eloss/train_speech_embedder_oneflow.py",
        data=data.together(
            *(data.npy(f"test_tisv/speaker{i}.npy", (6, 40, 180)) for i in range(4)),
            data.placeholder_weights("speech_id_checkpoint/final_epoch_950_batch_id_141model"),
        ),
    ),
)
PROGRAMS = (*PROGRAMS, *AUDIO_PROGRAMS)

# InsightFace (OneFlow's port, April 2021): the trainer is run by its own test; the validator
# evaluates a model (placeholder weights) on LFW, CFP-FP and AgeDB-30 pairs as OFRecords.
_face_val_data = data.together(
    *(
        data.imagenet_ofrecord(  # image pairs, alternately of one face and of two
            f"val/{name}",
            8,
            112,
            fields=("encoded", "issame"),
            suffix_length=1,
            labels=np.arange(8) // 2 % 2,
        )
        for name in ("lfw", "cfp_fp", "agedb_30")
    ),
    data.placeholder_weights("model"),
)
FACE_PROGRAMS = (
    Program(
        ONEFLOW_FACE,
        "insightface_train.py",
        covered_by="tests/compat/test_oneflow_face.py",
        timeout=1500,
    ),
    Program(
        ONEFLOW_FACE,
        "insightface_val.py",
        flags(
            network="y1",
            val_batch_size=4,
            device_num_per_node=1,
            nrof_folds=2,
            lfw_dataset_dir="val/lfw",
            cfp_fp_dataset_dir="val/cfp_fp",
            agedb_30_dataset_dir="val/agedb_30",
            lfw_total_images_num=8,
            cfp_fp_total_images_num=8,
            agedb_30_total_images_num=8,
            model_load_dir="model",
            log_dir="log",
        ),
        data=_face_val_data,
    ),
)
PROGRAMS = (*PROGRAMS, *FACE_PROGRAMS)

# YOLOv3: every program loads the repository's own C++/CUDA op library (yolo_detect,
# yolo_decode... built by its CMakeLists.txt into liboneflow_yolov3.so) when it starts.
_YOLO_LIBRARY = Known(
    Cause.CPP_OP_LIBRARY,
    "liboneflow_yolov3.so (the repository's CMake-built yolo ops), loaded at start",
    r"no \.so found|OpLibraryError|load_library",
)
_YOLO_MODEL = "of_model/of_yolov3_model/"
YOLOV3_PROGRAMS = tuple(
    Program(
        YOLOV3,
        f"oneflow_yolov3/model/{name}",
        args,
        folder="",
        pythonpath=("",),
        workdir="",
        known=_YOLO_LIBRARY,
    )
    for name, args in (  # the command lines of yolo_train.sh, yolo_evaluate.sh, yolo_predict.sh
        (
            "yolo_train.py",
            flags(
                gpu_num_per_node=1,
                batch_size=4,
                base_lr=0.001,
                num_epoch=1,
                model_load_dir=_YOLO_MODEL,
                classes=80,
                num_boxes=90,
                save_frequency=1,
                model_save_dir="save_model",
                dataset_dir="data/test_trainvalno5k.txt",
            ),
        ),
        (
            "yolo_evaluate.py",
            flags(
                gpu_num_per_node=1,
                batch_size=1,
                model_load_dir=_YOLO_MODEL,
                label_path="data/coco.names",
                use_tensorrt=0,
                nms_thres=0.5,
                conf_thres=0.001,
                iou_thres=0.5,
                image_paths="data/test_trainvalno5k.txt",
            ),
        ),
        *(
            (
                name,
                flags(
                    pretrained_model=_YOLO_MODEL,
                    label_path="data/coco.names",
                    input_dir="data/images",
                    output_dir="data/result",
                ),
            )
            for name in ("predict_with_print_box.py", "python_load_data_predict_with_print_box.py")
        ),
    )
)
PROGRAMS = (*PROGRAMS, *YOLOV3_PROGRAMS)

# OneFlow-Benchmark at the commit tests/compat pins: the programs those tests run are counted
# through them; the others run here.
_CNNS = "tests/compat/test_benchmark_programs.py"
_WDL = "ClickThroughRate/WideDeepLearning"
_WDL_FLAGS = flags(
    train_data_dir="wdl/train", train_data_part_num=2, train_part_name_suffix_length=5,
    eval_data_dir="wdl/val", eval_data_part_num=2, eval_part_name_suffix_length=5,
    batch_size=32, wide_vocab_size=64, deep_vocab_size=64, deep_embedding_vec_size=4,
    hidden_units_num=2, hidden_size=16, deep_dropout_rate=0, learning_rate=0.003,
    loss_print_every_n_iter=1,
)
_GPT = flags(
    **{
        "num-layers": 1, "hidden-size": 16, "num-attention-heads": 2, "micro-batch-size": 2,
        "global-batch-size": 2, "num-gpus-per-node": 1, "num-nodes": 1, "node-ips": "127.0.0.1",
        "train-iters": 3,
        "dataset": "data/gpt_sample_dataset_text_document", "seq-length": 8,
        "vocab-size": VOCAB, "split": "949,50,1", "learning-rate": 0.00015, "min-lr": 1.0e-5,
        "lr-decay-style": "cosine", "lr-decay-iters": 320000, "lr-warmup-fraction": 0.01,
        "optimizer": "adamw", "initial-loss-scale": 4294967296, "weight-decay": 1e-2,
        "clip-grad": 1.0, "load": "checkpoint", "save": "checkpoint", "save-interval": 10000,
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
    Program(
        BENCHMARK,
        "Classification/cnns/resnet_to_onnx.py",
        data=data.together(
            data.placeholder_weights("resnet_v15_of_best_model_val_top1_77318"),
            data.image_files("data", 1, 64, 64, "tiger.jpg"),
        ),
    ),
    Program(
        BENCHMARK,
        "LanguageModeling/BERT/run_pretraining.py",
        covered_by="tests/compat/test_benchmark_data_programs.py::test_bert_pretraining_loss_falls",
    ),
    Program(BENCHMARK, "LanguageModeling/BERT/run_classifier.py", _CLASSIFY, data=_glue),
    Program(
        BENCHMARK, "LanguageModeling/BERT/run_squad.py", _SQUAD, data=data_text.squad("squad", 4, SEQ)
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
        _WDL_FLAGS + flags(
            test_data_dir="wdl/val", test_data_part_num=2, test_part_name_suffix_length=5,
            train_data_num=64, eval_data_num=32, test_data_num=32, epoch_num=1, gpu_num=1,
        ),
        data=data_text.wdl("wdl"),
    ),
    Program(
        BENCHMARK,
        f"{_WDL}/wdl_train_eval_with_hybrid_embd.py",
        _WDL_FLAGS + flags(
            hf_wide_vocab_size=32, hf_deep_vocab_size=32, max_iter=3, eval_interval=3,
            eval_batchs=2, gpu_num_per_node=1,
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
PROGRAMS = (*PROGRAMS, *BENCHMARK_PROGRAMS)

# Programs found but not runnable as published, under OneFlow either: (repository, path, why).
EXCLUDED: tuple[tuple[Upstream, str, str], ...] = (
    *(
        (
            COMPRESSION,
            f"{_QUANT}/{name}",
            "merge-conflict markers (<<<<<<< HEAD) in its config.py, util.py, ofrecord_util.py",
        )
        for name in ("of_cnn_train_val.py", "of_cnn_evaluate.py", "of_cnn_inference.py")
    ),
    (
        COMPRESSION,
        f"{_QUANT}/resnet_to_onnx.py",
        "calls resnet50(images, training=False); its resnet_model.resnet50 needs an args",
    ),
    (VISION, "AP3D/train.py", "imports models/AP3D.py, which has a syntax error"),
    (VISION, "AP3D/test-all.py", "imports models/AP3D.py, which has a syntax error"),
    (VISION, "face_seg/train.py", "a syntax error (an unclosed print call) at every commit"),
    (VISION, "face_seg/eval.py", "imports face_seg/train.py, which has a syntax error"),
    *(
        (VISION, f"poseNet/{name}", "imports resnet_model, vgg_model... that its folder lacks")
        for name in ("of_cnn_train_val.py", "of_cnn_evaluate.py", "of_cnn_inference.py")
    ),
    (
        NLP,
        "LanguageModeling/RoBERTa/run_pretraining.py",
        "its job returns a dict holding the float 0.0 (no NSP loss); OneFlow's "
        "_RecursiveMakeRetRemoteBlobs raised NotImplementedError for it",
    ),
    (NLP, "LanguageModeling/RoBERTa/run_squad.py", "imports bert.py, which its folder lacks"),
)
