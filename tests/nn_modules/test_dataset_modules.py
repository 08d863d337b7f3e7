"""OneFlow v0.4's eager data modules (``flow.nn.OfrecordReader`` and the decoders, image
modules, ``CoinFlip``, ``tensor_buffer_to_list_of_tensors``, ``flow.tmp``) on small OFRecord
sets written here, against NumPy references: PNG-encoded images (lossless, so the decoded
pixels are the written ones whatever the decoder), crops located in the source image, exact
2x area shrinks of 2x2-block images, and OneFlow's normalization formula."""

from __future__ import annotations

import io
from typing import Tuple

import numpy as np
import pytest
from PIL import Image

import flowjob as flow
import flowjob.experimental as fx
import flowjob.typing as tp
from flowjob._src.nn_modules import HostTensor, HostTensorError

MEAN = [123.68, 116.779, 103.939]
STD = [58.393, 57.12, 57.375]


def _png(pixels: np.ndarray) -> bytes:
    out = io.BytesIO()
    Image.fromarray(pixels).save(out, "PNG")
    return out.getvalue()


def _blocky(rng, h: int, w: int) -> np.ndarray:
    """An RGB image of 2x2 blocks: a 2x area shrink of it is exact (its block colours)."""
    return np.repeat(np.repeat(rng.integers(0, 256, (h // 2, w // 2, 3), np.uint8), 2, 0), 2, 1)


@pytest.fixture(scope="module")
def images_set(tmp_path_factory):
    """(folder, images, labels): 5 PNG records of differing sizes, labels 10..14."""
    rng = np.random.default_rng(0)
    shapes = [(40, 60), (36, 48), (50, 40), (44, 44), (30, 70)]
    images = [_blocky(rng, h, w) for h, w in shapes]
    labels = np.arange(10, 15, dtype=np.int32)
    folder = tmp_path_factory.mktemp("records") / "set"
    flow.data.write_ofrecord(
        folder,
        {"encoded": [_png(a) for a in images], "class/label": labels},
        part_name_suffix_length=5,
    )
    return str(folder), images, labels


def _reader(folder, batch_size=2, **kwargs):
    return flow.nn.OfrecordReader(
        folder, batch_size=batch_size, part_name_suffix_length=5, **kwargs
    )


LABEL = flow.nn.OfrecordRawDecoder("class/label", shape=(), dtype=flow.int32)


def test_the_reader_continues_between_calls_and_starts_over(images_set):
    folder, _, labels = images_set
    reader = _reader(folder)
    got = [LABEL(reader()).numpy().tolist() for _ in range(4)]
    order = [int(v) for v in np.tile(labels, 2)[:8]]
    assert got == [order[0:2], order[2:4], order[4:6], order[6:8]]
    records = reader()
    assert isinstance(records, HostTensor) and records.dtype is flow.record
    assert tuple(records.shape) == (2,)
    # a second reader starts at the beginning, independent of the first
    assert LABEL(_reader(folder)()).numpy().tolist() == [10, 11]


def test_a_shuffling_reader_is_seeded_and_reads_every_record(images_set):
    folder, _, labels = images_set

    def epoch(seed):
        reader = _reader(folder, batch_size=1, random_shuffle=True, random_seed=seed)
        return [int(LABEL(reader()).numpy()[0]) for _ in range(15)]

    first = epoch(3)
    assert first == epoch(3) != epoch(4)
    assert first != np.tile(labels, 3).tolist()
    assert set(first) == set(labels.tolist())


def test_raw_decoder_pads_short_lists_with_auto_zero_padding(tmp_path):
    folder = tmp_path / "lists"
    flow.data.write_ofrecord(folder, {"v": [np.float32([1, 2, 3]), np.float32([4])]})
    records = flow.nn.OfrecordReader(str(folder), batch_size=2)()
    decode = flow.nn.OfrecordRawDecoder("v", shape=(3,), dtype=flow.float32, auto_zero_padding=True)
    np.testing.assert_array_equal(decode(records).numpy(), [[1, 2, 3], [4, 0, 0]])
    assert flow.tmp.RawDecoder(records, "v", (3,), flow.float32, False, True).shape == (2, 3)


@pytest.mark.parametrize("space", ["RGB", "BGR"])
def test_the_image_decoder_gives_the_written_pixels(images_set, space):
    folder, images, _ = images_set
    decoded = flow.nn.OFRecordImageDecoder("encoded", color_space=space)(_reader(folder, 3)())
    assert isinstance(decoded, HostTensor) and decoded.dtype is flow.tensor_buffer
    for got, want in zip(decoded.numpy(), images[:3]):
        np.testing.assert_array_equal(got, want if space == "RGB" else want[..., ::-1])


def _located(crop: np.ndarray, image: np.ndarray) -> bool:
    h, w = crop.shape[:2]
    return any(
        np.array_equal(image[y : y + h, x : x + w], crop)
        for y in range(image.shape[0] - h + 1)
        for x in range(image.shape[1] - w + 1)
    )


def test_random_crops_are_windows_of_the_image_drawn_anew_each_call(images_set):
    folder, images, _ = images_set
    reader = _reader(folder, batch_size=1)
    records = reader()
    crop = flow.nn.OFRecordImageDecoderRandomCrop("encoded", "RGB", random_seed=7)
    windows = [crop(records).numpy()[0] for _ in range(4)]
    assert all(_located(w, images[0]) for w in windows)
    assert len({w.shape for w in windows}) > 1 or not all(
        np.array_equal(windows[0], w) for w in windows
    )
    again = flow.nn.OFRecordImageDecoderRandomCrop("encoded", "RGB", random_seed=7)
    np.testing.assert_array_equal(again(records).numpy()[0], windows[0])


def test_resize_keeping_the_aspect_ratio_halves_exactly(images_set):
    folder, images, _ = images_set
    decoded = flow.nn.OFRecordImageDecoder("encoded", "RGB")(_reader(folder, 3)())
    resized = flow.nn.image.Resize(target_size=18, keep_aspect_ratio=True)(decoded)
    # shorter sides 40, 36, 40 -> 18: image 1 halves exactly, the others keep their aspect
    got = resized.numpy()
    assert [a.shape for a in got] == [(18, 27, 3), (18, 24, 3), (22, 18, 3)]
    half = images[1].reshape(18, 2, 24, 2, 3).mean(axis=(1, 3))
    np.testing.assert_array_equal(got[1], half)


def test_resize_to_a_fixed_size_gives_one_uint8_batch(images_set):
    folder, images, _ = images_set
    decoded = flow.nn.OFRecordImageDecoder("encoded", "RGB")(_reader(folder, 2)())
    out = flow.nn.image.Resize(target_size=(30, 20))(decoded)  # (width, height)
    assert tuple(out.shape) == (2, 20, 30, 3) and out.dtype is flow.uint8
    np.testing.assert_array_equal(out.numpy()[0], images[0].reshape(20, 2, 30, 2, 3).mean((1, 3)))


def _cmn_reference(image, mirror, crop_h, crop_w, pos_y, pos_x):
    """OneFlow's kernel: offsets (size - crop) * pos truncated, (x - mean) * (1 / std)."""
    h, w = image.shape[:2]
    y = int(np.float32(h - crop_h) * np.float32(pos_y))
    x = int(np.float32(w - crop_w) * np.float32(pos_x))
    piece = image[y : y + crop_h, x : x + crop_w]
    piece = piece[:, ::-1] if mirror else piece
    inv = np.float32(1) / np.asarray(STD, np.float32)
    return (piece.astype(np.float32) - np.asarray(MEAN, np.float32)) * inv


@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
def test_crop_mirror_normalize_of_tensor_buffers(images_set, layout):
    folder, images, _ = images_set
    decoded = flow.nn.OFRecordImageDecoder("encoded", "RGB")(_reader(folder, 4)())
    flags = flow.nn.CoinFlip(batch_size=4, random_seed=1)()
    cmn = flow.nn.CropMirrorNormalize(
        color_space="RGB",
        output_layout=layout,
        crop_h=24,
        crop_w=30,
        crop_pos_y=0.3,
        crop_pos_x=0.7,
        mean=MEAN,
        std=STD,
    )
    out = cmn(decoded, flags).numpy()
    assert out.dtype == np.float32
    for i, image in enumerate(images[:4]):
        want = _cmn_reference(image, flags.numpy()[i], 24, 30, 0.3, 0.7)
        got = out[i].transpose(1, 2, 0) if layout == "NCHW" else out[i]
        np.testing.assert_array_equal(got, want)
    assert flags.numpy().tolist() == [0, 1, 0, 1]  # seeded: both paths ran


def test_crop_mirror_normalize_of_a_uint8_batch_without_mirror():
    rng = np.random.default_rng(2)
    batch = rng.integers(0, 256, (2, 9, 11, 3), np.uint8)
    out = flow.nn.CropMirrorNormalize(crop_h=5, crop_w=6, mean=MEAN, std=STD)(
        flow.Tensor(batch, dtype=flow.uint8)
    )
    want = np.stack([_cmn_reference(b, False, 5, 6, 0.5, 0.5) for b in batch])
    np.testing.assert_array_equal(out.numpy(), want.transpose(0, 3, 1, 2))


def test_coin_flip_draws_anew_each_call_with_its_probability():
    flip = flow.nn.CoinFlip(batch_size=64, random_seed=5)
    draws = [flip().numpy() for _ in range(3)]
    assert all(d.dtype == np.int8 and set(d.tolist()) <= {0, 1} for d in draws)
    assert not np.array_equal(draws[0], draws[1])
    np.testing.assert_array_equal(flow.nn.CoinFlip(64, random_seed=5)().numpy(), draws[0])
    assert flow.nn.CoinFlip(8, probability=1.0)().numpy().tolist() == [1] * 8
    assert flow.nn.CoinFlip(8, probability=0.0)().numpy().tolist() == [0] * 8


def test_tensor_buffer_to_list_of_tensors_gives_each_instance(images_set):
    folder, images, _ = images_set
    decoded = flow.nn.OFRecordImageDecoder("encoded", "RGB")(_reader(folder, 2)())
    shapes = [a.shape for a in images[:2]]
    out = fx.tensor_buffer_to_list_of_tensors(decoded, shapes, [flow.uint8] * 2)
    for t, want in zip(out, images[:2]):
        assert t.dtype is flow.uint8
        np.testing.assert_array_equal(t.numpy(), want)
    with pytest.raises(ValueError, match="instance 1 has shape"):
        fx.tensor_buffer_to_list_of_tensors(decoded, [shapes[0], (10, 10, 3)], [flow.uint8] * 2)
    with pytest.raises(ValueError, match="2 instance"):
        fx.tensor_buffer_to_list_of_tensors(decoded, shapes[:1], [flow.uint8])


def test_tmp_reader_always_gives_the_first_batch(images_set):
    folder, _, _ = images_set
    for _ in range(2):
        records = flow.tmp.OfrecordReader(folder, 2, part_name_suffix_length=5)
        assert LABEL(records).numpy().tolist() == [10, 11]


def test_pipeline_tensors_refuse_numeric_use_naming_the_fix(images_set):
    folder, _, _ = images_set
    records = _reader(folder)()
    with pytest.raises(HostTensorError, match="decode it first"):
        records.numpy()
    with pytest.raises(HostTensorError, match="record"):
        records + 1
    images = flow.nn.OFRecordImageDecoder("encoded")(records)
    with pytest.raises(HostTensorError, match="nn.image.Resize"):
        np.asarray(images)


def test_namespaces():
    assert flow.nn.image.Resize is fx.nn.image.Resize is flow.nn.image.Resize
    assert fx.tmp.RawDecoder is flow.tmp.RawDecoder
    assert "OfrecordReader" in dir(flow.nn)


def test_in_a_job_function_the_modules_join_its_data_pipeline(images_set, fresh_session):
    folder, images, labels = images_set
    reader = _reader(folder, batch_size=2)
    decode = flow.nn.OFRecordImageDecoder("encoded", "RGB")
    cmn = flow.nn.CropMirrorNormalize("RGB", "NHWC", crop_h=20, crop_w=30, mean=MEAN, std=STD)

    @flow.global_function()
    def job() -> Tuple[tp.Numpy, tp.Numpy]:
        records = reader()
        return LABEL(records), cmn(decode(records))

    for call in range(2):
        got_labels, got_images = job()
        np.testing.assert_array_equal(got_labels, labels[2 * call : 2 * call + 2])
        want = _cmn_reference(images[2 * call], False, 20, 30, 0.5, 0.5)
        np.testing.assert_array_equal(got_images[0], want)
