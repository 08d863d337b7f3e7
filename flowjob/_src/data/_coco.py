"""COCO annotations (the ``instances_*.json`` layout) read as OneFlow's ``COCOReader`` did:
images sorted by id, crowd annotations ignored, boxes converted from ``[x, y, w, h]`` to
clipped ``(xmin, ymin, xmax, ymax)`` with ``xmax = x + max(w - 1, 0)``, category ids mapped to
contiguous labels from 1 in id order, polygons flattened to points with a
``(point, polygon, segmentation)`` index. The json is parsed with the standard library."""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np

from .._files import inside, read_bounded
from . import _buffers
from ._decode import DecodeError, image_size
from ._stream import EndOfData

_MIN_KEYPOINTS = 10
_MAX_IMAGE_BYTES = 1 << 30


def _finite_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


class COCOError(DecodeError):
    """The annotation file or an image file does not hold what the reader needs; the
    message names the file and the image or annotation id."""


def _need(item: dict, key: str, where: str, path: str) -> Any:
    if key not in item:
        raise COCOError(f"{path}: {where} has no {key!r} field")
    return item[key]


class COCOMeta:
    def __init__(self, annotation_file: str, image_dir: str, remove_without_annotations: bool):
        self.path, self.image_dir = annotation_file, image_dir
        try:
            with open(annotation_file, encoding="utf-8") as f:
                data = json.load(f)
        except FileNotFoundError:
            raise COCOError(f"COCO annotation file not found: {annotation_file}") from None
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise COCOError(f"{annotation_file}: not valid json: {exc}") from None
        p = annotation_file
        self.images = {}
        for image in _need(data, "images", "the file", p):
            image_id = int(_need(image, "id", "an image", p))
            for key in ("file_name", "height", "width"):
                _need(image, key, f"image {image_id}", p)
            if not isinstance(image["file_name"], str):
                raise COCOError(
                    f"{p}: image {image_id} has file_name {image['file_name']!r}, expected a str"
                )
            if image_id in self.images:
                raise COCOError(f"{p}: image id {image_id} appears twice")
            self.images[image_id] = image
        self.annos: dict[int, list[dict]] = {i: [] for i in self.images}
        for anno in _need(data, "annotations", "the file", p):
            anno_id = _need(anno, "id", "an annotation", p)
            where = f"annotation {anno_id}"
            if int(anno.get("iscrowd", 0)) == 1:
                continue
            image_id = int(_need(anno, "image_id", where, p))
            if image_id not in self.annos:
                raise COCOError(f"{p}: {where} refers to image {image_id}, which is not listed")
            bbox = _need(anno, "bbox", where, p)
            if not isinstance(bbox, list) or len(bbox) != 4:
                raise COCOError(
                    f"{p}: {where} (image {image_id}) has bbox {bbox!r}, expected [x, y, w, h]"
                )
            # OneFlow's JSON parser refuses NaN/Infinity (not JSON); Python's accepts them.
            if not all(_finite_number(v) for v in bbox):
                raise COCOError(
                    f"{p}: {where} (image {image_id}) has bbox {bbox!r}; x, y, w, h must be "
                    "finite numbers"
                )
            _need(anno, "category_id", where, p)
            segm = anno.get("segmentation", [])
            if isinstance(segm, list):
                for poly in segm:
                    if not isinstance(poly, list) or len(poly) <= 6 or len(poly) % 2:
                        raise COCOError(
                            f"{p}: {where} has a polygon of {len(poly)} numbers; a polygon "
                            "needs an even count above 6 (at least 4 points, as OneFlow)"
                        )
            self.annos[image_id].append(anno)
        ids = sorted(self.images)
        if remove_without_annotations:
            ids = [i for i in ids if self._valid(i)]
        self.ids = ids
        categories = sorted(
            int(_need(c, "id", "a category", p)) for c in data.get("categories", [])
        )
        self.labels = {c: k + 1 for k, c in enumerate(categories)}

    def _valid(self, image_id: int) -> bool:
        annos = self.annos[image_id]
        if not annos or all(a["bbox"][2] <= 1 or a["bbox"][3] <= 1 for a in annos):
            return False
        if "keypoints" not in annos[0]:
            return True
        visible = sum(1 for a in annos for v in a.get("keypoints", [])[2::3] if v > 0)
        return visible >= _MIN_KEYPOINTS

    def sample(self, image_id: int) -> tuple:
        """(encoded bytes, id, (h, w), boxes, labels, points, point index) of one image."""
        image = self.images[image_id]
        h, w = int(image["height"]), int(image["width"])
        where = f"image {image_id} of {self.path}"

        def fail(message: str) -> COCOError:
            return COCOError(f"{where}: {message}")

        file = inside(self.image_dir, image["file_name"], what="file_name", error=fail)
        try:
            raw = read_bounded(file, _MAX_IMAGE_BYTES, what="image file", error=fail)
        except OSError as exc:
            raise fail(f"cannot read {file}: {exc}") from None
        try:
            image_size(raw)  # the header only: a file that is no image is named here
        except DecodeError as exc:
            raise fail(f"{file}: {exc}") from None
        data = np.frombuffer(raw, np.int8)
        boxes, labels, points, index = [], [], [], []
        for s, anno in enumerate(self.annos[image_id]):
            x, y, bw, bh = (np.float32(v) for v in anno["bbox"])
            one, zero = np.float32(1), np.float32(0)
            right, bottom = x + max(bw - one, zero), y + max(bh - one, zero)
            box = [
                min(max(v, zero), lim - one) for v, lim in ((x, w), (y, h), (right, w), (bottom, h))
            ]
            if box[2] > box[0] and box[3] > box[1]:
                boxes.append(box)
            category = int(anno["category_id"])
            if category not in self.labels:
                raise COCOError(
                    f"{self.path}: annotation {anno['id']} has category {category}, "
                    "which the categories list lacks"
                )
            labels.append(self.labels[category])
            segm = anno.get("segmentation", [])
            for pi, poly in enumerate(segm if isinstance(segm, list) else []):
                for pt in range(len(poly) // 2):
                    points.append(poly[2 * pt : 2 * pt + 2])
                    index.append((pt, pi, s))
        return (
            data,
            image_id,
            (h, w),
            np.asarray(boxes, np.float32).reshape(-1, 4),
            np.asarray(labels, np.int32),
            np.asarray(points, np.float32).reshape(-1, 2),
            np.asarray(index, np.int32).reshape(-1, 3),
        )


class _Shard:
    """OneFlow's ``DistributedTrainingDataset``: one device's walk through the (per-epoch
    shuffled) image order, strided (device d takes d, d + n, ...) or contiguous (a block of
    ceil(size / n)); it wraps into the next epoch without a break."""

    def __init__(
        self,
        size: int,
        shards: int,
        rank: int,
        stride: bool,
        shuffle: bool,
        seed: int,
        epochs: int | None,
    ):
        self.size, self.shards, self.stride = size, shards, stride
        self.shuffle, self.seed, self.epochs = shuffle, seed, epochs
        self.block = math.ceil(size / shards)
        self.pos = rank if stride else rank * self.block
        self.in_block, self.epoch = 0, 0
        self._new_order()

    def _new_order(self) -> None:
        if self.epochs is not None and self.epoch >= self.epochs:
            raise EndOfData(f"coco_reader: {self.epochs} epoch(s) read")
        order = np.arange(self.size)
        self.order = (
            np.random.default_rng(self.seed + self.epoch).permutation(order)
            if (self.shuffle)
            else order
        )
        self.epoch += 1

    def next(self) -> int:
        index = int(self.order[self.pos])
        if self.stride:
            self.pos += self.shards
        else:
            self.pos, self.in_block = self.pos + 1, self.in_block + 1
            if self.in_block == self.block:
                self.pos += (self.shards - 1) * self.block
                self.in_block = 0
        if self.pos >= self.size:
            self.pos %= self.size
            self._new_order()
        return index


class _Grouped:
    """OneFlow's ``GroupBatchDataset``: a batch takes the group of the earliest buffered
    partial batch (or of its first new sample); samples of other groups wait in their group's
    buffered batches, in arrival order."""

    def __init__(self, shard: _Shard, batch: int, group_of):
        self.shard, self.batch, self.group_of = shard, batch, group_of
        self.buffered: dict[int, list[tuple[int, list[int]]]] = {}
        self.count = 0

    def next(self) -> list[int]:
        waiting = [(b[0][0], g) for g, b in self.buffered.items() if b]
        group = min(waiting)[1] if waiting else None
        out = self.buffered[group].pop(0)[1] if group is not None else []
        while len(out) < self.batch:
            index = self.shard.next()
            g = self.group_of(index)
            if group is None:
                group = g
            if g == group:
                out.append(index)
                continue
            batches = self.buffered.setdefault(g, [])
            if not batches or len(batches[-1][1]) == self.batch:
                batches.append((self.count, [index]))
                self.count += 1
            else:
                batches[-1][1].append(index)
        return out


class COCOStream:
    """Each call's batch as the reader's seven outputs: the concatenated batches of
    ``shards`` devices (``batch_size / shards`` images each, as OneFlow's per-device readers),
    grouped by ``height // width`` when ``group`` is set."""

    def __init__(
        self,
        meta: COCOMeta,
        batch_size: int,
        shuffle: bool,
        seed: int,
        group: bool,
        epochs: int | None = None,
        shards: int = 1,
        stride: bool = True,
    ):
        if len(meta.ids) < batch_size:
            raise COCOError(
                f"{meta.path}: {len(meta.ids)} usable image(s), fewer than batch_size {batch_size}"
            )
        self.meta, self.per_shard = meta, batch_size // shards

        def group_of(index: int) -> int:
            image = meta.images[meta.ids[index]]
            return int(image["height"]) // int(image["width"]) if group else 0

        self.loaders = [
            _Grouped(
                _Shard(len(meta.ids), shards, rank, stride, shuffle, seed, epochs),
                self.per_shard,
                group_of,
            )
            for rank in range(shards)
        ]

    def __call__(self) -> tuple:
        ids = [self.meta.ids[i] for loader in self.loaders for i in loader.next()]
        samples = [self.meta.sample(i) for i in ids]
        columns = list(zip(*samples))
        return (
            _buffers.make(columns[0]),
            np.asarray(columns[1], np.int64),
            np.asarray(columns[2], np.int32),
            *(_buffers.make(c) for c in columns[3:]),
        )
