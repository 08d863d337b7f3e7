"""Megatron-LM's memory-mapped indexed dataset (``<prefix>.idx`` + ``<prefix>.bin``) and the
GPT sample order of OneFlow's ``megatron_gpt_mmap_data_loader``.

``.idx`` layout (little endian): the 9 magic bytes ``MMIDIDX\\0\\0``, version (uint64, 1),
dtype code (uint8: 1 uint8, 2 int8, 3 int16, 4 int32, 5 int64, 6 float32, 7 float64,
8 uint16), sequence count ``n`` (uint64), document-index length (uint64, ``n + 1`` as OneFlow
requires: one document per sequence), ``sizes`` (int32[n], tokens per sequence), ``pointers``
(int64[n], byte offsets into ``.bin``), ``doc_idx`` (int64[n + 1]); nothing after it.
``.bin`` holds the tokens of all sequences back to back.
"""

from __future__ import annotations

import math
import os
import struct
from collections.abc import Sequence

import numpy as np

from .._files import check_regular, open_regular
from ._decode import DecodeError
from ._stream import EndOfData

MAGIC = b"MMIDIDX\x00\x00"
DTYPES = {
    1: np.uint8,
    2: np.int8,
    3: np.int16,
    4: np.int32,
    5: np.int64,
    6: np.float32,
    7: np.float64,
    8: np.uint16,
}


class IndexedDataset:
    """The sequences of a Megatron ``.idx``/``.bin`` pair. Tokens are read with ``pread``, not a
    memory map: a ``.bin`` cut short while a job reads it is an error naming it, not SIGBUS."""

    def __init__(self, prefix: str):
        idx_path, bin_path = prefix + ".idx", prefix + ".bin"
        for path in (idx_path, bin_path):
            if not os.path.lexists(path):
                raise DecodeError(f"Megatron dataset file not found: {path}")
        head = len(MAGIC) + 8 + 1 + 8 + 8
        with open_regular(idx_path, what="Megatron index file", error=DecodeError) as f:
            size = os.fstat(f.fileno()).st_size
            raw = f.read(head)
            if len(raw) < head or raw[: len(MAGIC)] != MAGIC:
                raise DecodeError(
                    f"{idx_path}: not a Megatron index file (expected magic {MAGIC!r}, got "
                    f"{raw[: len(MAGIC)]!r})"
                )
            version, code, n, docs = struct.unpack_from("<QBQQ", raw, len(MAGIC))
            if version != 1:
                raise DecodeError(f"{idx_path}: index version {version}, only version 1 is known")
            if code not in DTYPES:
                raise DecodeError(
                    f"{idx_path}: unknown dtype code {code} (known: {sorted(DTYPES)})"
                )
            if docs != n + 1:
                raise DecodeError(
                    f"{idx_path}: {n} sequence(s) need a document index of {n + 1} entries "
                    f"(one document per sequence), got {docs}"
                )
            want = head + 4 * n + 8 * n + 8 * docs
            if size != want:  # checked before reading: a huge n reads nothing
                raise DecodeError(
                    f"{idx_path}: {size} bytes, expected {want} for {n} sequence(s) "
                    "(truncated or trailing data)"
                )
            raw += f.read(want - head)
        if len(raw) != want:
            raise DecodeError(f"{idx_path}: changed while being read")
        self.path, self.bin_path = prefix, bin_path
        self.dtype = np.dtype(DTYPES[code])
        self.sizes = np.frombuffer(raw, np.int32, n, head).astype(np.int64)
        self.pointers = np.frombuffer(raw, np.int64, n, head + 4 * n)
        for name, values in (("size", self.sizes), ("pointer", self.pointers)):
            negative = np.nonzero(values < 0)[0]
            if negative.size:
                i = int(negative[0])
                raise DecodeError(
                    f"{idx_path}: sequence {i} has {name} {int(values[i])}; sizes and "
                    "pointers must be >= 0"
                )
        nbytes = check_regular(bin_path, what="Megatron data file", error=DecodeError).st_size
        self.nbytes = nbytes - nbytes % self.dtype.itemsize  # a cut last token is unused
        ends = self.pointers + self.sizes * self.dtype.itemsize
        misaligned = self.pointers % self.dtype.itemsize != 0
        bad = np.nonzero(misaligned | (ends > self.nbytes))[0]
        if bad.size:
            i = int(bad[0])
            raise DecodeError(
                f"{bin_path}: sequence {i} (offset {int(self.pointers[i])}, "
                f"{int(self.sizes[i])} tokens of {self.dtype}) lies outside the "
                f"{self.nbytes}-byte file or is misaligned"
            )
        self._fd = os.open(bin_path, os.O_RDONLY)

    def __del__(self) -> None:
        fd = getattr(self, "_fd", None)
        if fd is not None:
            os.close(fd)

    def __len__(self) -> int:
        return len(self.sizes)

    def sequence(self, i: int, start: int = 0, stop: int | None = None) -> np.ndarray:
        """Tokens ``start:stop`` of sequence ``i``; float token files must hold whole numbers
        (OneFlow casts them to the integer output, where NaN or 1e30 would become garbage)."""
        size = int(self.sizes[i])
        stop = size if stop is None else min(stop, size)
        start = min(start, stop)
        offset = int(self.pointers[i]) + start * self.dtype.itemsize
        nbytes = (stop - start) * self.dtype.itemsize
        data = os.pread(self._fd, nbytes, offset) if nbytes else b""
        if len(data) != nbytes:
            raise DecodeError(
                f"{self.bin_path}: sequence {i} needs bytes {offset}..{offset + nbytes}, but the "
                f"file now ends at {os.fstat(self._fd).st_size} (cut short while being read)"
            )
        tokens = np.frombuffer(data, self.dtype)
        if self.dtype.kind == "f":
            bad = np.nonzero(~np.isfinite(tokens) | (tokens != np.round(tokens)))[0]
            if bad.size:
                raise DecodeError(
                    f"{self.bin_path}: sequence {i} token {int(bad[0])} is "
                    f"{tokens[bad[0]]!r}, not a whole number ({self.dtype} token file)"
                )
        return tokens


def _split(split_sizes: Sequence[int], index: int, count: int) -> np.ndarray:
    """The documents of split ``index``: consecutive ranges in proportion to ``split_sizes``
    (float32 ratios rounded half to even, as OneFlow)."""
    total = sum(split_sizes)

    def size(k: int) -> int:
        return int(np.rint(np.float32(split_sizes[k]) / np.float32(total) * np.float32(count)))

    offset = sum(size(k) for k in range(index))
    return np.arange(offset, offset + size(index), dtype=np.int64)


class GPTSamples:
    """OneFlow's GPT sample order: documents repeated for enough epochs to give
    ``num_samples`` samples of ``seq_length + 1`` tokens (consecutive samples share one
    token), documents and samples shuffled with ``seed`` (NumPy's generator: the order
    differs from OneFlow's ``std::mt19937`` one; without shuffling it is the same)."""

    def __init__(
        self,
        data: IndexedDataset,
        seq_length: int,
        num_samples: int,
        split_sizes: Sequence[int],
        split_index: int,
        shuffle: bool,
        seed: int,
    ):
        self.data, self.seq = data, seq_length
        rng = np.random.default_rng(seed)
        docs = _split(split_sizes, split_index, len(data))
        tokens = int(data.sizes[docs].sum())
        if tokens < 2:
            raise DecodeError(
                f"{data.path}: split {split_index} of {list(split_sizes)} holds {tokens} "
                "token(s); a GPT sample needs at least 2"
            )
        epochs = math.ceil((num_samples * seq_length + 1) / tokens)
        complete = epochs
        if epochs > 1:
            per_epoch = (tokens - 1) // seq_length
            before_last = ((epochs - 1) * tokens - 1) // seq_length
            if num_samples - before_last < int(0.8 * per_epoch):
                complete = epochs - 1
        order = np.concatenate([docs] * complete)
        if shuffle:
            rng.shuffle(order)
        if complete != epochs:
            last = docs.copy()
            if shuffle:
                rng.shuffle(last)
            order = np.concatenate([order, last])
        self.order = order
        total = (epochs * tokens - 1) // seq_length
        self.starts = self._starts(total)
        self.shuffle = np.arange(len(self.starts))
        if shuffle:
            head = (complete * tokens - 1) // seq_length
            rng.shuffle(self.shuffle[:head])
            if complete != epochs:
                rng.shuffle(self.shuffle[head:])

    def _starts(self, total: int) -> list[tuple[int, int]]:
        starts, doc, offset = [], 0, 0
        sizes = self.data.sizes
        for _ in range(total):
            if doc >= len(self.order):
                break
            starts.append((doc, offset))
            remaining = self.seq
            while remaining > 0:
                length = int(sizes[self.order[doc]]) - offset
                if remaining < length:
                    offset += remaining
                else:
                    doc, offset = doc + 1, 0
                remaining -= length
        return starts

    def __len__(self) -> int:
        return len(self.shuffle)

    def sample(self, index: int, out: np.ndarray) -> None:
        doc, offset = self.starts[int(self.shuffle[index])]
        filled = 0
        while filled < out.shape[0]:
            if doc >= len(self.order):
                raise DecodeError(f"{self.data.path}: sample {index} runs past the last document")
            seq = int(self.order[doc])
            left = int(self.data.sizes[seq]) - offset
            take = min(left, out.shape[0] - filled)
            out[filled : filled + take] = self.data.sequence(seq, offset, offset + take)
            filled += take
            doc, offset = (doc, offset + take) if take < left else (doc + 1, 0)


class GPTStream:
    """Each call's ``(batch_size, seq_length + 1)`` batch; ``EndOfData`` after the last."""

    def __init__(self, samples: GPTSamples, batch_size: int, dtype: np.dtype):
        self.samples, self.batch, self.dtype = samples, batch_size, dtype
        self.calls = 0

    def __call__(self) -> np.ndarray:
        first = self.calls * self.batch
        if first + self.batch > len(self.samples):
            raise EndOfData(
                f"megatron_gpt_mmap_data_loader: {self.samples.data.path} gives "
                f"{len(self.samples)} samples; batch {self.calls} needs samples "
                f"{first}..{first + self.batch - 1} (raise num_samples for more)"
            )
        out = np.empty((self.batch, self.samples.seq + 1), self.dtype)
        for i in range(self.batch):
            self.samples.sample(first + i, out[i])
        self.calls += 1
        return out
