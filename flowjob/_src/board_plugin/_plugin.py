"""The Anomalies tab: a dynamic TensorBoard plugin over the exception projector's records.

TensorBoard loads it through the ``tensorboard_plugins`` entry point (declared in
``pyproject.toml``), or from :func:`with_anomaly_plugin` (``flowjob board``). The front end is
a plain ES module (``static/index.js``) that TensorBoard runs in an iframe; it reads:

* ``reports`` (or ``reports?run=R``): the anomaly records of every run (of run ``R``) as JSON
  (with an ``ETag``: a poll sending it back in ``If-None-Match`` gets a bodiless 304 while
  nothing changed),
  with the names of all runs that have records (runs are the directories below the logdir
  holding a ``projector_config.pbtxt``; ``.`` is the logdir itself; found through
  :class:`AnomalyIndex`, never by a walk per request);
* ``sample?run=R&tag=T&step=S&index=I``: one sample's image, cut from the record's sprite.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import mimetypes
import os
import threading
from importlib import resources

from PIL import Image
from tensorboard.plugins import base_plugin
from werkzeug import wrappers

from ..summary import AnomalyRecord
from ._index import AnomalyIndex
from ._safe_logs import regular_or_warn

__all__ = ["AnomalyPlugin", "PLUGIN_NAME", "with_anomaly_plugin"]

PLUGIN_NAME = "flowjob_anomaly"
_STATIC = ("index.js", "style.css")
_SPRITE_LIMIT = 256 << 20  # the projector's sprites are at most 8192 x 8192 PNGs


def _score(x: float) -> float | str:
    return x if math.isfinite(x) else "inf"


def _report_json(run: str, rec: AnomalyRecord) -> dict:
    return {
        "run": run,
        "tag": rec.tag,
        "step": rec.step,
        "threshold": rec.threshold,
        "num_samples": rec.num_samples,
        "num_nonfinite": rec.num_nonfinite,
        "has_images": rec.sprite_path is not None,
        "flagged": [
            {
                "index": s.index,
                "score": _score(s.score),
                "label": s.label,
                "prediction": s.prediction,
            }
            for s in rec.flagged
        ],
    }


def _respond(body: bytes | str, mimetype: str, status: int = 200) -> wrappers.Response:
    response = wrappers.Response(body, status=status, mimetype=mimetype)
    response.headers["Cache-Control"] = "no-cache"
    response.headers["X-Content-Type-Options"] = "nosniff"
    return response


class AnomalyPlugin(base_plugin.TBPlugin):
    """Lists the samples the exception projector flagged, per run and step (tab "Anomalies")."""

    plugin_name = PLUGIN_NAME

    def __init__(self, context: base_plugin.TBContext):
        self._index = AnomalyIndex(context.logdir or "")
        self._sprites: dict[str, tuple[float, Image.Image]] = {}
        self._sprites_lock = threading.Lock()

    # -- TBPlugin -------------------------------------------------------------------------
    def get_plugin_apps(self):
        apps = {f"/{name}": self._serve_static for name in _STATIC}
        apps["/reports"] = self._serve_reports
        apps["/sample"] = self._serve_sample
        return apps

    def is_active(self) -> bool:
        return any(self._index.records(run) for run in self._index.runs())

    def frontend_metadata(self) -> base_plugin.FrontendMetadata:
        return base_plugin.FrontendMetadata(es_module_path="/index.js", tab_name="Anomalies")

    def data_plugin_names(self):
        return ()  # reads files beside the event files, not summaries

    # -- routes ---------------------------------------------------------------------------
    @wrappers.Request.application
    def _serve_static(self, request):
        name = request.path.rsplit("/", 1)[-1]
        data = resources.files(__package__).joinpath("static", name).read_bytes()
        mimetype = mimetypes.guess_type(name)[0] or "application/octet-stream"
        if name.endswith(".js"):
            mimetype = "text/javascript"
        return _respond(data, mimetype)

    @wrappers.Request.application
    def _serve_reports(self, request):
        records = {run: self._index.records(run) for run in self._index.runs()}
        runs = [run for run, recs in records.items() if recs]
        wanted = request.args.get("run")
        body = [
            _report_json(run, rec) for run in runs if wanted in (None, run) for rec in records[run]
        ]
        data = json.dumps({"runs": runs, "reports": body}).encode()
        # The page polls every live period: an unchanged answer is a bodiless 304.
        etag = '"' + hashlib.blake2b(data, digest_size=12).hexdigest() + '"'
        if request.headers.get("If-None-Match") == etag:
            response = _respond(b"", "application/json", 304)
        else:
            response = _respond(data, "application/json")
        response.headers["ETag"] = etag
        return response

    @wrappers.Request.application
    def _serve_sample(self, request):
        args = request.args
        try:
            run, tag = args["run"], args["tag"]
            step, index = int(args["step"]), int(args["index"])
        except (KeyError, ValueError):
            return _respond("expected run, tag, step and index (integers)", "text/plain", 400)
        rec = self._index.record(run, tag, step)
        if rec is None or rec.sprite_path is None or not 0 <= index < rec.num_samples:
            return _respond(
                f"no sample {index} of {tag!r} step {step} in run {run!r}", "text/plain", 404
            )
        sprite = self._sprite(os.path.join(rec.directory, os.path.basename(rec.sprite_path)))
        if sprite is None:
            return _respond("sprite image missing", "text/plain", 404)
        row, col = divmod(index, rec.sprite_columns)
        cell = rec.sprite_cell
        buf = io.BytesIO()
        sprite.crop((col * cell, row * cell, (col + 1) * cell, (row + 1) * cell)).save(buf, "PNG")
        return _respond(buf.getvalue(), "image/png")

    def _sprite(self, path: str) -> Image.Image | None:
        """The decoded sprite at ``path``, cached until the file changes."""
        if not regular_or_warn(path, "sprite image", _SPRITE_LIMIT):
            return None  # a FIFO would hang the request, a huge file exhaust memory
        try:
            mtime = os.stat(path).st_mtime
        except OSError:
            return None
        with self._sprites_lock:
            cached = self._sprites.get(path)
            if cached is None or cached[0] != mtime:
                with Image.open(path) as image:
                    image.load()
                    cached = self._sprites[path] = (mtime, image.copy())
            return cached[1]


def with_anomaly_plugin(plugins: list) -> list:
    """``plugins`` (TensorBoard's plugin list) with :class:`AnomalyPlugin` appended unless the
    ``tensorboard_plugins`` entry point already put it there."""
    if any(getattr(p, "plugin_name", None) == PLUGIN_NAME for p in plugins):
        return list(plugins)
    return [*plugins, AnomalyPlugin]
