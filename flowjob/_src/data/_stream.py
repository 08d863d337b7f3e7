"""OneFlow's ``OFRecordReader`` on the host: part files, epochs, the shuffle buffer, batches.

Semantics follow OneFlow v0.4.0 (``OFRecordDataset``, ``RandomShuffleDataset``,
``BatchDataset``): the part files ``<dir>/<prefix><n>`` are read in order and the stream
starts over at the end of the last one, forever (OneFlow has no end of data); with
``shuffle_after_epoch`` the order of the files is shuffled before each new pass, with a fixed
seed per pass as in OneFlow. ``random_shuffle`` keeps a buffer of ``shuffle_buffer_size``
records; each record read swaps with a uniformly chosen one of the buffer, which is emitted.
Random draws come from NumPy (OneFlow used C++ ``<random>``), so shuffled orders differ from
OneFlow's but a given ``seed`` always gives the same order.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from ..errors import FlowJobError
from ._record import RecordBatch, iter_raw_records, parse_record

# OneFlow seeds its per-epoch file shuffle with a constant plus the epoch number.
_FILE_ORDER_SEED = 524287


class EndOfData(FlowJobError, RuntimeError):
    """A reader given ``epochs=`` has delivered every full batch of its passes."""


def part_paths(
    data_dir: str,
    data_part_num: int,
    part_name_prefix: str = "part-",
    part_name_suffix_length: int = -1,
) -> list[str]:
    """The part file names OneFlow derives: the number zero-padded to the suffix length."""
    paths = []
    for i in range(data_part_num):
        number = str(i)
        pad = max(part_name_suffix_length - len(number), 0)
        paths.append(os.path.join(data_dir, part_name_prefix + "0" * pad + number))
    return paths


class RecordStream:
    """Batches of parsed ``OFRecord`` messages; call it for the next batch."""

    def __init__(
        self,
        paths: list[str],
        batch_size: int,
        *,
        random_shuffle: bool = False,
        shuffle_buffer_size: int = 1024,
        shuffle_after_epoch: bool = False,
        seed: int | None = None,
        epochs: int | None = None,
        read: Callable[[str], Iterator[tuple[int, bytes]]] = iter_raw_records,
        parse: Callable[[bytes, str, int], Any] = parse_record,
        shuffle_batches: bool = False,
    ):
        """``read``/``parse``: the file format (OFRecord by default, or OneRec's);
        ``shuffle_batches``: the buffer shuffles whole batches (OneRec's "batch" mode)."""
        self.paths = list(paths)
        self.batch_size = batch_size
        self.shuffle_after_epoch = shuffle_after_epoch
        self.epochs = epochs
        self.epoch = 0  # passes started so far, minus one
        self._read_file, self._parse = read, parse
        self._rng = np.random.default_rng(seed)
        self._units = self._read()
        if shuffle_batches:
            self._units = self._batches(self._units)
        if random_shuffle:
            self._units = self._shuffled(self._units, shuffle_buffer_size)
        self._batched = shuffle_batches

    def __call__(self) -> list[Any]:
        units = (
            [next(self._units, None)]
            if self._batched
            else [next(self._units, None) for _ in range(self.batch_size)]
        )
        if any(u is None for u in units):
            raise EndOfData(
                f"data reader: all {self.epochs} epoch(s) of {len(self.paths)} "
                "file(s) were read (the last partial batch is dropped)"
            )
        samples = units[0] if self._batched else units
        return RecordBatch(
            [self._parse(data, path, offset) for path, _, offset, data in samples],
            [(path, index, offset) for path, index, offset, _ in samples],
        )

    def _batches(self, samples: Iterator) -> Iterator[list]:
        while True:
            batch = [s for _, s in zip(range(self.batch_size), samples)]
            if len(batch) < self.batch_size:
                return
            yield batch

    def _read(self) -> Iterator[tuple[str, int, int, bytes]]:
        """(file, record index in the file, byte offset, serialized record), pass after pass."""
        order = list(self.paths)
        while self.epochs is None or self.epoch < self.epochs:
            empty = True
            for path in order:
                for index, (offset, data) in enumerate(self._read_file(path)):
                    empty = False
                    yield path, index, offset, data
            if empty:
                raise EndOfData(f"data reader: the files hold no records: {order}")
            self.epoch += 1
            if self.shuffle_after_epoch:
                order = list(self.paths)
                np.random.default_rng((_FILE_ORDER_SEED, self.epoch)).shuffle(order)

    def _shuffled(self, samples: Iterator, size: int) -> Iterator:
        buffer = []
        for sample in samples:
            buffer.append(sample)
            if len(buffer) >= size:
                break
        for sample in samples:
            i = int(self._rng.integers(len(buffer)))
            buffer[i], sample = sample, buffer[i]
            yield sample
        while buffer:  # finite epochs: drain what is left, in random order
            yield buffer.pop(int(self._rng.integers(len(buffer))))
