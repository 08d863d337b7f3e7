"""ONNX export of OneFlow-Benchmark's CNNs and BERT, run under onnxruntime.

The model files are read from a OneFlow-Benchmark clone (``FLOWJOB_BENCHMARK_SRC``; ``git
archive`` of the pinned commit into a temporary folder) and imported unchanged by a small
driver that ``flowjob run`` starts: it defines a predict job around the model (as the
benchmark's ``of_cnn_inference.py`` does, logits instead of probabilities, random
variables), exports it and compares onnxruntime's output with the job's.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from tests.timeouts import scaled

REPO = Path(__file__).resolve().parents[2]
COMMIT = "e64f95a6a8c14b5fa0041aa76f054f5d8787c0f4"
CLONE = os.environ.get("FLOWJOB_BENCHMARK_SRC")
if not CLONE:
    pytest.skip(
        "needs a OneFlow-Benchmark clone: git clone "
        "https://github.com/Oneflow-Inc/OneFlow-Benchmark and set "
        "FLOWJOB_BENCHMARK_SRC=<clone>",
        allow_module_level=True,
    )
pytest.importorskip("onnxruntime")

# Driver: argv[1] is the model; prints the largest deviation and exits 1 beyond tolerance
# (onnxruntime's own float32 kernels; see test_onnx.py).
DRIVER = """
import sys
import numpy as np
import onnxruntime
import oneflow as flow
import oneflow.typing as tp

which = sys.argv[1]
rng = np.random.default_rng(0)
if which == "bert":
    sys.path.insert(0, "LanguageModeling/BERT")
    import bert
    seq = 16
    shape, dtype = (2, seq), flow.int32

    @flow.global_function("predict")
    def infer(ids: tp.Numpy.Placeholder(shape, dtype=dtype),
              mask: tp.Numpy.Placeholder(shape, dtype=dtype),
              types: tp.Numpy.Placeholder(shape, dtype=dtype)) -> tp.Numpy:
        backbone = bert.BertBackbone(ids, mask, types, vocab_size=120, seq_length=seq,
                                     hidden_size=64, num_hidden_layers=2,
                                     num_attention_heads=4, intermediate_size=128,
                                     max_position_embeddings=seq, type_vocab_size=2)
        return backbone.sequence_output()

    mask = np.ones(shape, np.int32)
    mask[:, 12:] = 0
    inputs = {"ids": rng.integers(0, 120, shape).astype(np.int32), "mask": mask,
              "types": rng.integers(0, 2, shape).astype(np.int32)}
else:
    sys.path.insert(0, "Classification/cnns")
    import config
    args = config.get_parser().parse_args([])
    # resnet50_nhwc: the benchmark's channel-last options, with fused batch norm + relu (+ add)
    nhwc = which == "resnet50_nhwc"
    args.channel_last = args.pad_output = args.fuse_bn_relu = args.fuse_bn_add_relu = nhwc
    which = "resnet50" if nhwc else which
    if which == "inceptionv3":
        import inception_model
        size, model = 299, lambda x: inception_model.inceptionv3(x, trainable=False)
    else:
        import alexnet_model, mobilenet_v2_model, resnet_model, vgg_model
        size = 227 if which == "alexnet" else 224
        build = {"resnet50": resnet_model.resnet50, "vgg": vgg_model.vgg16bn,
                 "alexnet": alexnet_model.alexnet,
                 "mobilenetv2": mobilenet_v2_model.Mobilenet}[which]
        model = (lambda x: build(x, args, trainable=False)) if which == "alexnet" else \\
            (lambda x: build(x, args, trainable=False, training=False))

    image_shape = (1, size, size, 3) if nhwc else (1, 3, size, size)

    @flow.global_function("predict")
    def infer(images: tp.Numpy.Placeholder(image_shape)) -> tp.Numpy:
        return model(images)

    inputs = {"images": rng.standard_normal(image_shape).astype(np.float32)}

# batch-norm statistics and scales away from their initial 0/1, so every op counts
values = {}
for name, blob in flow.get_all_variables().items():
    value = blob.numpy()
    noise = rng.standard_normal(value.shape).astype(value.dtype)
    if name.endswith(("moving_mean", "beta")):
        values[name] = 0.1 * noise
    elif name.endswith("moving_variance"):
        values[name] = 1.0 + 0.2 * np.abs(noise)
    elif name.endswith("gamma"):
        values[name] = 1.0 + 0.2 * noise
flow.load_variables(values)
expected = infer(*inputs.values())
flow.onnx.export(infer, None, "model.onnx", opset=13)
session = onnxruntime.InferenceSession("model.onnx", providers=["CPUExecutionProvider"])
[got] = session.run(None, inputs)
scale = float(np.abs(expected).max())
error = float(np.abs(got - expected).max())
print(f"{which}: output {expected.shape}, max |output| {scale:.4g}, max deviation {error:.3g}")
sys.exit(0 if np.allclose(got, expected, rtol=1e-4, atol=1e-4 * max(scale, 1e-3)) else 1)
"""


@pytest.fixture(scope="module")
def benchmark_dir(tmp_path_factory) -> Path:
    done = subprocess.run(
        [
            "git",
            "-C",
            CLONE,
            "archive",
            "--format=tar",
            COMMIT,
            "Classification/cnns",
            "LanguageModeling/BERT",
        ],
        capture_output=True,
        timeout=scaled(300),
    )
    if done.returncode != 0:
        pytest.fail(
            f"git archive {COMMIT} in {CLONE} failed: "
            f"{done.stderr.decode(errors='replace').strip()}"
        )
    root = tmp_path_factory.mktemp("benchmark")
    with tarfile.open(fileobj=io.BytesIO(done.stdout)) as tar:
        # the "data" filter (no links out, no device files) where this Python has it
        tar.extractall(root, **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))
    (root / "driver.py").write_text(DRIVER, encoding="utf-8")
    return root


@pytest.mark.slow
@pytest.mark.parametrize(
    "model", ["alexnet", "vgg", "resnet50", "resnet50_nhwc", "mobilenetv2", "inceptionv3", "bert"]
)
def test_benchmark_model_onnx(benchmark_dir, model):
    env = dict(os.environ, JAX_PLATFORMS="cpu", PYTHONPATH=str(REPO))
    proc = subprocess.run(
        [sys.executable, "-m", "flowjob", "run", "driver.py", model],
        cwd=benchmark_dir,
        env=env,
        capture_output=True,
        text=True,
        timeout=scaled(1800),
    )
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-6000:]
    [summary] = [line for line in proc.stdout.splitlines() if ": output" in line]
    print(summary)  # shown with -s: the deviation measured
