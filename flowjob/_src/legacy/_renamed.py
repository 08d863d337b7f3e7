"""Renamed OneFlow spellings (``flow.truncated_normal``, ``flow.data.ofrecord_loader``,
``flow.optimizer.PolynomialSchduler``); each prints OneFlow's deprecation line once per process
and otherwise works as its new name does."""

from __future__ import annotations

from .. import data, optimizer
from .._deprecation import warn_once
from ..graph import Blob
from ..ops.initializers import Initializer, truncated_sampler


def truncated_normal(stddev: float = 1.0) -> Initializer:
    """Deprecated ``flow.truncated_normal(stddev)``: mean 0, truncated at 2 sigma."""
    warn_once(
        "truncated_normal",
        "oneflow.truncated_normal is deprecated, use "
        "oneflow.truncated_normal_initializer(mean=0.0, stddev=...) instead",
    )
    if stddev < 0:
        raise ValueError(f"truncated_normal: stddev must be >= 0, got {stddev}")
    stddev = float(stddev)
    return Initializer(
        {"truncated_normal_conf": {"std": stddev}},
        truncated_sampler(0.0, stddev),
        f"truncated_normal(stddev={stddev!r})",
    )


def ofrecord_loader(
    ofrecord_dir: str,
    batch_size: int = 1,
    data_part_num: int = 1,
    part_name_prefix: str = "part-",
    part_name_suffix_length: int = -1,
    shuffle: bool = False,
    shuffle_buffer_size: int = 1024,
    name: str | None = None,
) -> Blob:
    """Deprecated spelling of :func:`ofrecord_reader` (``shuffle`` = ``random_shuffle``)."""
    warn_once(
        "data.ofrecord_loader",
        "oneflow.data.ofrecord_loader is deprecated, please use oneflow.data.ofrecord_reader(...)",
    )
    return data.ofrecord_reader(
        ofrecord_dir,
        batch_size,
        data_part_num,
        part_name_prefix,
        part_name_suffix_length,
        shuffle,
        shuffle_buffer_size,
        name=name,
    )


class PolynomialSchduler(optimizer.PolynomialScheduler):
    """Deprecated misspelling of :class:`PolynomialScheduler` kept by OneFlow."""

    def __init__(
        self, base_lr, steps, end_learning_rate=0.0001, power=1.0, cycle=False, warmup=None
    ):
        warn_once(
            "PolynomialSchduler",
            "oneflow.optimizer.PolynomialSchduler will be removed in the future, use "
            "oneflow.optimizer.PolynomialScheduler instead.",
        )
        super().__init__(base_lr, steps, end_learning_rate, power, cycle, warmup)
