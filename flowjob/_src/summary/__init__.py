"""``flow.summary``: TensorBoard logs from jobs (OneFlow's ops) and from plain Python.

Job ops (inside a ``@flow.global_function`` body): ``create_summary_writer``,
``flush_summary_writer``, ``scalar``, ``histogram``, ``image``, ``pb``.
Host helpers: ``text``, ``hparams`` with ``HParam``/``Hparam``, ``RealRange``,
``IntegerRange``, ``ValueSet``, ``Metric``; ``hparams_config``, ``metric_tag``;
``Projector``; ``Graph``; ``watch_model`` (a train job's every variable, histograms and
norms of values and gradients, on every N-th step).
Python API: ``SummaryWriter`` (and the lower-level ``EventFileWriter``).
Reading the exception projector's records back (flowjob's TensorBoard plugin does):
``read_anomaly_records`` gives the ``AnomalyRecord``s of a run directory, the one holding
``PROJECTOR_CONFIG`` (its files live below it in ``PROJECTOR_ASSET_DIR``).
"""

from ._anomaly_files import AnomalyFormatError, AnomalyRecord, FlaggedSample
from ._anomaly_files import read_run as read_anomaly_records
from ._event_writer import EventFileWriter, EventWriteError
from ._hparams import (
    HParam,
    Hparam,
    IntegerRange,
    Metric,
    RealRange,
    TrialStatus,
    ValueSet,
    hparams,
    hparams_config,
    metric_tag,
)
from ._ops import (
    create_summary_writer,
    flush_summary_writer,
    histogram,
    image,
    pb,
    scalar,
)
from ._projector_files import ASSET_DIR as PROJECTOR_ASSET_DIR
from ._projector_files import CONFIG_NAME as PROJECTOR_CONFIG
from ._records import (
    MAX_RECORD_BYTES,
    RecordCorruptError,
    frame_record,
    masked_crc32c,
    read_records,
)
from ._text import text
from ._watch_model import watch_model
from ._writer import SummaryWriter

__all__ = [
    "EventFileWriter",
    "EventWriteError",
    "RecordCorruptError",
    "read_records",
    "frame_record",
    "masked_crc32c",
    "MAX_RECORD_BYTES",
    "SummaryWriter",
    "create_summary_writer",
    "flush_summary_writer",
    "scalar",
    "histogram",
    "image",
    "pb",
    "text",
    "watch_model",
    "hparams",
    "hparams_config",
    "HParam",
    "Hparam",
    "RealRange",
    "IntegerRange",
    "ValueSet",
    "Metric",
    "metric_tag",
    "AnomalyRecord",
    "FlaggedSample",
    "AnomalyFormatError",
    "read_anomaly_records",
    "PROJECTOR_CONFIG",
    "PROJECTOR_ASSET_DIR",
    "TrialStatus",
]

# The projector and the structure graph are a colleague's modules; export them once present.
try:
    from ._projector import Projector  # noqa: F401
except ModuleNotFoundError as _e:  # pragma: no cover - only while that module is missing
    if _e.name != f"{__name__}._projector":
        raise
else:
    __all__.append("Projector")
try:
    from ._structure_graph import Graph  # noqa: F401
except ModuleNotFoundError as _e:  # pragma: no cover - only while that module is missing
    if _e.name != f"{__name__}._structure_graph":
        raise
else:
    __all__.append("Graph")
