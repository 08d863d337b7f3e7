"""flowjob's TensorBoard plugin: the Anomalies tab (samples flagged by the exception
projector, with image, score, threshold, label and prediction), and the live-page wrapper
``flowjob board`` puts around TensorBoard's app, with the data answers it keeps while the
loaded logs stay the same.

Registered with TensorBoard by the ``tensorboard_plugins`` entry point of the flowjob
package; ``flowjob board`` also adds it when the entry point is missing (a source checkout).
"""

from ._answer_cache import LoadedLogs, cached_data_app
from ._live import LIVE_SCRIPT_PATH, MIN_LIVE_PERIOD, live_reload_app
from ._live_runs import LIVE_RUNS_PATH, live_runs_app
from ._plugin import PLUGIN_NAME, AnomalyPlugin, with_anomaly_plugin
from ._projector import LiveProjectorPlugin, with_live_projector
from ._safe_logs import install as install_safe_logs

__all__ = [
    "AnomalyPlugin",
    "PLUGIN_NAME",
    "with_anomaly_plugin",
    "LiveProjectorPlugin",
    "with_live_projector",
    "live_reload_app",
    "live_runs_app",
    "LIVE_RUNS_PATH",
    "LoadedLogs",
    "cached_data_app",
    "LIVE_SCRIPT_PATH",
    "MIN_LIVE_PERIOD",
    "install_safe_logs",
]
