"""Every runnable legacy-API program of Oneflow-Inc's public model repositories of 2020-2021
that the runner knows, with its small arguments, its data and its known cause.

A program runs unchanged (``flowjob run``, with the library behaviours of 2021 that
``_launch.py`` restores) in a fresh copy of its folder, where its data was written first.
Arguments shrink it to a few steps on a tiny batch; device counts become 1. The lists are in
``programs_*.py``, one module per repository (or group of small ones); ``EXCLUDED`` names the
programs found that do not run as published, under OneFlow either.
"""

from __future__ import annotations

from tests.upstream import COMPRESSION, NLP, VISION, Upstream

from .program import Cause, Known, Program
from .programs_benchmark import BENCHMARK_PROGRAMS
from .programs_compression import _QUANT, COMPRESSION_PROGRAMS
from .programs_more import AUDIO_PROGRAMS, FACE_PROGRAMS, IMAGINAIRE_PROGRAMS, YOLOV3_PROGRAMS
from .programs_nlp import NLP_PROGRAMS
from .programs_vision import VISION_PROGRAMS

__all__ = ["EXCLUDED", "PROGRAMS", "Cause", "Known", "Program"]

PROGRAMS: tuple[Program, ...] = (
    *VISION_PROGRAMS,
    *NLP_PROGRAMS,
    *COMPRESSION_PROGRAMS,
    *IMAGINAIRE_PROGRAMS,
    *AUDIO_PROGRAMS,
    *FACE_PROGRAMS,
    *YOLOV3_PROGRAMS,
    *BENCHMARK_PROGRAMS,
)


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
