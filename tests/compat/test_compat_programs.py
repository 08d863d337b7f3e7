"""OneFlow programs of both API generations, unchanged, through ``python -m flowjob run``.

References are independent of flowjob: softmax/cross-entropy and the models' forward passes
in NumPy/JAX from the raw checkpoint files, TensorBoard's own event reader.
"""

from __future__ import annotations

import re
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

PROGRAMS = Path(__file__).resolve().parent / "programs"
FLOAT = r"-?\d+\.?\d*(?:e[-+]?\d+)?"


# -- independent references ------------------------------------------------------------------
def softmax(z: np.ndarray) -> np.ndarray:
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def read_checkpoint(path: Path) -> dict[str, np.ndarray]:
    """OneFlow layout: ``<var>/out`` raw bytes, ``<var>/meta`` text proto with shape and dtype."""
    assert (path / "snapshot_done").is_file()
    dtypes = {"kFloat": np.float32, "kDouble": np.float64, "kInt32": np.int32, "kInt64": np.int64}
    variables = {}
    for var in path.iterdir():
        if not (var / "out").is_file():
            continue
        meta = (var / "meta").read_text()
        shape = tuple(int(d) for d in re.findall(r"dim: (\d+)", meta))
        dtype = dtypes[re.search(r"data_type: (\w+)", meta).group(1)]
        variables[var.name] = np.fromfile(var / "out", dtype=dtype).reshape(shape)
    return variables


def lenet_logits(
    v: dict[str, np.ndarray], images: np.ndarray, names=("conv1", "conv2", "dense1", "dense2")
) -> np.ndarray:
    """The docs' LeNet (eval mode) in JAX: conv 5x5 SAME + relu, 2x2 max-pool, dense, dense."""
    x = jnp.asarray(images)
    for conv in names[:2]:
        x = jax.lax.conv_general_dilated(
            x, v[f"{conv}-weight"], (1, 1), "SAME", dimension_numbers=("NCHW", "OIHW", "NCHW")
        )
        x = jax.nn.relu(x + v[f"{conv}-bias"][None, :, None, None])
        x = jax.lax.reduce_window(x, -jnp.inf, jax.lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")
    x = x.reshape(x.shape[0], -1)
    x = jax.nn.relu(x @ v[f"{names[2]}-weight"].T + v[f"{names[2]}-bias"])
    return np.asarray(x @ v[f"{names[3]}-weight"].T + v[f"{names[3]}-bias"])


def mlp_logits(v: dict[str, np.ndarray], images: np.ndarray) -> np.ndarray:
    """The docs' MLP; its two dense layers are found by shape (their names vary by version)."""
    by_shape = {a.shape: a for name, a in v.items() if name.endswith(("-weight", "-bias"))}
    x = images.reshape(len(images), -1)
    hidden = np.maximum(x @ by_shape[(512, 784)].T + by_shape[(512,)], 0)
    return hidden @ by_shape[(10, 512)].T + by_shape[(10,)]


def accuracy_line(logits: np.ndarray, labels: np.ndarray) -> str:
    correct = int(np.sum(np.argmax(logits, 1) == labels))
    return f"accuracy: {correct * 100 / len(labels):.1f}%"  # the docs' "{0:.1f}%" format


def float_lines(text: str) -> list[float]:
    return [float(line) for line in text.splitlines() if re.fullmatch(FLOAT, line.strip())]


def docs_normalised(images_uint8: np.ndarray) -> np.ndarray:
    """The docs' mnist_util.load_data normalisation, (x - 128) / 255, as (N, 1, 28, 28)."""
    return ((images_uint8.astype(np.float32) - 128.0) / 255.0)[:, None]


def warnings_of(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("WARNING:")]


# -- watch -----------------------------------------------------------------------------------
@pytest.mark.parametrize("generation", ["late2020", "single_client"])
def test_watch_program(flowjob_run, generation):
    proc = flowjob_run(PROGRAMS / generation / "test_watch.py")
    assert proc.returncode == 0, proc.stderr
    found = re.search(r"in: \[([^\]]*)\]\s+out: \[([^\]]*)\]", proc.stdout)
    x, y = (np.array(group.split(), dtype=np.float32) for group in found.groups())
    assert x.shape == (5,) and np.all(np.abs(x) <= 1)
    np.testing.assert_array_equal(y, np.maximum(x, 0))


@pytest.mark.parametrize("generation", ["late2020", "single_client"])
def test_watch_diff_program_on_mnist(flowjob_run, mnist_npz, tmp_path, generation):
    # 21 batches of 100: the program prints the loss at steps 0 and 20.
    _, y_train, _, _ = mnist_npz(tmp_path, 2100, 100)
    proc = flowjob_run(PROGRAMS / generation / "test_watch_diff.py")
    assert proc.returncode == 0, proc.stderr
    pattern = rf"watch_diff_handler: (\[\[.*?\]\]) \((\d+), (\d+)\) (\w+)\n({FLOAT}\n)?"
    calls = re.findall(pattern, proc.stdout, re.S)
    assert len(calls) == 21
    losses = float_lines(proc.stdout)
    assert len(losses) == 2
    printed_losses = []
    for step, (text, rows, cols, dtype, loss_line) in enumerate(calls):
        assert (int(rows), int(cols), dtype) == (100, 10, "float32")
        grad = np.array(text.replace("[", " ").replace("]", " ").split(), dtype=np.float64)
        grad = grad.reshape(100, 10)
        labels = y_train[step * 100 : (step + 1) * 100]
        # d(sum of per-example losses)/d(logits) = softmax - one_hot, not divided by 100.
        probs = grad + np.eye(10)[labels]
        assert np.all(probs > -1e-7) and np.all(probs < 1 + 1e-7)
        np.testing.assert_allclose(probs.sum(axis=1), 1.0, atol=1e-6)
        assert np.all(np.argmin(grad, axis=1) == labels)
        if loss_line:  # printed right after this step's handler: mean cross-entropy
            np.testing.assert_allclose(
                float(loss_line), np.mean(-np.log(probs[range(100), labels])), rtol=1e-4
            )
            printed_losses.append(float(loss_line))
    assert printed_losses == losses and [i for i, c in enumerate(calls) if c[4]] == [0, 20]
    assert losses[1] < losses[0]


def test_mid2020_watch_program(flowjob_run):
    proc = flowjob_run(PROGRAMS / "mid2020" / "watch_watch_diff.py")
    assert proc.returncode == 0, proc.stderr
    labels = np.array(eval(re.search(r"^labels (.*)$", proc.stdout, re.M).group(1)))
    steps = re.findall(
        r"logits \(8, 10\) float32 (.*)\nlogits_grad \(8, 10\) float32 (.*)\n"
        rf"loss ({FLOAT}) (.*)\n",
        proc.stdout,
    )
    assert len(steps) == 3
    means = []
    for logits, grad, mean, per_example in steps:
        logits, grad = np.array(eval(logits)), np.array(eval(grad))
        probs = softmax(logits)
        np.testing.assert_allclose(grad, probs - np.eye(10)[labels], atol=1e-6)
        expected = -np.log(probs[range(8), labels])
        np.testing.assert_allclose(eval(per_example), expected, rtol=1e-5)
        np.testing.assert_allclose(float(mean), expected.mean(), rtol=1e-5)
        means.append(float(mean))
    assert means[2] < means[1] < means[0]  # config.train.primary_lr(0.1) SGD is training
    warnings = warnings_of(proc.stderr)
    assert len(warnings) == len(set(warnings))  # each deprecation once, as OneFlow printed them
    for expected in (
        "func_config.train.* has been deprecated",
        "global_function(func_config) is deprecated",
        "oneflow.FixedTensorDef has been deprecated",
        "fixed_placement will be removed",
        "LocalBlob.ndarray is deprecated",
        "CheckPoint",
    ):
        assert any(expected in line for line in warnings), (expected, warnings)


# -- the result programs (seed 003 and their v0.2-v0.4 versions) -------------------------------
@pytest.mark.slow
def test_mid2020_lenet_train_then_eval(flowjob_run, mnist_npz, tmp_path):
    x_train, y_train, _, _ = mnist_npz(tmp_path, 200, 100)
    proc = flowjob_run(PROGRAMS / "mid2020" / "synchronize_single_job.py")
    assert proc.returncode == 0, proc.stderr
    assert len(float_lines(proc.stdout)) == 1  # step 0 of the 2 steps
    variables = read_checkpoint(tmp_path / "lenet_models_1")
    assert variables["hidden-weight"].shape == (512, 7 * 7 * 64)
    proc = flowjob_run(PROGRAMS / "mid2020" / "synchronize_batch_job.py")
    assert proc.returncode == 0, proc.stderr
    # The docs' eval program iterates over the *training* images; no dropout in a predict job.
    logits = lenet_logits(
        variables, docs_normalised(x_train), names=("conv1", "conv2", "hidden", "outlayer")
    )
    assert proc.stdout.strip().splitlines()[-1] == accuracy_line(logits, y_train)


def test_mid2020_mlp_async_train_then_eval(flowjob_run, mnist_npz, tmp_path):
    _, _, x_test, y_test = mnist_npz(tmp_path, 200, 200)
    proc = flowjob_run(PROGRAMS / "mid2020" / "async_single_job.py")
    assert proc.returncode == 0, proc.stderr
    losses = float_lines(proc.stdout)  # 50 epochs of 2 steps, printed every 20 callbacks
    assert len(losses) == 5 and losses[-1] < losses[0]
    variables = read_checkpoint(tmp_path / "mlp_models_1")
    # The docs' program prints the accuracy without waiting for its callbacks: --sync.
    proc = flowjob_run(PROGRAMS / "mid2020" / "async_batch_job.py", options=("--sync",))
    assert proc.returncode == 0, proc.stderr
    expected = accuracy_line(mlp_logits(variables, docs_normalised(x_test)), y_test)
    assert proc.stdout.strip().splitlines()[-1] == expected


@pytest.mark.slow
def test_late2020_lenet_train_then_eval(flowjob_run, mnist_npz, tmp_path):
    _, _, x_test, y_test = mnist_npz(tmp_path, 100, 200)
    proc = flowjob_run(PROGRAMS / "late2020" / "synchronize_single_job.py", timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert len(float_lines(proc.stdout)) == 20  # step 0 of each of the 20 epochs
    assert proc.stdout.strip().splitlines()[-1] == "model saved"
    variables = read_checkpoint(tmp_path / "lenet_models_1")
    assert "System-Train-TrainStep-train_job" in variables
    assert variables["System-Train-TrainStep-train_job"].item() == 20
    proc = flowjob_run(PROGRAMS / "late2020" / "synchronize_batch_job.py")
    assert proc.returncode == 0, proc.stderr
    logits = lenet_logits(variables, x_test.astype(np.float32)[:, None] / 255.0)
    assert proc.stdout.strip().splitlines()[-1] == accuracy_line(logits, y_test)


def test_late2020_mlp_async_train_then_eval(flowjob_run, mnist_npz, tmp_path):
    _, _, x_test, y_test = mnist_npz(tmp_path, 200, 300)
    proc = flowjob_run(PROGRAMS / "late2020" / "async_single_job.py")
    assert proc.returncode == 0, proc.stderr
    losses = float_lines(proc.stdout)  # 20 epochs of 2 steps, printed every 20 callbacks
    assert len(losses) == 2 and losses[1] < losses[0]
    variables = read_checkpoint(tmp_path / "mlp_models_1")
    assert set(variables) >= {"hidden-weight", "hidden-bias", "output-weight", "output-bias"}
    proc = flowjob_run(PROGRAMS / "late2020" / "async_batch_job.py", options=("--sync",))
    assert proc.returncode == 0, proc.stderr
    expected = accuracy_line(mlp_logits(variables, x_test.astype(np.float32) / 255.0), y_test)
    assert proc.stdout.strip().splitlines()[-1] == expected


# -- summaries (seed 004) ----------------------------------------------------------------------
def test_summary_program_logs_for_tensorboard(flowjob_run, tmp_path):
    from tensorboard.backend.event_processing import event_accumulator as ea
    from tensorboard.plugins.hparams import plugin_data_pb2
    from tensorboard.util import tensor_util

    proc = flowjob_run(PROGRAMS / "late2020" / "summary.py")
    assert proc.returncode == 0, proc.stderr
    logdir = tmp_path / "log"
    acc = ea.EventAccumulator(str(logdir), size_guidance={ea.TENSORS: 0, ea.SCALARS: 0})
    acc.Reload()
    tags = acc.Tags()
    assert [(e.step, e.value) for e in acc.Scalars("scalar")] == [(0, 0.0), (1, 0.5), (2, 1.0)]
    plugin = {tag: acc.SummaryMetadata(tag).plugin_data.plugin_name for tag in tags["tensors"]}
    # The exception projector's report is in the same run (TensorBoard lists it once). The
    # program's data is unseeded: when the projector flags samples it adds their image grid.
    flagged = plugin.pop("~anomaly/exception_projector/samples", "images")
    assert flagged == "images"
    assert plugin == {
        "text": "text",
        "image": "images",
        "histogram": "histograms",
        "~anomaly/exception_projector/report": "text",
    }
    histogram = acc.Tensors("histogram")
    assert [e.step for e in histogram] == [1]
    buckets = tensor_util.make_ndarray(histogram[0].tensor_proto)  # rows: left, right, count
    assert buckets[:, 2].sum() == 20 * 20 * 20 and 0 <= buckets[0, 0] and buckets[-1, 1] <= 1
    image = tensor_util.make_ndarray(acc.Tensors("image")[0].tensor_proto)  # w, h, png...
    assert list(image[:2]) == [b"64", b"64"] and len(image) == 2 + 2
    assert all(png.startswith(b"\x89PNG") for png in image[2:])
    text = tensor_util.make_ndarray(acc.Tensors("text")[0].tensor_proto)
    assert [s.decode() for s in text] == ["vgg16", "resnet50", "mask-rcnn", "yolov3"]
    content = acc.PluginTagToContent("hparams")["_hparams_/session_start_info"]
    hparams = plugin_data_pb2.HParamsPluginData.FromString(content).session_start_info.hparams
    assert hparams["learning_rate"].number_value == 0.02
    assert hparams["optimizer"].string_value == "adam"
    assert hparams["dropout"].number_value == 0.6
    assert (logdir / "graph" / "structure_graph.json").is_file()
    config = (logdir / "projector_config.pbtxt").read_text()
    assert "embedding_projector" in config and "exception_projector" in config
