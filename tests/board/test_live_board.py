"""``flowjob board`` seen in a real headless Chromium while a training process logs: the open
page follows training with no user action (Time Series and the Anomalies tab), the landing
view opens on the user's curves, the Scalars charts rescale to new points, HParams names
trials by run, and a busy port is skipped."""

from __future__ import annotations

import http.server
import json
import sys
import textwrap
import threading
import time
import urllib.parse

import pytest
from board_helpers import Board, free_port, repo_env, wait_for

from tests.timeouts import scaled

# Logs like a training loop: loss and accuracy every 0.25 s, hparams and one NaN at the start
# (so the "~hparams" and "~anomaly" groups exist), an exception projection every 40 steps.
TRAINING = textwrap.dedent("""
    import sys, time, warnings
    import numpy as np
    import flowjob as flow
    from flowjob.summary import Projector, SummaryWriter

    warnings.simplefilter("ignore", RuntimeWarning)
    logdir, seconds = sys.argv[1], float(sys.argv[2])
    rng = np.random.default_rng(0)
    with SummaryWriter(f"{logdir}/mine") as w, Projector(f"{logdir}/mine") as p:
        p.create_exception_projector()
        w.pb(flow.summary.hparams({"lr": 0.1, flow.summary.Metric("test/accuracy"): 0.5}), 0)
        w.scalar("train/grad_norm", float("nan"), 0)
        deadline, step = time.monotonic() + seconds, 0
        while time.monotonic() < deadline:
            w.scalar("train/loss", 1.0 / (step + 1), step)
            w.scalar("test/accuracy", step / (step + 10), step)
            if step % 40 == 0:
                rows = np.r_[rng.normal(size=(29, 4)), [[50.0, 0, 0, 0]]]
                p.exception_projector(value=rows, tag="features", step=step)
            w.flush()
            print("step", step, flush=True)
            step += 1
            time.sleep(0.25)
""")


@pytest.fixture(scope="module")
def training(tmp_path_factory):
    """A training process logging for several minutes, and ``flowjob board`` on its logdir."""
    import subprocess

    cwd = tmp_path_factory.mktemp("live")
    env = repo_env()
    proc = subprocess.Popen(
        [sys.executable, "-c", TRAINING, str(cwd / "logs"), "400"],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout.readline().startswith("step 0"), "the training process did not start"
    board = Board(f"{sys.executable} -m flowjob board logs --port {free_port()}", cwd=cwd, env=env)
    try:
        yield board
    finally:
        board.stop()
        proc.kill()
        proc.wait()


def _points(body: bytes, tag: str) -> int:
    """The number of ``tag`` points (run "mine") in a Time Series data answer."""
    total = 0
    for item in json.loads(body):
        if item.get("tag") == tag and item.get("plugin") == "scalars":
            total += len((item.get("runToSeries") or {}).get("mine", []))
    return total


def test_landing_view_opens_on_the_training_curves(training, browser):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(training.url)
    page.wait_for_selector("text=train/loss", timeout=scaled(60_000))
    # Groups in the order shown; the first two are expanded (their cards are on the page).
    page.wait_for_function(
        """() => document.querySelectorAll('.group-toolbar').length >= 4""", timeout=60_000
    )
    groups = page.eval_on_selector_all(
        ".group-toolbar .group-title", "els => els.map(e => e.textContent.trim())"
    )
    groups = [g for g in groups if g != "Pinned"]  # TensorBoard's (empty) pinned section
    assert groups[:2] == ["test", "train"] and set(groups[2:]) >= {"~anomaly", "~hparams"}
    titles = page.eval_on_selector_all(
        "tb-truncated-path.tag", "els => els.map(e => e.getAttribute('title'))"
    )
    shown = [
        t
        for t in titles
        if t
        in ("train/loss", "test/accuracy", "~anomaly/nonfinite_count", "~hparams/test/accuracy")
    ]
    assert shown[:2] == ["test/accuracy", "train/loss"], titles
    assert "~anomaly/nonfinite_count" not in shown  # a collapsed group after the curves
    page.close()


def test_hparams_trial_is_named_by_its_run(training):
    body = {
        "experimentName": "",
        "startIndex": 0,
        "sliceSize": 10,
        "colParams": [],
        "allowedStatuses": ["STATUS_UNKNOWN", "STATUS_SUCCESS", "STATUS_FAILURE", "STATUS_RUNNING"],
    }
    groups = wait_for(
        lambda: training.post_json("/data/plugin/hparams/session_groups", body),
        lambda r: r.get("totalSize") == 1,
    )
    assert groups["sessionGroups"][0]["name"] == "mine"


def test_open_page_follows_training_without_user_action(training, browser):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    answers = []

    def on_response(response):
        if "/data/plugin/timeseries/timeSeries" in response.url:
            try:
                answers.append((time.monotonic(), _points(response.body(), "train/loss")))
            except Exception:  # noqa: BLE001 - a response the page abandoned
                pass

    page.on("response", on_response)

    def wait_until(condition, timeout):
        # Playwright delivers the page's events only inside its own calls: wait through it.
        deadline = time.monotonic() + scaled(timeout)
        while not condition():
            assert time.monotonic() < deadline, f"not within {timeout} s: {answers[-5:]}"
            page.wait_for_timeout(500)

    def x_axis_end():
        # The largest step label on the x axis of the train/loss chart (it is drawn on a
        # canvas; its axes are SVG).
        return page.evaluate("""() => {
            const title = document.querySelector('tb-truncated-path[title="train/loss"]');
            const card = title && title.closest('scalar-card');
            if (!card) return null;
            const labels = [...card.querySelectorAll('.x-axis svg.ticks text')]
                .map(t => Number(t.textContent.replace(/[^0-9.eE+-]/g, '')))
                .filter(Number.isFinite);
            return labels.length ? Math.max(...labels) : null;
        }""")

    page.goto(training.url)
    page.wait_for_selector("text=train/loss", timeout=scaled(60_000))
    wait_until(lambda: any(n for _, n in answers) and x_axis_end() is not None, 60)
    first, first_axis = max(n for _, n in answers), x_axis_end()
    # TensorBoard's auto-reload (every 30 s, the shortest its settings allow) fetches the new
    # points and the chart redraws with them: its x axis reaches further.
    wait_until(lambda: max(n for _, n in answers) > first + 10, 90)
    wait_until(lambda: x_axis_end() > first_axis, 30)
    assert (
        page.evaluate("() => JSON.parse(localStorage.getItem('_tb_global_settings')).autoReload")
        is True
    )

    # The Anomalies tab polls by itself: the step picker gains the new projections.
    page.goto(training.url + "#flowjob_anomaly")
    frame = page.wait_for_selector("iframe", timeout=scaled(60_000)).content_frame()
    frame.wait_for_selector("select.step-select", timeout=scaled(60_000))

    def steps():
        return frame.eval_on_selector_all("select.step-select option", "os => os.length")

    before = steps()
    deadline = time.monotonic() + 60
    while steps() <= before:
        assert time.monotonic() < deadline, "the Anomalies tab did not show the new step"
        page.wait_for_timeout(500)
    assert frame.inner_text("#run-filter").startswith("All runs")
    page.close()


def test_busy_port_is_skipped_and_the_url_shows_this_logdir(tmp_path, browser):
    class Other(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"another server")

        def log_message(self, *args):
            pass

    other = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Other)
    threading.Thread(target=other.serve_forever, daemon=True).start()
    busy = other.server_address[1]
    from flowjob.summary import SummaryWriter

    with SummaryWriter(tmp_path / "logs" / "this_run") as w:
        w.scalar("train/loss", 1.0, 0)
    board = Board(
        f"{sys.executable} -m flowjob board logs --port {busy}", cwd=tmp_path, env=repo_env()
    )
    try:
        port = urllib.parse.urlsplit(board.url).port
        assert port != busy
        log = board.log.read_text()
        assert f"port {busy} is in use; using port {port}" in log
        assert log.count("http://") == 1 and "TensorFlow" not in log
        page = browser.new_page()
        page.goto(board.url)
        page.wait_for_selector("text=this_run", timeout=scaled(60_000))
        page.close()
    finally:
        board.stop()
        other.shutdown()
        other.server_close()


def test_text_report_renders_as_a_full_table_with_a_header(tmp_path, browser):
    import warnings

    from flowjob.summary import SummaryWriter

    tags = [f"layer_{i}/grad" for i in range(12)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        with SummaryWriter(tmp_path / "logs" / "run") as w:
            for step, tag in enumerate(tags):
                w.scalar(tag, float("nan"), step)
    board = Board(
        f"{sys.executable} -m flowjob board logs --port {free_port()}", cwd=tmp_path, env=repo_env()
    )
    try:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(board.url + "#text")
        page.wait_for_selector("th:text('first step')", timeout=scaled(60_000))
        page.wait_for_timeout(1000)
        # One table per step (a tag joined at each); the newest lists every tag.
        tables = page.eval_on_selector_all(
            "table",
            """ts => ts.map(t => ({
            header: [...t.querySelectorAll('thead th')].map(c => c.textContent),
            first: [...t.querySelectorAll('tbody tr')].map(r => r.cells[0].textContent)}))""",
        )
        assert len(tables) == len(tags)
        assert all(t["header"] == ["tag", "first step", "NaN", "+Inf", "-Inf"] for t in tables)
        assert max((t["first"] for t in tables), key=len) == tags  # every row, in order
        last = page.locator("tbody tr", has_text=tags[-1]).first
        last.scroll_into_view_if_needed()
        assert last.is_visible()  # not cut off by the card
        page.close()
    finally:
        board.stop()


def test_anomalies_run_filter(tmp_path, browser):
    import numpy as np

    from flowjob.summary import Projector

    rows = np.r_[np.zeros((19, 3)), [[40.0, 0.0, 0.0]]] + np.arange(20)[:, None] * 0.01
    for run in ("first", "second"):
        with Projector(tmp_path / "logs" / run) as projector:
            projector.create_exception_projector()
            projector.exception_projector(value=rows, tag="feat", step=1)
    board = Board(
        f"{sys.executable} -m flowjob board logs --port {free_port()}", cwd=tmp_path, env=repo_env()
    )
    try:
        page = browser.new_page()
        page.goto(board.url + "#flowjob_anomaly")
        frame = page.wait_for_selector("iframe", timeout=scaled(60_000)).content_frame()
        frame.wait_for_selector("h2.run-name", timeout=scaled(60_000))

        def shown():
            return frame.eval_on_selector_all("h2.run-name", "hs => hs.map(h => h.textContent)")

        assert shown() == ["Run first", "Run second"]
        frame.select_option("#run-filter", "second")
        assert shown() == ["Run second"]
        page.wait_for_timeout(6000)  # a poll later the choice holds
        assert shown() == ["Run second"]
        assert frame.eval_on_selector("#run-filter", "s => s.value") == "second"
        frame.select_option("#run-filter", "")
        assert shown() == ["Run first", "Run second"]
        page.close()
    finally:
        board.stop()


def test_legacy_scalars_chart_rescales_to_new_points(training, browser):
    """The Scalars tab's charts fit their axes on the first load only (TensorBoard's
    ``_resetDomainOnNextLoad``); the live page asks for it on every load, so the curve never
    runs off the chart. Checked on the step axis of test/accuracy, which grows steadily."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    steps = []  # the largest step of each scalars answer for test/accuracy

    def on_response(response):
        # scalars?run=R&tag=T (older TensorBoards) or a form naming the tag (scalars_multirun)
        question = response.url + (response.request.post_data or "")
        if "/data/plugin/scalars/scalars" not in response.url or "accuracy" not in question:
            return
        try:
            answer = json.loads(response.body())
            rows = [r for rs in answer.values() for r in rs] if isinstance(answer, dict) else answer
            steps.append(max(row[1] for row in rows))
        except Exception:  # noqa: BLE001 - an abandoned or empty answer
            pass

    page.on("response", on_response)
    # the chart's x (step) domain, through the open shadow roots of the Polymer dashboard
    domain = """() => {
        const stack = [document];
        while (stack.length) {
            const node = stack.pop();
            if (node.shadowRoot) stack.push(node.shadowRoot);
            for (const c of node.children || []) stack.push(c);
            if (node.tagName === 'TF-SCALAR-CARD' && node.tag === 'test/accuracy') {
                const inner = [node.shadowRoot || node];
                while (inner.length) {
                    const n = inner.pop();
                    if (n.shadowRoot) inner.push(n.shadowRoot);
                    for (const c of n.children || []) inner.push(c);
                    if (n.tagName === 'TF-LINE-CHART-DATA-LOADER' && n.getChart) {
                        const chart = n.getChart()._chart;
                        return chart ? chart.xScale.domain() : null;
                    }
                }
            }
        }
        return null;
    }"""

    def wait_until(condition, timeout, what):
        deadline = time.monotonic() + scaled(timeout)
        while not condition():
            assert time.monotonic() < deadline, f"{what} not within {timeout} s: {steps[-3:]}"
            page.wait_for_timeout(250)

    try:
        page.goto(training.url + "#scalars")
        wait_until(lambda: steps and page.evaluate(domain), 60, "the test/accuracy chart")
        first_end = page.evaluate(domain)[1]
        # points beyond the first fit arrive, then the axis follows them within two periods
        wait_until(lambda: steps[-1] > first_end + 4, 30, "new steps")
        seen = steps[-1]
        wait_until(lambda: page.evaluate(domain)[1] >= seen, 10, "the rescaled axis")
    finally:
        page.close()
