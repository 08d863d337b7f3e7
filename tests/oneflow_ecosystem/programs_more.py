"""oneflow_imaginaire, oneflow_audio_model, oneflow_face and oneflow_yolov3."""

from __future__ import annotations

import numpy as np

from tests.upstream import AUDIO, IMAGINAIRE, ONEFLOW_FACE, YOLOV3

from . import data
from ._common import flags
from .program import Cause, Known, Program

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
