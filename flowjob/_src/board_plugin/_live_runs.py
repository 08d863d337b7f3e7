"""The runs being written now, for the live page's run-selection default.

TensorBoard selects no run by default once there are many: Time Series leaves every run
unselected past 500 runs ("New runs are unselected for performance reasons"), the legacy
dashboards (Scalars, Histograms, ...) past 40. With 10,000 runs the open page then draws
nothing, however fast new points are served. The live page (``static/live.js``) asks
:data:`LIVE_RUNS_PATH` for the runs whose event files changed lately and, until the user
chooses runs, ticks them in the page's own run selector (the user's click, made for them).

The answer comes from the files TensorBoard's last finished reload started from
(:class:`LoadedLogs`), so a run is named once its new points can be served, and no extra walk
of the log directory is made per request.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterable

from ._answer_cache import LoadedLogs

__all__ = ["LIVE_RUNS_PATH", "live_runs", "live_runs_app"]

LIVE_RUNS_PATH = "/flowjob-live/runs"
MAX_LIVE_RUNS = 40  # TensorBoard's legacy run selector ticks at most 40 runs by default


def live_runs(
    files: Iterable[tuple[str, int, int]],
    logdir: str,
    now_ns: int,
    max_age_s: float,
    limit: int = MAX_LIVE_RUNS,
) -> list[str]:
    """TensorBoard's names of the runs (the event file's directory relative to ``logdir``,
    ``.`` for ``logdir`` itself) whose event files in ``files`` (path, size, modification
    time in ns) changed within ``max_age_s`` seconds of ``now_ns``: the newest first, at most
    ``limit``.

    Examples:
        >>> files = [("logs/a/events.out.tfevents.1", 10, 5_000_000_000),
        ...          ("logs/b/events.out.tfevents.1", 10, 9_000_000_000),
        ...          ("logs/c/events.out.tfevents.1", 10, 1_000_000_000),
        ...          ("logs/b/notes.txt", 10, 9_500_000_000)]
        >>> live_runs(files, "logs", now_ns=10_000_000_000, max_age_s=6)
        ['b', 'a']
    """
    newest: dict[str, int] = {}
    oldest_ns = now_ns - int(max_age_s * 1e9)
    for path, _size, mtime_ns in files:
        folder, name = os.path.split(path)
        if "tfevents" not in name or mtime_ns < oldest_ns:
            continue
        run = os.path.relpath(folder, logdir)
        newest[run] = max(newest.get(run, mtime_ns), mtime_ns)
    return sorted(newest, key=lambda run: (-newest[run], run))[:limit]


def live_runs_app(app: Callable, logs: LoadedLogs, max_age_s: float) -> Callable:
    """``app`` with :data:`LIVE_RUNS_PATH` answered: ``{"runs": [...]}``, the runs whose event
    files changed within ``max_age_s`` seconds, as of TensorBoard's last finished reload (an
    empty list before the first).

    Examples:
        >>> logs = LoadedLogs("logs")
        >>> app = live_runs_app(lambda environ, start: [b"tensorboard"], logs, 60)
        >>> b"".join(app({"PATH_INFO": LIVE_RUNS_PATH}, lambda status, headers: None))
        b'{"runs": []}'
    """

    def wrapped(environ: dict, start_response: Callable) -> Iterable[bytes]:
        if environ.get("PATH_INFO", "") != LIVE_RUNS_PATH:
            return app(environ, start_response)
        files = logs.generation or ()
        runs = live_runs(files, logs.logdir, time.time_ns(), max_age_s)
        body = json.dumps({"runs": runs}).encode()
        start_response(
            "200 OK",
            [
                ("Content-Type", "application/json"),
                ("Content-Length", str(len(body))),
                ("Cache-Control", "no-store"),
                ("X-Content-Type-Options", "nosniff"),
            ],
        )
        return [body]

    return wrapped
