"""TensorBoard's Projector plugin, made to see embeddings written while the board runs.

TensorBoard's projector reads each run's ``projector_config.pbtxt`` again only when the list
of runs or a run's latest checkpoint changes, so embeddings that ``flow.summary.Projector``
adds to a running experiment never reach the page. This subclass also re-reads them when a
config file it knows changes (its size or modification time: one ``stat`` per known config
per request), and leaves out a run whose config is not a regular file of a sane size. The
page side (``static/live.js``) reloads the Projector's iframe when the
configs it serves change.
"""

from __future__ import annotations

import os

from tensorboard.plugins.projector import projector_plugin

from ..summary._projector_files import CONFIG_LIMIT, CONFIG_NAME
from ._safe_logs import regular_or_warn

__all__ = ["LiveProjectorPlugin", "with_live_projector"]


class LiveProjectorPlugin(projector_plugin.ProjectorPlugin):
    """``ProjectorPlugin`` that re-reads the projector configs when one changes."""

    def __init__(self, context):
        super().__init__(context)
        self._config_stamps: tuple | None = None

    def _stamps(self) -> tuple:
        stamps = []
        for path in sorted((getattr(self, "config_fpaths", None) or {}).values()):
            try:
                st = os.stat(path)
            except OSError:
                continue
            stamps.append((path, st.st_mtime_ns, st.st_size))
        return tuple(stamps)

    def _append_plugin_asset_directories(self, run_path_pairs):
        # Called by _update_configs before any config is read: a run whose config is a FIFO,
        # a device or a huge file is left out (named once), so no read can hang or exhaust.
        super()._append_plugin_asset_directories(run_path_pairs)
        run_path_pairs[:] = [
            (run, path)
            for run, path in run_path_pairs
            if not os.path.lexists(os.path.join(path, CONFIG_NAME))
            or regular_or_warn(os.path.join(path, CONFIG_NAME), "projector config", CONFIG_LIMIT)
        ]

    def _update_configs(self):
        stamps = self._stamps()
        if self._config_stamps is not None and stamps != self._config_stamps:
            self._run_paths = None  # TensorBoard then reads every config again
        super()._update_configs()
        self._config_stamps = self._stamps()


def with_live_projector(plugins: list) -> list:
    """``plugins`` (TensorBoard's plugin list) with its ``ProjectorPlugin`` replaced by
    :class:`LiveProjectorPlugin`."""
    return [LiveProjectorPlugin if p is projector_plugin.ProjectorPlugin else p for p in plugins]
