"""TensorBoard finds the plugin through the package's ``tensorboard_plugins`` entry point, as
declared in pyproject.toml, and plain ``tensorboard`` then serves the Anomalies tab."""

from __future__ import annotations

import importlib.metadata
import json
import re
import subprocess
import sys

import numpy as np
from board_helpers import REPO, Board, free_port, repo_env, wait_for

from flowjob._src.board_plugin import PLUGIN_NAME, AnomalyPlugin, with_anomaly_plugin
from flowjob.summary import Projector
from tests.timeouts import scaled


def declared_entry_point() -> tuple[str, str]:
    """The one ``name = "target"`` line of pyproject's tensorboard_plugins table (read
    without tomllib, which Python 3.10 lacks)."""
    text = (REPO / "pyproject.toml").read_text()
    table = re.search(
        r'^\[project\.entry-points\."tensorboard_plugins"\]\n(.*?)(?:^\[|\Z)', text, re.M | re.S
    ).group(1)
    ((name, target),) = re.findall(r'^(\S+)\s*=\s*"([^"]+)"', table, re.M)
    return name, target


def installed() -> bool:
    return any(
        ep.name == PLUGIN_NAME
        for ep in importlib.metadata.entry_points(group="tensorboard_plugins")
    )


def entry_point_env(tmp_path):
    """The environment of a process that sees the declared entry point: the installed one
    (``pip install -e .``, as scripts/test.sh does), or else a distribution-info directory
    carrying the same declaration (a checkout used through PYTHONPATH)."""
    if installed():
        return repo_env()
    name, target = declared_entry_point()
    info = tmp_path / "site" / "flowjob_entry_point_probe-0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: flowjob-entry-point-probe\nVersion: 0\n"
    )
    (info / "entry_points.txt").write_text(f"[tensorboard_plugins]\n{name} = {target}\n")
    env = repo_env()
    env["PYTHONPATH"] = f"{tmp_path / 'site'}:{env['PYTHONPATH']}"
    return env


def test_declared_entry_point_loads_the_plugin(tmp_path):
    name, target = declared_entry_point()
    assert name == PLUGIN_NAME and target == "flowjob._src.board_plugin:AnomalyPlugin"
    code = (
        "import json; from tensorboard import default; "
        "print(json.dumps([[p.__module__, p.__name__, getattr(p, 'plugin_name', None)] "
        "for p in default.get_dynamic_plugins()]))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        env=entry_point_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=scaled(120),
        check=True,
    ).stdout
    assert [AnomalyPlugin.__module__, "AnomalyPlugin", PLUGIN_NAME] in json.loads(out)


def test_with_anomaly_plugin_never_doubles_it():
    from tensorboard import default

    plugins = with_anomaly_plugin(default.get_plugins())
    assert [p for p in plugins if getattr(p, "plugin_name", None) == PLUGIN_NAME] == [AnomalyPlugin]
    assert with_anomaly_plugin(plugins) == plugins


def test_plain_tensorboard_serves_the_tab(tmp_path):
    logs = tmp_path / "logs"
    rows = np.r_[np.zeros((19, 3)), [[40.0, 0.0, 0.0]]] + np.arange(20)[:, None] * 0.01
    with Projector(logs / "trial") as projector:
        projector.create_exception_projector()
        projector.exception_projector(
            value=rows, tag="odd", step=5, label=[str(i % 2) for i in range(20)]
        )
    board = Board(
        f"{sys.executable} -m tensorboard.main --logdir {logs} --host 127.0.0.1 "
        f"--port {free_port()}",
        cwd=tmp_path,
        env=entry_point_env(tmp_path),
    )
    try:
        listing = wait_for(lambda: board.get_json("/data/plugins_listing"))
        assert listing[PLUGIN_NAME]["enabled"] is True
        assert listing[PLUGIN_NAME]["loading_mechanism"] == {
            "type": "IFRAME",
            "module_path": f"/data/plugin/{PLUGIN_NAME}/index.js",
        }
        (report,) = board.get_json(f"/data/plugin/{PLUGIN_NAME}/reports")["reports"]
        assert (report["run"], report["tag"], report["step"]) == ("trial", "odd", 5)
        assert [s["index"] for s in report["flagged"]] == [19]
        assert report["flagged"][0]["label"] == "1" and report["has_images"] is False
        js = board.get(f"/data/plugin/{PLUGIN_NAME}/index.js").decode()
        assert "export function render" in js
    finally:
        board.stop()
