"""Hyper-parameter summaries for TensorBoard's HParams tab (OneFlow's ``flow.summary.hparams``).

Layout (visualization.md 2.2): every trial is its own run directory, a sibling of the others::

    logdir/
      trial-a/  events...   <- experiment + session_start_info + metric scalars (+ end info)
      trial-b/  events...

* ``_hparams_/experiment``: the columns. It lists every hparam with its domain (``RealRange``
  and ``IntegerRange`` as intervals, ``ValueSet`` as a discrete list, a plain bool as
  ``{False, True}``) and every ``Metric``. TensorBoard uses the *first* experiment it finds in
  the whole logdir, so each trial writes the same one as long as the trials declare the same
  keys (the usual sweep). If trials declare different keys, pass ``experiment=False`` to the
  trials and write :func:`hparams_config` with the union once, from a writer in ``logdir``.
* ``_hparams_/session_start_info``: this trial's values (bool stays bool, numbers are float64,
  str is str); ``group_name`` is ``trial_id`` when given, else empty: TensorBoard then names
  the trial after its run (a hash of the values would name every row by a hash).
* Metric values given in the dict are written as scalars under ``~hparams/<name>`` in the
  trial's run, and the experiment declares that tag with the display name ``<name>``: the table
  reads a metric column from the last value of its tag, and a separate tag keeps a user's own
  series of the same name (e.g. a ``loss`` curve) exactly as logged. Log later values of the
  column under :func:`metric_tag` too.
* ``_hparams_/session_end_info``: the trial's status; TensorBoard keeps the first one written
  per run, so it is written once (here when metric results are given, or by
  ``SummaryWriter.close()``).

The values carry no tensor (TensorBoard needs only the metadata), which keeps ``str(summary)``
short enough for OneFlow's ``PbJob`` pattern.
"""

from __future__ import annotations

import enum
import math
import time
import warnings
from collections.abc import Iterable, Mapping

import numpy as np
from google.protobuf import struct_pb2
from tensorboard.compat.proto import summary_pb2
from tensorboard.plugins.hparams import api_pb2, plugin_data_pb2

__all__ = [
    "RealRange",
    "IntegerRange",
    "ValueSet",
    "HParam",
    "Hparam",
    "Metric",
    "hparams",
    "hparams_config",
    "session_end_summary",
    "metric_tag",
    "EXPERIMENT_TAG",
    "SESSION_START_TAG",
    "SESSION_END_TAG",
    "METRIC_TAG_PREFIX",
    "TrialStatus",
]

EXPERIMENT_TAG = "_hparams_/experiment"
SESSION_START_TAG = "_hparams_/session_start_info"
SESSION_END_TAG = "_hparams_/session_end_info"
# "~" sorts after letters and digits: TensorBoard's Time Series lists these one-point charts
# after the user's curves (see ANOMALY_PREFIX in _anomaly.py).
METRIC_TAG_PREFIX = "~hparams/"


class TrialStatus(str, enum.Enum):
    """How a trial ended (TensorBoard's session status); the plain strings work too."""

    UNKNOWN = "unknown"
    SUCCESS = "success"
    FAILURE = "failure"
    RUNNING = "running"


_STATUS = {
    TrialStatus.UNKNOWN: api_pb2.STATUS_UNKNOWN,
    TrialStatus.SUCCESS: api_pb2.STATUS_SUCCESS,
    TrialStatus.FAILURE: api_pb2.STATUS_FAILURE,
    TrialStatus.RUNNING: api_pb2.STATUS_RUNNING,
}


def _is_int(x) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def _is_real(x) -> bool:
    return _is_int(x) or isinstance(x, (float, np.floating))


class RealRange:
    """A real interval ``[min_value, max_value]`` domain (``min_value <= max_value``)."""

    dtype = float

    def __init__(self, min_value: float, max_value: float):
        for arg, v in (("min_value", min_value), ("max_value", max_value)):
            if not _is_real(v) or not math.isfinite(float(v)):
                raise TypeError(f"RealRange: {arg} must be a finite float, got {v!r}")
        if min_value > max_value:
            raise ValueError(f"RealRange: min_value ({min_value}) > max_value ({max_value})")
        self.min_value, self.max_value = float(min_value), float(max_value)

    def __repr__(self) -> str:
        return f"RealRange({self.min_value!r}, {self.max_value!r})"


class IntegerRange:
    """An integer interval ``[min_value, max_value]`` domain (shown by TensorBoard as float64)."""

    dtype = int

    def __init__(self, min_value: int, max_value: int):
        for arg, v in (("min_value", min_value), ("max_value", max_value)):
            if not _is_int(v):
                raise TypeError(f"IntegerRange: {arg} must be an int, got {v!r}")
        if min_value > max_value:
            raise ValueError(f"IntegerRange: min_value ({min_value}) > max_value ({max_value})")
        self.min_value, self.max_value = int(min_value), int(max_value)

    def __repr__(self) -> str:
        return f"IntegerRange({self.min_value!r}, {self.max_value!r})"


def _kind(v) -> type | None:
    if isinstance(v, (bool, np.bool_)):
        return bool
    if _is_int(v):
        return int
    if isinstance(v, (float, np.floating)):
        return float
    if isinstance(v, str):
        return str
    return None


class ValueSet:
    """A discrete domain: the sorted ``values``, all of one type (int, float, bool or str)."""

    def __init__(self, values: Iterable, dtype: type | None = None):
        values = [v.item() if isinstance(v, np.generic) else v for v in values]
        if not values:
            raise ValueError("ValueSet: values must not be empty")
        if dtype is None:
            dtype = _kind(values[0])
        if dtype not in (int, float, bool, str):
            raise ValueError(f"ValueSet: dtype must be int, float, bool or str, got {dtype!r}")
        for v in values:
            if _kind(v) is not dtype:
                raise TypeError(f"ValueSet: every value must be {dtype.__name__}, got {v!r}")
        self.dtype = dtype
        self.values = sorted(values)

    def __repr__(self) -> str:
        return f"ValueSet({self.values!r})"


class HParam:
    """A named hyper-parameter with an optional domain (OneFlow's ``HParam``/``Hparam``)."""

    def __init__(self, name: str, dtype: RealRange | IntegerRange | ValueSet | None = None):
        if not isinstance(name, str) or not name:
            raise TypeError(f"HParam: name must be a non-empty str, got {name!r}")
        if dtype is not None and not isinstance(dtype, (RealRange, IntegerRange, ValueSet)):
            raise ValueError(
                f"HParam: dtype must be IntegerRange, RealRange, ValueSet or None, got {dtype!r}"
            )
        self.name = name
        self.dtype = dtype

    def __repr__(self) -> str:
        return f"HParam({self.name!r}, {self.dtype!r})"


Hparam = HParam  # the spelling exported by OneFlow v0.2-v0.4


class Metric:
    """A metric column; its value is the last scalar logged under tag ``name`` in the trial."""

    def __init__(self, name: str, dtype: type | None = None):
        if not isinstance(name, str) or not name:
            raise TypeError(f"Metric: name must be a non-empty str, got {name!r}")
        if dtype is None:
            dtype = float
        if dtype not in (int, float):
            raise ValueError(f"Metric: dtype must be int or float, got {dtype!r}")
        self.name = name
        self.dtype = dtype

    def __repr__(self) -> str:
        return f"Metric({self.name!r}, {self.dtype.__name__})"


def _hparam_info(hp: HParam, value=None) -> api_pb2.HParamInfo:
    info = api_pb2.HParamInfo(name=hp.name)
    dom = hp.dtype
    if isinstance(dom, (RealRange, IntegerRange)):
        info.type = api_pb2.DATA_TYPE_FLOAT64
        info.domain_interval.min_value = dom.min_value
        info.domain_interval.max_value = dom.max_value
    elif isinstance(dom, ValueSet):
        info.type = {str: api_pb2.DATA_TYPE_STRING, bool: api_pb2.DATA_TYPE_BOOL}.get(
            dom.dtype, api_pb2.DATA_TYPE_FLOAT64
        )
        info.domain_discrete.extend(dom.values)
    else:  # no declared domain: type from the value; a bool's domain is obvious
        kind = _kind(value)
        if kind is bool:
            info.type = api_pb2.DATA_TYPE_BOOL
            info.domain_discrete.extend([False, True])
        elif kind is str:
            info.type = api_pb2.DATA_TYPE_STRING
        elif kind is not None:
            info.type = api_pb2.DATA_TYPE_FLOAT64
    return info


def metric_tag(name: str) -> str:
    """The scalar tag holding the values of metric ``name`` (``~hparams/<name>``)."""
    return METRIC_TAG_PREFIX + name


def _metric_info(m: Metric | str) -> api_pb2.MetricInfo:
    name = m.name if isinstance(m, Metric) else m
    return api_pb2.MetricInfo(
        name=api_pb2.MetricName(tag=metric_tag(name), group=""), display_name=name
    )


def _plugin_value(tag: str, data: plugin_data_pb2.HParamsPluginData) -> summary_pb2.Summary.Value:
    data.version = 0
    value = summary_pb2.Summary.Value(tag=tag)
    value.metadata.plugin_data.plugin_name = "hparams"
    value.metadata.plugin_data.content = data.SerializeToString()
    return value


def _check_in_domain(hp: HParam, value) -> None:
    dom = hp.dtype
    if dom is None:
        return
    if isinstance(dom, ValueSet):
        ok = _kind(value) is dom.dtype and value in dom.values
    else:
        ok = _is_real(value) and dom.min_value <= value <= dom.max_value
    if not ok:
        warnings.warn(
            f"flow.summary.hparams: value {value!r} of hparam {hp.name!r} is outside "
            f"its domain {dom!r}",
            UserWarning,
            stacklevel=4,
        )


def _split(hparams_dict: Mapping, what: str):
    if not isinstance(hparams_dict, Mapping):
        raise TypeError(f"{what}: expected a dict, got {type(hparams_dict).__name__}")
    hps: dict[str, tuple[HParam, object]] = {}
    metrics: dict[str, tuple[Metric, float]] = {}
    for key, value in hparams_dict.items():
        if isinstance(value, np.generic) or (isinstance(value, np.ndarray) and value.ndim == 0):
            value = value.item()
        if isinstance(key, Metric):
            name = key.name
        elif isinstance(key, HParam):
            name = key.name
        elif isinstance(key, str) and key:
            name, key = key, HParam(key)
        else:
            raise TypeError(f"{what}: keys must be HParam, Metric or a non-empty str, got {key!r}")
        if name in hps or name in metrics:
            raise ValueError(f"{what}: the key {name!r} is already present")
        if isinstance(key, Metric):
            if not _is_real(value):
                raise TypeError(f"{what}: metric {name!r} must be an int or float, got {value!r}")
            metrics[name] = (key, float(value))
        else:
            if _kind(value) is None:
                raise TypeError(
                    f"{what}: hparam {name!r} must be a bool, int, float or str, "
                    f"got {type(value).__name__} {value!r}"
                )
            _check_in_domain(key, value)
            hps[name] = (key, value)
    return hps, metrics


def _proto_value(v) -> struct_pb2.Value:
    if isinstance(v, bool):
        return struct_pb2.Value(bool_value=v)
    if isinstance(v, str):
        return struct_pb2.Value(string_value=v)
    return struct_pb2.Value(number_value=float(v))


def session_end_summary(
    status: TrialStatus | str = TrialStatus.SUCCESS, end_time_secs: float | None = None
) -> summary_pb2.Summary:
    """``_hparams_/session_end_info`` with ``status`` (a :class:`TrialStatus` or its value)."""
    try:
        status = TrialStatus(status)
    except ValueError:
        raise ValueError(
            f"hparams: status must be one of {[s.value for s in TrialStatus]}, got {status!r}"
        ) from None
    info = plugin_data_pb2.SessionEndInfo(
        status=_STATUS[status],
        end_time_secs=time.time() if end_time_secs is None else end_time_secs,
    )
    return summary_pb2.Summary(
        value=[
            _plugin_value(SESSION_END_TAG, plugin_data_pb2.HParamsPluginData(session_end_info=info))
        ]
    )


def hparams_config(
    hparams: Iterable[HParam | str],
    metrics: Iterable[Metric | str] = (),
    time_created_secs: float | None = None,
) -> summary_pb2.Summary:
    """An ``_hparams_/experiment`` summary only: the table's columns (see the module doc)."""
    exp = api_pb2.Experiment(
        time_created_secs=time.time() if time_created_secs is None else time_created_secs
    )
    for hp in hparams:
        exp.hparam_infos.append(_hparam_info(hp if isinstance(hp, HParam) else HParam(hp)))
    exp.metric_infos.extend(_metric_info(m) for m in metrics)
    return summary_pb2.Summary(
        value=[_plugin_value(EXPERIMENT_TAG, plugin_data_pb2.HParamsPluginData(experiment=exp))]
    )


def hparams(
    hparams: Mapping,
    *,
    trial_id: str | None = None,
    start_time_secs: float | None = None,
    experiment: bool = True,
    status: TrialStatus | str | None = "auto",
) -> summary_pb2.Summary:
    """The HParams summary of one trial (OneFlow's ``flow.summary.hparams``).

    ``hparams`` maps ``HParam``/``Hparam``, ``Metric`` or plain str keys to values (bool, int,
    float, str; NumPy scalars are unwrapped). Returns one ``Summary`` holding the experiment
    (unless ``experiment=False``), the session start info, one scalar per ``Metric`` value
    (tag ``~hparams/<name>``, never the metric's own name: see the module doc) and,
    with ``status="auto"`` and at least one metric value, a ``success`` session end info
    (``status`` may also be a :class:`TrialStatus` or its value, or None for none). Raises
    ``TypeError`` for bad keys or values and ``ValueError`` for a duplicate name; a value
    outside its declared domain only warns.
    """
    what = "flow.summary.hparams"
    hps, metrics = _split(hparams, what)
    now = time.time()
    summary = summary_pb2.Summary()
    if experiment:
        exp = api_pb2.Experiment(
            time_created_secs=now if start_time_secs is None else start_time_secs
        )
        exp.hparam_infos.extend(_hparam_info(hp, v) for hp, v in hps.values())
        exp.metric_infos.extend(_metric_info(m) for m, _ in metrics.values())
        summary.value.append(
            _plugin_value(EXPERIMENT_TAG, plugin_data_pb2.HParamsPluginData(experiment=exp))
        )
    plain = {name: v for name, (_, v) in sorted(hps.items())}
    if trial_id is not None and not (isinstance(trial_id, str) and trial_id):
        raise TypeError(f"{what}: trial_id must be a non-empty str or None, got {trial_id!r}")
    start = plugin_data_pb2.SessionStartInfo(
        group_name=trial_id or "",
        start_time_secs=now if start_time_secs is None else start_time_secs,
    )
    for name, v in plain.items():
        start.hparams[name].CopyFrom(_proto_value(v))
    summary.value.append(
        _plugin_value(
            SESSION_START_TAG, plugin_data_pb2.HParamsPluginData(session_start_info=start)
        )
    )
    for name, (_, v) in metrics.items():
        summary.value.add(tag=metric_tag(name), simple_value=v)
    if isinstance(status, str) and not isinstance(status, TrialStatus) and status == "auto":
        status = TrialStatus.SUCCESS if metrics else None
    if status is not None:
        summary.value.extend(session_end_summary(status, now).value)
    return summary
