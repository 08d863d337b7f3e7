"""``flow.summary``: TensorBoard logs from jobs (OneFlow's ops) and from plain Python.

Job ops (inside a ``@flow.global_function`` body): ``create_summary_writer``,
``flush_summary_writer``, ``scalar``, ``histogram``, ``image``, ``pb``.
Host helpers: ``text``, ``hparams`` with ``HParam``/``Hparam``, ``RealRange``,
``IntegerRange``, ``ValueSet``, ``Metric``; ``hparams_config``, ``metric_tag``;
``Projector``; ``Graph``; ``watch_model`` (every trainable variable of a train job, on every
N-th step).
Python API: ``SummaryWriter`` (and the lower-level ``EventFileWriter``).
Reading the exception projector's records back (flowjob's TensorBoard plugin does):
``read_anomaly_records`` gives the ``AnomalyRecord``s of a run directory, the one holding
``PROJECTOR_CONFIG`` (its files live below it in ``PROJECTOR_ASSET_DIR``).
"""

from ._src._namespace import namespace_attributes as _namespace_attributes
from ._src.summary import (
    PROJECTOR_ASSET_DIR,
    PROJECTOR_CONFIG,
    AnomalyFormatError,
    AnomalyRecord,
    EventFileWriter,
    EventWriteError,
    FlaggedSample,
    Graph,
    HParam,
    Hparam,
    IntegerRange,
    Metric,
    Projector,
    RealRange,
    RecordCorruptError,
    SummaryWriter,
    TrialStatus,
    ValueSet,
    create_summary_writer,
    flush_summary_writer,
    histogram,
    hparams,
    hparams_config,
    image,
    metric_tag,
    pb,
    read_anomaly_records,
    read_records,
    scalar,
    text,
    watch_model,
)

_deprecations: dict = {}
__getattr__, __dir__ = _namespace_attributes(__name__, _deprecations)
