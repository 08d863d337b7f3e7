"""An open ``flowjob board`` page over 10,000 runs shows the points a training process logs
into one of them (issue 48, item 5: "with 10,000 runs, new points did not appear within
30 s"), measured in a real headless Chromium with no user action.

TensorBoard itself ticks no run in its run selector once there are many (Time Series past 500
runs, the legacy dashboards past 40), so without flowjob's live page the charts stay empty
however fast the server answers: Scalars requests no data at all, Time Series fetches the
series but draws no run. The live page ticks the runs being written (``flowjob-live/runs``).
For the first and the last run, on Time Series (the default dashboard) and on Scalars, the
test checks that the run gets ticked, then times each logged step from the moment it was
written to the first of the page's own data answers holding it (as ``test_live_delay.py``).

Measured on a shared 2-core machine: Scalars 2.4 s median, 4.1 s max (4.1 s median, 5.6 s
max during a full CI run); Time Series 5.6 s median, 8.1 s max. Time Series is slower
because each reload makes TensorBoard's own app process the 10,000 runs (the runs table, the
series of every run: 20 to 24 s of the page's 30 s are long tasks); the bounds below keep to
the issue's 30 s with room for a loaded machine.
"""

from __future__ import annotations

import json
import statistics
import textwrap
import time

import pytest
from board_helpers import LoggingProcess, board_over_runs

from tests.timeouts import scaled

RUNS = 10_000
LOG_S = 14.0  # the steps logged in this window (after the page shows the run) are timed
# tab -> (data route whose answers carry the run's steps, median and max bound in seconds)
TABS = {
    "timeseries": ("/data/plugin/timeseries/timeSeries", 15.0, 30.0),
    "scalars": ("/data/plugin/scalars/scalars", 8.0, 15.0),
}

# Appends a `loss` point to one event file every 0.5 s from a given step on and prints when
# each was written.
TRAINING = textwrap.dedent("""
    import sys, time
    from tensorboard.compat.proto import event_pb2
    from flowjob._src.summary._records import frame_record

    path, step = sys.argv[1], int(sys.argv[2])
    while True:
        event = event_pb2.Event(wall_time=time.time(), step=step)
        event.summary.value.add(tag="loss", simple_value=1.0 / (step + 1))
        with open(path, "ab") as f:
            f.write(frame_record(event.SerializeToString()))
        print("LOGGED", step, time.time(), flush=True)
        step += 1
        time.sleep(0.5)
""")

# The run's checkbox in the shown run selector is ticked (Time Series: the Angular runs
# table; Scalars: the legacy selector, inside shadow roots).
TICKED = """([tab, run]) => {
  if (tab === "timeseries") {
    for (const row of document.querySelectorAll("runs-selector tb-data-table-content-row")) {
      const name = row.querySelector(".table-column-run");
      if (name && name.textContent.trim() === run) {
        const box = row.querySelector(".table-column-selected input[type=checkbox]");
        return Boolean(box && box.checked);
      }
    }
    return false;
  }
  const roots = [document];
  while (roots.length) {
    const r = roots.shift();
    for (const list of r.querySelectorAll("tf-multi-checkbox")) {
      const box = list.shadowRoot && list.shadowRoot.getElementById("checkbox-" + run);
      if (box && box.checked) return true;
    }
    for (const el of r.querySelectorAll("*")) if (el.shadowRoot) roots.push(el.shadowRoot);
  }
  return false;
}"""


class Training(LoggingProcess):
    """A process logging into ``path`` every 0.5 s, from the step after those an earlier one
    logged there; ``logged``: step -> time written."""

    next_step: dict = {}  # path -> the first step not logged yet

    def __init__(self, path):
        self.path = path
        super().__init__(TRAINING, str(path), str(self.next_step.get(path, 1)))

    def stop(self):
        super().stop()
        # (a line or two may be unread yet: past them)
        first = self.next_step.get(self.path, 1)
        self.next_step[self.path] = max(self.logged, default=first) + 10


@pytest.fixture(scope="module")
def many(tmp_path_factory):
    with board_over_runs(tmp_path_factory.mktemp("many-page"), RUNS) as served:
        yield served


def run_steps(data, run: str) -> set[int]:
    """The steps of ``run`` in a data answer: Time Series' ``[{runToSeries: {run: [{step}]}}]``,
    Scalars' ``{run: [[wall_time, step, value]]}`` (or ``[[...]]`` from a one-run route)."""
    rows = []
    if isinstance(data, list) and data and isinstance(data[0], dict):
        for series in data:
            for points in (series.get("runToSeries") or {}).get(run, []) or []:
                rows.extend(points if isinstance(points, list) else [points])
    elif isinstance(data, dict):
        rows = data.get(run, [])
    elif isinstance(data, list):
        rows = data
    return {
        int(r["step"]) if isinstance(r, dict) else int(r[1])
        for r in rows
        if isinstance(r, dict) and "step" in r or isinstance(r, list) and len(r) == 3
    }


@pytest.mark.slow
@pytest.mark.parametrize("which", ["last", "first"])
@pytest.mark.parametrize("tab", list(TABS))
def test_a_run_logging_among_10000_shows_its_points_on_the_open_page(many, browser, tab, which):
    board, files = many
    index = RUNS - 1 if which == "last" else 0
    run = f"run{index:05d}"
    route, median_bound, max_bound = TABS[tab]
    seen: dict[int, float] = {}  # step -> time.time() the first answer holding it arrived

    def on_response(response):
        if route not in response.url or response.status != 200:
            return
        try:
            steps = run_steps(json.loads(response.body()), run)
        except Exception:  # noqa: BLE001 - an answer the page abandoned, or not JSON
            return
        if steps:
            seen.setdefault(max(steps), time.time())

    training = Training(files[index])
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.on("response", on_response)
    try:
        page.goto(board.url + "#" + tab)
        # TensorBoard ticks none of 10,000 runs; the live page ticks the one being written
        page.wait_for_function(TICKED, arg=[tab, run], timeout=scaled(120_000), polling=500)
        deadline = time.monotonic() + scaled(120)
        while not any(s > 0 for s in seen):
            assert time.monotonic() < deadline, f"{tab}: no answer with {run}'s new steps"
            page.wait_for_timeout(200)
        start = time.time()
        # the page runs on its own: until the steps logged in the window are shown (or late)
        while time.time() < start + LOG_S + max_bound:
            page.wait_for_timeout(500)
            last = max((s for s, t in training.logged.items() if t < start + LOG_S), default=0)
            if time.time() > start + LOG_S and any(s >= last for s in seen):
                break
    finally:
        page.close()
        training.stop()
    due = [s for s, t in training.logged.items() if start + 0.5 < t < start + LOG_S]
    assert len(due) >= 5, f"only {len(due)} steps logged while measuring"

    def shown_at(step):
        return min((t for s, t in seen.items() if s >= step), default=float("inf"))

    delays = {s: shown_at(s) - training.logged[s] for s in due}
    median, worst = statistics.median(delays.values()), max(delays.values())
    print(f"{tab} {run}: {len(due)} points, delay median {median:.2f} s, max {worst:.2f} s")
    assert median <= median_bound and worst <= max_bound, sorted(delays.items())
