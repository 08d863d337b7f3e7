"""``flow.summary.watch_model``: every trainable variable of a train job logged with no code
per variable (as ``wandb.watch(model, log="all")`` or Keras' TensorBoard callback do).

Called in a train job's body, it asks the train step to compute, on every ``every_n_steps``-th
step (the train step before the update is a multiple of it: 0, N, 2N, ...):

* per trainable variable ``v`` (its OneFlow name): ``~model/<v>/value`` and
  ``~model/<v>/grad``, histograms of its value before the update and of its gradient;
  ``~model/<v>/value_norm`` and ``~model/<v>/grad_norm``, their L2 norms; and
  ``~model/<v>/update_ratio``, ``||update|| / ||value||`` (left out while the value is all
  zeros);
* ``~model/learning_rate``: the optimizer's learning rate at that step, and
  ``~model/loss_scale`` under loss scaling.

The gradient is the one the optimizer receives before regularization and clipping: the
derivative of the job's losses, each divided by the element count of the first (OneFlow's
1/N), with the loss scale divided out. Everything is computed inside the compiled step: the
runtime compiles a second variant of the step with these outputs and calls it on the logging
steps only, so the other steps run the program they would run without ``watch_model``.
Histograms use the uniform-bucket rule of ``SummaryWriter.histogram`` (NaN/Inf left out and
reported by the writer). The ``~model`` group sorts after the user's tags in TensorBoard, like
``~anomaly`` and ``~hparams``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .. import graph as _graph
from ..errors import OpError, describe_frame, user_frame
from ._event_exit import install_exit_hooks
from ._histogram import DEFAULT_BINS, NonFinite, check_bins
from ._live_writers import acquire_writer
from ._ops import default_writer

__all__ = ["watch_model", "ModelWatch", "MODEL_PREFIX"]

MODEL_PREFIX = "~model/"


def _fail(msg: str) -> OpError:
    return OpError(f"flow.summary.watch_model: {msg}\n  at {describe_frame(user_frame())}")


class ModelWatch:
    """What ``watch_model`` asked of one train job. The runtime calls :meth:`statistics`
    inside the compiled step of the logging steps (every ``every_n_steps``-th) and hands the
    outputs, after the train step, to :meth:`writer`'s function on the host."""

    def __init__(self, every_n_steps: int, bins: int, logdir: str | None):
        self.every_n_steps = every_n_steps
        self.bins = bins
        self.logdir = logdir

    def statistics(
        self,
        params: Mapping[str, Any],
        grads: Mapping[str, Any],
        new_params: Mapping[str, Any],
        learning_rate: Any,
        loss_scale: Any,
    ) -> tuple:
        """Two JAX arrays, packed so that a logging step fetches two outputs rather than a
        dozen per variable: ``floats`` (float32) holds per variable in ``sorted(params)``
        the minimum and maximum of its value and of its gradient and the value, gradient and
        update norms, then the learning rate and the loss scale (1 without loss scaling);
        ``counts`` (int32) holds per variable its value's and its gradient's bucket counts,
        each followed by its non-finite counts (``_device_histogram``)."""
        import jax.numpy as jnp

        floats: list = []
        counts: list = []
        for name in sorted(params):
            value = params[name]
            update = new_params[name].astype(jnp.float32) - value.astype(jnp.float32)
            v_squares, g_squares = _squares(value), _squares(grads[name])
            v_lo, v_hi, v_counts, v_bad = _device_histogram(value, self.bins, v_squares)
            g_lo, g_hi, g_counts, g_bad = _device_histogram(grads[name], self.bins, g_squares)
            norms = [jnp.sqrt(v_squares), jnp.sqrt(g_squares), jnp.sqrt(_squares(update))]
            floats += [v_lo, v_hi, g_lo, g_hi, *norms]
            counts += [v_counts, v_bad, g_counts, g_bad]
        floats.append(jnp.asarray(learning_rate, jnp.float32).reshape(()))
        floats.append(
            jnp.ones((), jnp.float32)
            if loss_scale is None
            else jnp.asarray(loss_scale, jnp.float32).reshape(())
        )
        return jnp.stack(floats), jnp.concatenate(counts)

    def output_count(self) -> int:
        """The step's outputs, whatever the number of trained variables: the train step,
        then :meth:`statistics`' two arrays."""
        return 3

    def writer(self, names: Sequence[str], has_loss_scale: bool):
        """``fn(step, floats, counts)`` for the host delivery: writes the summaries of a
        logging step from :meth:`statistics`' arrays."""
        names = sorted(names)
        per_histogram = self.bins + _NONFINITE  # its counts, then its non-finite counts

        def write(step_array, floats, counts) -> None:
            step = int(np.asarray(step_array).reshape(()))
            floats = np.asarray(floats, np.float64)  # as float(): summaries carry doubles
            counts = np.asarray(counts)
            w = default_writer("watch_model") if self.logdir is None else self._own_writer()
            for i, name in enumerate(names):
                v_lo, v_hi, g_lo, g_hi, value_norm, grad_norm, update_norm = (
                    float(f) for f in floats[i * _FLOATS : (i + 1) * _FLOATS]
                )
                at = 2 * i * per_histogram
                v_counts = counts[at : at + per_histogram]
                g_counts = counts[at + per_histogram : at + 2 * per_histogram]
                base = f"{MODEL_PREFIX}{name}/"
                w.histogram_from_buckets(
                    base + "value", *_host_histogram(v_lo, v_hi, v_counts), step
                )
                w.histogram_from_buckets(
                    base + "grad", *_host_histogram(g_lo, g_hi, g_counts), step
                )
                w.scalar(base + "value_norm", value_norm, step)
                w.scalar(base + "grad_norm", grad_norm, step)
                if value_norm > 0:
                    w.scalar(base + "update_ratio", update_norm / value_norm, step)
            w.scalar(MODEL_PREFIX + "learning_rate", float(floats[-2]), step)
            if has_loss_scale:
                w.scalar(MODEL_PREFIX + "loss_scale", float(floats[-1]), step)

        return write

    def _own_writer(self):
        w = getattr(self, "_writer", None)
        if w is None or w.closed:
            w = self._writer = acquire_writer(self.logdir)
        return w


_FLOATS = 7  # per variable: value min and max, gradient min and max, three norms
_NONFINITE = 3  # NaN, +Inf, -Inf
_SMALL = 4096  # elements: below this the masked histogram costs less than a conditional


def _squares(x):
    """The sum of squares in float32: the squared L2 norm."""
    import jax.numpy as jnp

    x = x.astype(jnp.float32)
    return jnp.sum(x * x)


def _device_histogram(x, bins: int, squares) -> list:
    """``[min, max, counts (int32, bins), nonfinite (int32, 3: NaN, +Inf, -Inf)]`` of the
    finite elements of ``x``, bucket ``i`` holding ``floor((x - min) * bins / (max - min))
    == i`` (the maximum in the last), all in the last bucket when ``min == max``.

    ``squares``, ``x``'s sum of squares (``_squares``, computed for its norm anyway), is
    finite when every element is (a sum propagates NaN and Inf; XLA:CPU's minimum and
    maximum do not always), so the common case counts without masking out non-finite
    elements (a quarter less work for a large weight); a tensor holding NaN or Inf, or
    whose sum of squares overflows, takes the masked way. A small tensor (at most
    ``_SMALL`` elements) always takes it: there the conditional costs more than the
    masking."""
    import jax.numpy as jnp
    from jax import lax

    x = x.reshape(-1).astype(jnp.float32)
    lo, hi = jnp.min(x), jnp.max(x)

    def counts_of(values, mn, mx, weights):
        span = mx - mn
        scaled = jnp.where(
            span > 0, (values - mn) * (bins / jnp.where(span > 0, span, 1.0)), bins - 1
        )
        index = jnp.clip(jnp.floor(scaled), 0, bins - 1).astype(jnp.int32)
        return jnp.zeros((bins,), jnp.int32).at[index].add(weights)

    def all_finite(x):
        return [lo, hi, counts_of(x, lo, hi, 1), jnp.zeros((3,), jnp.int32)]

    def masked(x):
        finite = jnp.isfinite(x)
        mn = jnp.min(jnp.where(finite, x, jnp.inf))
        mx = jnp.max(jnp.where(finite, x, -jnp.inf))
        counts = counts_of(jnp.where(finite, x, mn), mn, mx, finite.astype(jnp.int32))
        nonfinite = jnp.stack(
            [jnp.sum(jnp.isnan(x)), jnp.sum(x == jnp.inf), jnp.sum(x == -jnp.inf)]
        ).astype(jnp.int32)
        return [mn, mx, counts, nonfinite]

    if x.size <= _SMALL:
        return masked(x)
    return lax.cond(jnp.isfinite(squares), all_finite, masked, x)


def _host_histogram(mn: float, mx: float, counts: np.ndarray) -> tuple[np.ndarray, NonFinite]:
    """``(buckets [k, 3], nonfinite)`` from ``_device_histogram``'s minimum, maximum and its
    counts followed by its non-finite counts, with ``SummaryWriter.histogram``'s edges
    (``linspace(min, max, k + 1)``)."""
    counts, (nan, posinf, neginf) = counts[:-_NONFINITE], counts[-_NONFINITE:].tolist()
    missing = NonFinite(nan, posinf, neginf)
    counts = counts.astype(np.float64)
    if not counts.sum():
        return np.zeros((0, 3), np.float64), missing
    k = counts.size
    buckets = np.empty((k, 3), np.float64)
    if mn == mx:
        buckets[:, 0] = buckets[:, 1] = mn
    else:
        edges = np.linspace(mn, mx, k + 1)
        buckets[:, 0], buckets[:, 1] = edges[:-1], edges[1:]
    buckets[:, 2] = counts
    return buckets, missing


def watch_model(
    every_n_steps: int = 100,
    bins: int = DEFAULT_BINS,
    logdir: str | os.PathLike | None = None,
) -> None:
    """Job op: logs every trainable variable of this train job (value and gradient
    histograms, their norms, the update/value ratio) and the optimizer's learning rate and
    loss scale, on every ``every_n_steps``-th step, under ``~model/`` (see the module's
    docstring for the tags). They go to the writer of ``create_summary_writer`` in the job,
    or to ``logdir``'s when given.

    Example::

        import numpy as np
        import flowjob as flow
        import flowjob.typing as tp

        @flow.global_function(type="train")
        def train(x: tp.Numpy.Placeholder((8, 4))) -> tp.Numpy:
            flow.summary.create_summary_writer("logs")
            w = flow.get_variable("w", (4, 1), initializer=flow.random_normal_initializer())
            loss = flow.math.reduce_mean(flow.matmul(x, w) ** 2)
            flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.1])).minimize(loss)
            flow.summary.watch_model(every_n_steps=10)
            return loss

        for _ in range(20):
            train(np.ones((8, 4), np.float32))
    """
    if not _graph.in_job():
        raise _fail("call it in the body of a @flow.global_function(type='train') job")
    if (
        not isinstance(every_n_steps, (int, np.integer))
        or isinstance(every_n_steps, bool)
        or every_n_steps < 1
    ):
        raise _fail(f"every_n_steps must be an int >= 1, got {every_n_steps!r}")
    check_bins(bins, "flow.summary.watch_model")
    if logdir is not None:
        if not isinstance(logdir, (str, os.PathLike)) or not os.fspath(logdir):
            raise _fail(f"logdir must be a non-empty path, got {logdir!r}")
        logdir = os.fspath(logdir)
        install_exit_hooks()
    graph = _graph.current_graph()
    if graph.model_watch is not None:
        raise _fail(f"job {graph.name!r} already calls watch_model once")
    graph.model_watch = ModelWatch(int(every_n_steps), int(bins), logdir)
