"""A WSGI wrapper for TensorBoard's app that makes the pages of ``flowjob board`` live.

TensorBoard's own "Reload data" refetches at most every 30 s (its settings clamp shorter
periods, 2.15 to 2.21), and no URL parameter or server flag changes that
(``--reload_interval`` only paces the backend's reads of the logs). So the wrapper adds one
same-origin ``<script>`` (``static/live.js``, allowed by TensorBoard's content security policy
as ``'self'``) to the head of ``index.html``: it triggers the app's own reload every
``period`` seconds while the page is visible, lets the legacy Scalars charts rescale to new
points, and shows a "Live" badge with the time data last arrived. The server writes the
period in front of the script. The Anomalies tab polls at the same period by itself
(``static/index.js``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from importlib import resources

from ._wsgi import whole_answer

__all__ = ["LIVE_SCRIPT_PATH", "MIN_LIVE_PERIOD", "live_reload_app"]

LIVE_SCRIPT_PATH = "/flowjob-live.js"
_INDEX_PATHS = ("/", "/index.html")
_TAG = b'<script src="flowjob-live.js"></script>'


MIN_LIVE_PERIOD = 0.25


def _script(period: float) -> bytes:
    config = f"window.flowjobLive = {{periodMs: {round(period * 1000)}}};\n".encode()
    return config + resources.files(__package__).joinpath("static", "live.js").read_bytes()


def live_reload_app(app: Callable, period: float) -> Callable:
    """``app`` (TensorBoard's WSGI app, served at the root) with ``live.js`` served at
    :data:`LIVE_SCRIPT_PATH` and loaded first by ``index.html``; the open page reloads its
    data every ``period`` seconds (at least :data:`MIN_LIVE_PERIOD`)."""
    if not period >= MIN_LIVE_PERIOD:
        raise ValueError(f"live period must be >= {MIN_LIVE_PERIOD} s, got {period!r}")
    script = _script(period)

    def wrapped(environ: dict, start_response: Callable) -> Iterable[bytes]:
        path = environ.get("PATH_INFO", "")
        if path == LIVE_SCRIPT_PATH:
            start_response(
                "200 OK",
                [
                    ("Content-Type", "text/javascript; charset=utf-8"),
                    ("Content-Length", str(len(script))),
                    ("Cache-Control", "no-cache"),
                    ("X-Content-Type-Options", "nosniff"),
                ],
            )
            return [script]
        if path not in _INDEX_PATHS:
            return app(environ, start_response)
        status, headers, body = whole_answer(app, environ)
        encoded = any(
            k.lower() == "content-encoding" and v.lower() != "identity" for k, v in headers
        )
        if status.startswith("200") and not encoded and b"<head>" in body:
            body = body.replace(b"<head>", b"<head>" + _TAG, 1)
            headers = [(k, v) for k, v in headers if k.lower() != "content-length"]
            headers.append(("Content-Length", str(len(body))))
        start_response(status, headers)
        return [body]

    return wrapped
