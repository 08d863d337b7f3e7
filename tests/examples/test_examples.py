"""Every example, end to end with small settings, checked against independent references."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from example_reference import (
    lenet5_logits,
    lenet_logits,
    mlp_logits,
    mnist_subset,
    read_checkpoint,
)

FLOAT = r"-?\d+\.?\d*(?:e[-+]?\d+)?"


def accuracy_line(logits: np.ndarray, labels: np.ndarray) -> str:
    correct = int(np.sum(np.argmax(logits, 1) == labels))
    return f"accuracy: {correct * 100 / len(labels):.1f}% ({correct}/{len(labels)} test images)"


def load_events(logdir):
    from tensorboard.backend.event_processing import event_accumulator as ea

    acc = ea.EventAccumulator(str(logdir), size_guidance={ea.TENSORS: 0, ea.SCALARS: 0})
    acc.Reload()
    return acc


def test_watch(run_example):
    proc = run_example("watch", "--size", "7", "--seed", "3")
    found = re.search(r"in: \[([^\]]*)\]\s+out: \[([^\]]*)\]", proc.stdout)
    x, y = (np.array(group.split(), dtype=np.float32) for group in found.groups())
    assert x.shape == (7,) and (x < 0).any() and (x > 0).any()
    np.testing.assert_array_equal(y, np.maximum(x, 0))


def test_watch_diff(run_example):
    proc = run_example("watch_diff", "--steps", "5", "--print-every", "2")
    # steps 0, 2, 4: the gradient line and the loss (and a line about the bundled MNIST subset)
    assert len(proc.stdout.splitlines()) <= 7
    _, y_train, _, _ = mnist_subset()
    calls = re.findall(
        rf"step (\d+): d\(loss\)/d\(logits\) \(100, 10\) float32, largest "
        rf"\|row sum\| ({FLOAT}), first row \[([^\]]*)\]\n({FLOAT})\n",
        proc.stdout,
    )
    assert [int(step) for step, *_ in calls] == [0, 2, 4]
    for step, row_sum, row, loss in calls:
        grad = np.array(row.split(), float)
        label = y_train[int(step) * 100]
        probs = grad + np.eye(10)[label]  # softmax - one_hot of the first example
        np.testing.assert_allclose(probs.sum(), 1.0, atol=1e-6)
        assert np.all(probs > -1e-7) and np.argmin(grad) == label
        assert float(row_sum) < 1e-5 and 0 < float(loss) < 5


@pytest.mark.slow
def test_synchronize_single_then_batch_job(run_example, tmp_path):
    proc = run_example(
        "synchronize_single_job",
        "--epochs",
        "2",
        "--steps",
        "3",
        "--print-every",
        "2",
        "--model-dir",
        "lenet",
    )
    losses = re.findall(rf"epoch (\d) step (\d): loss ({FLOAT})", proc.stdout)
    assert [(e, s) for e, s, _ in losses] == [("0", "0"), ("0", "2"), ("1", "0"), ("1", "2")]
    variables = read_checkpoint(tmp_path / "lenet")
    assert variables["System-Train-TrainStep-train_job"].item() == 6
    proc = run_example("synchronize_batch_job", "--model-dir", "lenet", "--steps", "2")
    _, _, x_test, y_test = mnist_subset()
    expected = accuracy_line(lenet_logits(variables, x_test[:200]), y_test[:200])
    assert proc.stdout.strip().splitlines()[-1] == expected


def test_async_single_then_batch_job(run_example, tmp_path):
    proc = run_example(
        "async_single_job",
        "--epochs",
        "3",
        "--steps",
        "4",
        "--print-every",
        "4",
        "--model-dir",
        "mlp",
    )
    losses = [float(v) for v in re.findall(rf"step \d+: loss ({FLOAT})", proc.stdout)]
    assert re.findall(r"step (\d+):", proc.stdout) == ["0", "4", "8"]
    assert losses[-1] < losses[0]
    assert "12 steps done, model saved to mlp" in proc.stdout
    variables = read_checkpoint(tmp_path / "mlp")
    proc = run_example("async_batch_job", "--model-dir", "mlp", "--steps", "3")
    _, _, x_test, y_test = mnist_subset()
    expected = accuracy_line(mlp_logits(variables, x_test[:300]), y_test[:300])
    assert proc.stdout.strip().splitlines()[-1] == expected


def test_summary(run_example, tmp_path):
    from tensorboard.plugins.hparams import plugin_data_pb2
    from tensorboard.plugins.projector import projector_config_pb2
    from tensorboard.util import tensor_util

    proc = run_example("summary", "--logdir", "logs", "--steps", "4")
    assert "flowjob board logs" in proc.stdout
    outliers = re.search(r"exception projector: \[([\d ]*)\]", proc.stdout).group(1).split()
    assert {"3", "42", "77"} <= set(outliers)  # the planted outliers are flagged
    acc = load_events(tmp_path / "logs")
    # The hparams Metric("loss") value 0.02 has its own tag: the "loss" series is as logged.
    assert [e.step for e in acc.Scalars("loss")] == [0, 1, 2, 3]
    assert [round(e.value, 6) for e in acc.Scalars("~hparams/loss")] == [0.02]
    histograms = acc.Tensors("histogram")
    assert [e.step for e in histograms] == [0, 1, 2, 3]
    assert all(
        tensor_util.make_ndarray(e.tensor_proto)[:, 2].sum() == 50 * 50 * 20 for e in histograms
    )
    image = tensor_util.make_ndarray(acc.Tensors("image")[0].tensor_proto)
    assert len(image) == 2 + 3 and list(image[:2]) == [b"64", b"64"]
    text = tensor_util.make_ndarray(acc.Tensors("text")[0].tensor_proto)
    assert [t.decode() for t in text] == ["vgg16", "resnet50", "mask-rcnn", "yolov3"]
    start = plugin_data_pb2.HParamsPluginData.FromString(
        acc.PluginTagToContent("hparams")["_hparams_/session_start_info"]
    ).session_start_info
    assert start.hparams["optimizer"].string_value == "adam"
    assert acc.Graph().node  # the GraphDef is in the run's own event file
    assert sorted(p.name for p in (tmp_path / "logs").rglob("events.out.tfevents.*")) == [
        p.name for p in (tmp_path / "logs").glob("events.out.tfevents.*")
    ]  # one run
    graph = json.loads((tmp_path / "logs" / "graph" / "structure_graph.json").read_text())
    assert {entry["config"]["name"] for entry in graph} == {
        "CreateWriter",
        "ScalarJob",
        "HistogramJob",
        "PbJob",
        "ImageJob",
        "FlushJob",
    }
    config = projector_config_pb2.ProjectorConfig()
    from google.protobuf import text_format

    text_format.Parse((tmp_path / "logs" / "projector_config.pbtxt").read_text(), config)
    assert len(config.embeddings) == 2


def check_demo_logs(logdir, steps, epochs, accuracy):
    from tensorboard.plugins.hparams import plugin_data_pb2
    from tensorboard.plugins.projector import projector_config_pb2

    acc = load_events(logdir)
    assert [e.step for e in acc.Scalars("train/loss")] == list(range(steps * epochs))
    # One per epoch; the hparams Metric("test/accuracy") value has a tag of its own.
    logged = acc.Scalars("test/accuracy")
    assert [e.step for e in logged] == list(range(1, epochs + 1))
    (metric,) = acc.Scalars("~hparams/test/accuracy")
    assert metric.value == logged[-1].value == pytest.approx(accuracy, abs=5e-4)
    # Graph, projector and anomaly summaries live in the run itself: one event file.
    assert len(list(logdir.rglob("events.out.tfevents.*"))) == 1 and acc.Graph().node
    plugins = {t: acc.SummaryMetadata(t).plugin_data.plugin_name for t in acc.Tags()["tensors"]}
    assert plugins["train/hidden_activations"] == "histograms"
    assert plugins["weights/fc1-weight"] == "histograms"
    assert len(acc.Tensors("weights/fc1-weight")) == epochs + 1
    assert plugins["test/misclassified"] == "images"
    assert plugins["run/config"] == plugins["test/per_class_accuracy"] == "text"
    # Rendered by TensorBoard's own text plugin: one table, header row then ten digits.
    from tensorboard.plugins.text import text_plugin
    from tensorboard.util import tensor_util

    table = tensor_util.make_ndarray(acc.Tensors("test/per_class_accuracy")[0].tensor_proto)
    html = text_plugin.text_array_to_html(table, enable_markdown=True)
    assert html.count("<table>") == 1 and "<th>digit</th>" in html and "|" not in html
    assert len(re.findall(r"<td>\d</td>", html)) == 10
    content = acc.PluginTagToContent("hparams")["_hparams_/session_start_info"]
    start = plugin_data_pb2.HParamsPluginData.FromString(content).session_start_info
    assert start.hparams["model"].string_value == "lenet"
    graph = json.loads((logdir / "graph" / "structure_graph.json").read_text())
    assert {"train_job", "eval_job"} <= {entry["config"]["name"] for entry in graph}
    from google.protobuf import text_format

    config = text_format.Parse(
        (logdir / "projector_config.pbtxt").read_text(), projector_config_pb2.ProjectorConfig()
    )
    assert sorted(e.tensor_name.split(":")[0] for e in config.embeddings) == [
        "hidden_features",
        "unusual_digits",
    ]


def test_mnist_demo_small(run_example, tmp_path):
    proc = run_example(
        "mnist_demo",
        "--epochs",
        "2",
        "--steps",
        "4",
        "--print-every",
        "2",
        "--logdir",
        "demo",
        "--embedding-size",
        "60",
        "--model-dir",
        "model",
    )
    out = proc.stdout
    progress = re.findall(
        r"epoch (\d) step +(\d)/4 +loss (\S+) +active ReLUs +(\S+)% "
        r"+\|dL/dlogits\| (\S+)",
        out,
    )
    assert [(e, s) for e, s, *_ in progress] == [("1", "2"), ("1", "4"), ("2", "2"), ("2", "4")]
    assert all(0 < float(active) <= 100 and float(norm) > 0 for *_, active, norm in progress)
    printed = float(re.search(r"^test accuracy: (\S+)%$", out, re.M).group(1))
    _, _, x_test, y_test = mnist_subset()
    logits = lenet5_logits(read_checkpoint(tmp_path / "model"), x_test)
    assert printed == pytest.approx(100 * np.mean(np.argmax(logits, 1) == y_test), abs=0.05)
    assert "flowjob board demo" in out
    check_demo_logs(tmp_path / "demo", steps=4, epochs=2, accuracy=printed / 100)


@pytest.mark.slow
def test_mnist_demo_default_settings_reach_95_percent(run_example, tmp_path):
    proc = run_example("mnist_demo", "--logdir", "demo", timeout=600)
    accuracy = float(re.search(r"^test accuracy: (\S+)%$", proc.stdout, re.M).group(1))
    assert accuracy >= 95.0, proc.stdout
