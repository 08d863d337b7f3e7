"""Answers of TensorBoard's data routes, kept while the logs TensorBoard has loaded stay the
same: the open live page asks the same questions every period (runs, plugin list, tags,
series), and at idle every answer would be recomputed, serialized and compressed again.

:class:`LoadedLogs` follows TensorBoard's reloads of the logs: it wraps the ``Reload`` of the
event multiplexer TensorBoard hands its plugins (``TBContext.multiplexer``, the Python loader
``flowjob board`` uses), takes the size and modification time of every file under the logdir
before each reload, and publishes them once that reload has finished. Every answer given after
that reload reflects at least those files, so an answer stays valid until a later reload starts
from different files. :func:`cached_data_app` keeps the JSON answers of TensorBoard's own data
routes under that generation (by method, path, query, body and the headers that shape an
answer; a form's boundary left out) and drops them all when it changes. Plugins that read
other state, and answers that are not JSON (images, audio), always go to TensorBoard.
"""

from __future__ import annotations

import io
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable

from tensorboard.plugins import base_plugin

from ._wsgi import whole_answer

__all__ = ["LoadedLogs", "cached_data_app"]

# TensorBoard's core routes and the built-in plugins whose answers come from the loaded logs.
_CORE = ("/data/runs", "/data/plugins_listing", "/data/environment")
_PLUGINS = (
    "timeseries",
    "scalars",
    "custom_scalars",
    "histograms",
    "distributions",
    "images",
    "audio",
    "text",
    "hparams",
    "pr_curves",
    "graphs",
)
_HEADERS = ("HTTP_ACCEPT_ENCODING", "CONTENT_TYPE", "HTTP_X_TENSORBOARD_FEATURE_FLAGS")
_MAX_ANSWER = 8 << 20  # bytes of one kept answer
_MAX_TOTAL = 64 << 20  # bytes of all kept answers


def _cacheable(path: str) -> bool:
    if path.startswith("/experiment/"):  # the Angular app asks /experiment/ID/data/...
        path = "/" + path.split("/", 3)[3] if path.count("/") >= 3 else path
    if path in _CORE:
        return True
    parts = path.split("/")  # "", "data", "plugin", NAME, ROUTE...
    return len(parts) >= 5 and parts[1:3] == ["data", "plugin"] and parts[3] in _PLUGINS


class LoadedLogs(base_plugin.TBLoader):
    """A plugin loader that adds no plugin: it follows TensorBoard's reloads of ``logdir``.
    :attr:`generation` is ``None`` until the first reload it saw has finished, then the
    files (path, size, modification time) that reload started from."""

    def __init__(self, logdir: str):
        self.logdir = logdir
        self.generation: tuple | None = None

    def load(self, context: base_plugin.TBContext) -> None:
        multiplexer = getattr(context, "multiplexer", None)
        reload = getattr(multiplexer, "Reload", None)
        if reload is None:  # another data loader: nothing to follow, nothing kept
            return None

        def following_reload(*args, **kwargs):
            files = self._files()
            result = reload(*args, **kwargs)
            self.generation = files
            return result

        multiplexer.Reload = following_reload  # the reload thread looks it up every time
        return None

    def _files(self) -> tuple:
        found = []
        for folder, dirs, names in os.walk(self.logdir):
            dirs.sort()
            for name in sorted(names):
                path = os.path.join(folder, name)
                try:
                    st = os.stat(path)
                except OSError:
                    continue  # gone meanwhile: the next reload sees the change
                found.append((path, st.st_size, st.st_mtime_ns))
        return tuple(found)


def _question(body: bytes, environ: dict) -> tuple:
    """The body and the headers that shape an answer, with a form's boundary taken out (the
    browser picks a new one for each request: Time Series posts its series as a form)."""
    headers = [environ.get(h, "") for h in _HEADERS]
    kind, _, boundary = headers[1].partition("; boundary=")
    if kind == "multipart/form-data" and boundary:
        body, headers[1] = body.replace(boundary.strip('"').encode(), b""), kind
    return (body, *headers)


def cached_data_app(app: Callable, logs: LoadedLogs) -> Callable:
    """``app`` (TensorBoard's WSGI app) with the JSON answers of its data routes kept while
    ``logs.generation`` stays the same (at most 64 MiB, least recently used dropped)."""
    lock = threading.Lock()
    kept: OrderedDict[tuple, tuple[str, list, bytes]] = OrderedDict()
    state = {"generation": None, "bytes": 0}

    def wrapped(environ: dict, start_response: Callable) -> Iterable[bytes]:
        generation = logs.generation
        method = environ.get("REQUEST_METHOD", "GET")
        path = environ.get("PATH_INFO", "")
        if generation is None or method not in ("GET", "POST") or not _cacheable(path):
            return app(environ, start_response)
        body = b""
        if method == "POST":
            try:
                length = int(environ.get("CONTENT_LENGTH") or 0)
            except ValueError:
                return app(environ, start_response)
            body = environ["wsgi.input"].read(length) if length > 0 else b""
            environ["wsgi.input"] = io.BytesIO(body)
        key = (method, path, environ.get("QUERY_STRING", ""), *_question(body, environ))
        with lock:
            if state["generation"] != generation:
                kept.clear()
                state["generation"], state["bytes"] = generation, 0
            hit = kept.get(key)
            if hit is not None:
                kept.move_to_end(key)
        if hit is not None:
            start_response(hit[0], list(hit[1]))
            return [hit[2]]

        status, headers, answer = whole_answer(app, environ)
        json_answer = any(
            k.lower() == "content-type" and v.split(";")[0].strip() == "application/json"
            for k, v in headers
        )
        if status.startswith("200") and json_answer and len(answer) <= _MAX_ANSWER:
            with lock:
                # answered from at least `generation`'s files: kept under it, unless it moved on
                if state["generation"] == generation and key not in kept:
                    kept[key] = (status, list(headers), answer)
                    state["bytes"] += len(answer)
                    while state["bytes"] > _MAX_TOTAL:
                        _, (_, _, dropped) = kept.popitem(last=False)
                        state["bytes"] -= len(dropped)
        start_response(status, headers)
        return [answer]

    return wrapped
