"""The demo's logs in a real TensorBoard started by the command the demo prints, seen in a
real headless Chromium: the Anomalies tab, one run per run directory, the per-class table,
and the hparams metric beside an untouched series."""

from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
import sys
import urllib.parse

import numpy as np
import pytest
from board_helpers import REPO, Board, free_port, repo_env, wait_for
from PIL import Image

from tests.timeouts import scaled

# A fresh machine after the quick start: flowjob is installed in a venv that is not on PATH.
PLAIN_PATH = "/usr/local/bin:/usr/bin:/bin"


def reference_scores(x: np.ndarray) -> np.ndarray:
    """Robust z of the distance to the median row, written independently of the library."""
    x = x.astype(np.float64)
    center = np.percentile(x, 50, axis=0)
    dist = np.sqrt(np.einsum("ij,ij->i", x - center, x - center))
    med = np.percentile(dist, 50)
    sigma = np.percentile(np.abs(dist - med), 50) / 0.6744897501960817
    return (dist - med) / sigma


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    """Runs the demo briefly (default log directory), then serves its logs with the command
    it printed last, typed as is (plus a free port)."""
    cwd = tmp_path_factory.mktemp("demo")
    env = repo_env(PATH=PLAIN_PATH)
    proc = subprocess.run(
        [
            sys.executable,
            str(REPO / "examples" / "mnist_demo.py"),
            "--epochs",
            "1",
            "--steps",
            "10",
            "--embedding-size",
            "300",
        ],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=scaled(600),
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    command = proc.stdout.strip().splitlines()[-1].strip()
    assert command.endswith(" board runs/mnist_demo"), proc.stdout
    (run_dir,) = (cwd / "runs" / "mnist_demo").iterdir()
    board = Board(f"{command} --port {free_port()}", cwd=cwd, env=env)
    try:
        yield board, run_dir, command
    finally:
        board.stop()


def test_printed_command_runs_without_flowjob_on_path(demo):
    board, _, command = demo
    # flowjob is not on PATH: the printed command names the script by its path (served by
    # the fixture, typed as printed, from the directory the demo ran in).
    assert shutil.which("flowjob", path=PLAIN_PATH) is None
    assert "/" in command.split()[0] and command.split()[1:3] == ["board", "runs/mnist_demo"]
    assert board.get_json("/data/environment")["data_location"].endswith("runs/mnist_demo")


def test_run_shows_once_with_graph_projector_and_anomalies(demo):
    board, run_dir, _ = demo
    run = run_dir.name
    assert wait_for(lambda: board.get_json("/data/runs")) == [run]
    assert board.get_json("/data/plugin/graphs/info")[run]["run_graph"] is True
    assert board.get_json("/data/plugin/projector/runs") == [run]
    listing = board.get_json("/data/plugins_listing")
    assert listing["flowjob_anomaly"]["enabled"] is True
    assert listing["flowjob_anomaly"]["tab_name"] == "Anomalies"


def test_per_class_accuracy_renders_as_a_table(demo):
    board, run_dir, _ = demo
    q = urllib.parse.urlencode({"run": run_dir.name, "tag": "test/per_class_accuracy"})
    (entry,) = wait_for(lambda: board.get_json(f"/data/plugin/text/text?{q}"))
    html = entry["text"]
    assert html.count("<table>") == 1 and "<th>digit</th>" in html and "|" not in html
    assert re.findall(r"<td>(\d)</td>", html) == [str(d) for d in range(10)]


def test_hparams_metric_leaves_the_series_alone(demo):
    board, run_dir, _ = demo
    q = urllib.parse.urlencode({"run": run_dir.name, "tag": "test/accuracy"})
    series = wait_for(lambda: board.get_json(f"/data/plugin/scalars/scalars?{q}"))
    assert [step for _, step, _ in series] == [1]  # one evaluation, nothing added
    body = {
        "experimentName": "",
        "startIndex": 0,
        "sliceSize": 10,
        "colParams": [],
        "allowedStatuses": ["STATUS_UNKNOWN", "STATUS_SUCCESS", "STATUS_FAILURE", "STATUS_RUNNING"],
    }
    groups = wait_for(
        lambda: board.post_json("/data/plugin/hparams/session_groups", body),
        lambda r: r.get("totalSize") == 1,
    )
    metrics = {m["name"]["tag"]: m["value"] for m in groups["sessionGroups"][0]["metricValues"]}
    assert metrics["~hparams/test/accuracy"] == pytest.approx(series[-1][2])
    exp = board.post_json("/data/plugin/hparams/experiment", {"experimentName": ""})
    names = {m["name"]["tag"]: m.get("displayName") for m in exp["metricInfos"]}
    assert names["~hparams/test/accuracy"] == "test/accuracy"


def _expected_rows(run_dir):
    """(index, score, label, prediction) of the flagged samples, highest score first, from
    the projected tensor and the metadata columns the projector wrote."""
    (directory,) = (run_dir / "projector" / "exception").glob("*/*")
    meta = [line.split("\t") for line in (directory / "metadata.tsv").read_text().splitlines()]
    header, rows = meta[0], meta[1:]
    value = np.fromfile(directory / "tensors.bin", dtype="<f4").reshape(len(rows), -1)
    scores = reference_scores(value)
    flagged = sorted(np.flatnonzero(scores > 3.5), key=lambda i: -scores[i])
    col = {name: header.index(name) for name in ("label", "prediction")}
    return [(int(i), scores[i], rows[i][col["label"]], rows[i][col["prediction"]]) for i in flagged]


def _table(frame):
    return frame.eval_on_selector_all(
        "tr.sample-row",
        """rows => rows.map(r => ({
        index: r.querySelector('td.index').textContent,
        score: r.querySelector('td.score').textContent,
        threshold: r.querySelector('td.threshold').textContent,
        label: r.querySelector('td.label').textContent,
        prediction: r.querySelector('td.prediction').textContent}))""",
    )


def test_anomaly_view_in_a_real_browser(demo, browser, tmp_path):
    board, run_dir, _ = demo
    expected = _expected_rows(run_dir)
    assert expected, "the demo's exception projector flagged nothing"
    page = browser.new_page(viewport={"width": 1600, "height": 1100})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(board.url + "#flowjob_anomaly")
    frame = page.wait_for_selector("iframe", timeout=scaled(60_000)).content_frame()
    frame.wait_for_selector("tr.sample-row", timeout=scaled(60_000))

    # Explanation of the method, the run and the step.
    method = frame.inner_text("#method")
    for phrase in ("robust z-score", "median absolute deviation", "1.4826", "threshold"):
        assert phrase in method
    assert frame.inner_text("h2.run-name") == f"Run {run_dir.name}"
    assert frame.inner_text("section.report .tag") == "unusual_digits"
    assert frame.eval_on_selector("select.step-select", "s => s.value") == "1"
    summary = frame.inner_text("p.summary")
    assert summary.startswith(f"{len(expected)} of 300 samples flagged (score > 3.5)")

    # Rows: highest score first, matching the reference scores and the metadata.
    rows = _table(frame)
    assert [int(r["index"]) for r in rows] == [i for i, *_ in expected]
    for row, (_, score, label, prediction) in zip(rows, expected):
        assert float(row["score"]) == pytest.approx(score, abs=0.006)
        assert (row["threshold"], row["label"], row["prediction"]) == ("3.5", label, prediction)

    # Every image loaded, and shows that sample of the MNIST test set.
    page.wait_for_timeout(500)
    frame.wait_for_function(
        """() => [...document.querySelectorAll('img.sample-image')]
        .every(i => i.complete && i.naturalWidth > 0)""",
        timeout=scaled(30_000),
    )
    images = frame.eval_on_selector_all(
        "img.sample-image", "imgs => imgs.map(i => [i.naturalWidth, i.naturalHeight, i.src])"
    )
    assert len(images) == len(expected)
    import flowjob

    (_, _), (test_images, _) = flowjob.data.load_mnist(100, 100, out_dir=str(tmp_path))
    test_images = np.rint(test_images.reshape(-1, 28, 28) * 255).astype(np.uint8)
    for (width, height, src), (index, *_) in zip(images, expected):
        assert (width, height) == (28, 28)
        served = np.asarray(Image.open(io.BytesIO(board.get(src.split(board.url, 1)[1]))))
        np.testing.assert_array_equal(served, test_images[index])

    # Sorting by clicking the headers.
    frame.click("th[data-key=score]")  # already by score, descending: now ascending
    assert [int(r["index"]) for r in _table(frame)] == [i for i, *_ in reversed(expected)]
    assert frame.get_attribute("th[data-key=score]", "aria-sort") == "ascending"
    frame.click("th[data-key=index]")
    assert [int(r["index"]) for r in _table(frame)] == sorted(i for i, *_ in expected)
    frame.click("th[data-key=label]")
    labels = [r["label"] for r in _table(frame)]
    assert labels == sorted(labels, key=int)
    frame.click("th[data-key=score]")  # a new key: score sorts descending first
    assert [int(r["index"]) for r in _table(frame)] == [i for i, *_ in expected]

    shot = tmp_path / "anomalies.png"
    page.screenshot(path=str(shot), full_page=True)
    if os.environ.get("FLOWJOB_SCREENSHOT_DIR"):
        shutil.copy(shot, os.environ["FLOWJOB_SCREENSHOT_DIR"])
    assert shot.stat().st_size > 10_000
    assert not errors, errors
    page.close()
