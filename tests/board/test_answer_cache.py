"""The board's kept data answers (``cached_data_app`` over ``LoadedLogs``): an answer is
reused only while TensorBoard's reloads start from the same files, never before the first
reload, never for other routes or non-JSON answers; POST bodies and headers are part of the
question. TensorBoard's app is stood in for by a WSGI app counting its calls; the freshness
seen by a real page is measured in ``test_live_delay.py``."""

from __future__ import annotations

import io
import json
import types

from werkzeug.test import Client

from flowjob._src.board_plugin import LoadedLogs, cached_data_app


class Multiplexer:
    def __init__(self):
        self.reloads = 0

    def Reload(self):  # noqa: N802 - TensorBoard's spelling
        self.reloads += 1


def counting_app():
    calls = []

    def app(environ, start_response):
        length = int(environ.get("CONTENT_LENGTH") or 0)
        body = environ["wsgi.input"].read(length) if length else b""
        calls.append((environ["PATH_INFO"], body))
        path = environ["PATH_INFO"]
        kind = "image/png" if path.endswith("individualImage") else "application/json"
        answer = json.dumps({"call": len(calls), "body": body.decode()}).encode()
        start_response("200 OK", [("Content-Type", kind), ("X-Frame-Options", "DENY")])
        return [answer]

    return app, calls


def setup(tmp_path):
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "events.out.tfevents.1").write_bytes(b"x" * 10)
    logs = LoadedLogs(str(tmp_path))
    mux = Multiplexer()
    assert logs.load(types.SimpleNamespace(multiplexer=mux)) is None  # adds no plugin
    app, calls = counting_app()
    return Client(cached_data_app(app, logs)), mux, calls


def test_nothing_is_kept_before_the_first_reload(tmp_path):
    client, mux, calls = setup(tmp_path)
    for _ in range(2):
        assert client.get("/data/runs").status_code == 200
    assert len(calls) == 2


def test_answers_are_kept_until_a_reload_starts_from_changed_files(tmp_path):
    client, mux, calls = setup(tmp_path)
    mux.Reload()
    first = client.get("/data/plugin/scalars/tags")
    again = client.get("/data/plugin/scalars/tags")
    assert len(calls) == 1 and again.get_data() == first.get_data()
    assert again.headers["X-Frame-Options"] == "DENY"  # TensorBoard's headers come along
    mux.Reload()  # nothing changed
    client.get("/data/plugin/scalars/tags")
    assert len(calls) == 1
    with open(tmp_path / "run" / "events.out.tfevents.1", "ab") as f:
        f.write(b"more")
    client.get("/data/plugin/scalars/tags")
    assert len(calls) == 1  # written, but TensorBoard has not read it yet
    mux.Reload()
    newer = client.get("/data/plugin/scalars/tags")
    assert len(calls) == 2 and json.loads(newer.get_data())["call"] == 2
    (tmp_path / "run2").mkdir()  # a new run's file
    (tmp_path / "run2" / "events.out.tfevents.2").write_bytes(b"y")
    mux.Reload()
    client.get("/data/plugin/scalars/tags")
    assert len(calls) == 3
    assert mux.reloads == 4  # TensorBoard's own reload ran every time


def test_the_question_includes_query_body_and_encoding(tmp_path):
    client, mux, calls = setup(tmp_path)
    mux.Reload()
    for _ in range(2):
        client.get("/data/plugin/scalars/scalars?run=a&tag=t")
        client.get("/data/plugin/scalars/scalars?run=b&tag=t")
        client.get("/experiment/defaultExperimentId/data/runs")  # the Angular app's spelling
        client.get("/data/runs", headers={"Accept-Encoding": "gzip"})
        client.get("/data/runs")
        for req in ('{"requests": [1]}', '{"requests": [2]}'):
            answer = client.post(
                "/data/plugin/timeseries/timeSeries",
                data=io.BytesIO(req.encode()),
                content_type="application/json",
                content_length=len(req),
            )
            assert json.loads(answer.get_data())["body"] == req  # the app read the body
    assert len(calls) == 7


def test_other_routes_and_non_json_answers_always_reach_tensorboard(tmp_path):
    client, mux, calls = setup(tmp_path)
    mux.Reload()
    for _ in range(2):
        client.get("/data/plugin/flowjob_anomaly/reports")  # reads its own files
        client.get("/data/plugin/projector/runs")
        client.get("/experiment/defaultExperimentId/data/plugin/projector/runs")
        client.get("/data/plugin/images/individualImage?blob_key=k")  # not JSON
        client.get("/index.html")
    assert len(calls) == 10


def test_a_form_is_the_same_question_whatever_its_boundary(tmp_path):
    """Time Series posts its series as multipart/form-data; the browser picks a new boundary
    for every request."""
    client, mux, calls = setup(tmp_path)
    mux.Reload()

    def post(boundary: str, requests: str):
        body = (
            f'--{boundary}\r\nContent-Disposition: form-data; name="requests"\r\n\r\n'
            f"{requests}\r\n--{boundary}--\r\n"
        )
        return client.post(
            "/data/plugin/timeseries/timeSeries",
            data=io.BytesIO(body.encode()),
            content_type=f"multipart/form-data; boundary={boundary}",
            content_length=len(body),
        )

    first = post("----WebKitFormBoundaryA1", "[1]")
    assert post("----WebKitFormBoundaryB2", "[1]").get_data() == first.get_data()
    assert len(calls) == 1
    post("----WebKitFormBoundaryC3", "[2]")
    assert len(calls) == 2
