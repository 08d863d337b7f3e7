"""Image decoders and image ops in jobs, against Pillow and NumPy references computed here
from the original pixels (PNG keeps them exact)."""

from __future__ import annotations

import io
from typing import Tuple

import numpy as np
import pytest
from PIL import Image

import flowjob as flow
import flowjob.typing as tp
from flowjob._src.data._decode import RandomCrop
from flowjob.data import write_image_folder, write_ofrecord

SIZES = [(20, 30), (32, 24), (25, 25), (18, 40)]  # (height, width)


pytestmark = pytest.mark.usefixtures("fresh_session")


def _png(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    Image.fromarray(array).save(buffer, format="PNG")
    return buffer.getvalue()


@pytest.fixture
def images(tmp_path):
    rng = np.random.default_rng(0)
    pixels = [rng.integers(0, 256, (h, w, 3), dtype=np.uint8) for h, w in SIZES]
    write_ofrecord(
        tmp_path,
        {
            "encoded": [_png(p) for p in pixels],
            "class/label": np.arange(len(pixels), dtype=np.int32),
        },
    )
    return tmp_path, pixels


def _pillow_resize(rgb: np.ndarray, w: int, h: int) -> np.ndarray:
    big = w * h >= rgb.shape[0] * rgb.shape[1]
    return np.asarray(Image.fromarray(rgb).resize((w, h), Image.BILINEAR if big else Image.BOX))


def _reader(data_dir):
    return flow.data.ofrecord_reader(str(data_dir), batch_size=len(SIZES))


def test_decode_resize_normalize_mirror(images):
    data_dir, pixels = images
    mean, std = [10.0, 20.0, 30.0], [2.0, 4.0, 8.0]

    @flow.global_function(type="predict")
    def pipeline() -> Tuple[tp.Numpy, tp.Numpy, tp.Numpy, tp.Numpy, tp.Numpy]:
        r = _reader(data_dir)
        image = flow.data.OFRecordImageDecoder(r, "encoded", color_space="RGB")
        resized, scale, _ = flow.image.Resize(image, target_size=(16, 12))  # (width, height)
        flips = flow.random.CoinFlip(batch_size=len(SIZES), seed=3)
        normal = flow.image.CropMirrorNormalize(
            resized,
            mirror_blob=flips,
            color_space="RGB",
            output_layout="NCHW",
            crop_h=10,
            crop_w=8,
            crop_pos_y=0.3,
            crop_pos_x=0.9,
            mean=mean,
            std=std,
            output_dtype=flow.float,
        )
        label = flow.data.OFRecordRawDecoder(r, "class/label", shape=(), dtype=flow.int32)
        return resized, scale, flips, normal, label + 0

    seen = []
    for _ in range(3):  # later batches draw new flips
        resized, scale, flips, normal, label = pipeline()
        seen.append(flips)
        np.testing.assert_array_equal(label, np.arange(len(SIZES)))
        want = np.stack([_pillow_resize(p, 16, 12) for p in pixels])
        np.testing.assert_array_equal(resized, want)
        np.testing.assert_allclose(scale, [(16 / w, 12 / h) for h, w in SIZES], rtol=1e-6)
        assert flips.dtype == np.int8 and set(np.unique(flips)) <= {0, 1}
        y, x = int(2 * 0.3), int(8 * 0.9)  # OneFlow: offsets truncated toward zero
        crop = want[:, y : y + 10, x : x + 8].astype(np.float32)
        crop = np.where(flips[:, None, None, None] == 1, crop[:, :, ::-1], crop)
        ref = ((crop - np.float32(mean)) / np.float32(std)).transpose(0, 3, 1, 2)
        np.testing.assert_allclose(normal, ref, rtol=1e-6, atol=1e-6)
    seen = np.stack(seen)
    assert 0 < seen.sum() < seen.size  # both flipped and unflipped images were checked
    assert len({row.tobytes() for row in seen}) > 1


def test_color_spaces_and_nhwc(images):
    data_dir, pixels = images

    @flow.global_function(type="predict")
    def spaces() -> Tuple[tp.Numpy, tp.Numpy]:
        r = _reader(data_dir)
        bgr = flow.data.OFRecordImageDecoder(r, "encoded")  # OneFlow's default: BGR
        gray = flow.data.OFRecordImageDecoder(r, "encoded", color_space="GRAY")
        a = flow.image.Resize(bgr, target_size=(30, 20), interpolation_type="nearest_neighbor")
        b = flow.image.Resize(gray, target_size=(30, 20), channels=1, dtype=flow.float)
        return (flow.image.CropMirrorNormalize(a[0], output_layout="NHWC", color_space="BGR"), b[0])

    bgr, gray = spaces()
    want = np.stack(
        [np.asarray(Image.fromarray(p).resize((30, 20), Image.NEAREST)) for p in pixels]
    )
    np.testing.assert_array_equal(bgr, want[..., ::-1].astype(np.float32))
    gray_want = np.stack([_pillow_resize_gray(p) for p in pixels])[..., None]
    assert gray.dtype == np.float32
    np.testing.assert_array_equal(gray, gray_want.astype(np.float32))


def _pillow_resize_gray(rgb: np.ndarray) -> np.ndarray:
    image = Image.fromarray(rgb).convert("L")
    big = 30 * 20 >= rgb.shape[0] * rgb.shape[1]
    return np.asarray(image.resize((30, 20), Image.BILINEAR if big else Image.BOX))


def test_keep_aspect_ratio_then_center_crop(images):
    data_dir, pixels = images

    @flow.global_function(type="predict")
    def val() -> Tuple[tp.Numpy, tp.Numpy, tp.Numpy]:
        image = flow.data.OFRecordImageDecoder(_reader(data_dir), "encoded", color_space="RGB")
        res, scale, size = flow.image.Resize(
            image, resize_side="shorter", keep_aspect_ratio=True, target_size=16
        )
        out = flow.image.CropMirrorNormalize(
            res,
            color_space="RGB",
            output_layout="NHWC",
            crop_h=16,
            crop_w=16,
            mean=[1.0],
            std=[2.0],
        )
        return out, scale, size

    out, scale, size = val()
    for i, p in enumerate(pixels):
        h, w = p.shape[:2]
        short, long = min(h, w), max(h, w)
        new_long = round(16 * long / short)  # ties to even, as OneFlow's nearbyint
        new_w, new_h = (16, new_long) if w < h else (new_long, 16)
        assert tuple(size[i]) == (new_w, new_h)
        np.testing.assert_allclose(scale[i], (new_w / w, new_h / h), rtol=1e-6)
        resized = _pillow_resize(p, new_w, new_h)
        y, x = int((new_h - 16) * 0.5), int((new_w - 16) * 0.5)
        ref = (resized[y : y + 16, x : x + 16].astype(np.float32) - 1.0) / 2.0
        np.testing.assert_allclose(out[i], ref, rtol=1e-6)


def test_random_crop_decoders(images):
    data_dir, pixels = images

    @flow.global_function(type="predict")
    def train() -> Tuple[tp.Numpy, tp.Numpy]:
        r = _reader(data_dir)
        # The whole image (area 1, the image's own aspect range): equals a plain resize.
        full = flow.data.ImageDecoderRandomCropResize(
            flow.data.OFRecordBytesDecoder(r, "encoded"),
            target_width=8,
            target_height=8,
            random_area=[1.0, 1.0],
            random_aspect_ratio=[0.4, 2.5],
            seed=1,
        )
        cropped = flow.data.OFRecordImageDecoderRandomCrop(r, "encoded", color_space="RGB", seed=5)
        return full, flow.image.Resize(cropped, target_size=(8, 8))[0]

    full, cropped = train()
    assert full.shape == (4, 8, 8, 3) and full.dtype == np.uint8
    # area 1 with every aspect allowed: each attempt asks for the full area at a random
    # aspect; only (nearly) the image's own aspect fits, else the fallback takes it whole.
    same = RandomCrop(1, 10, (1.0, 1.0), (0.4, 2.5))  # a generator per place of the batch
    for i, p in enumerate(pixels):
        y, x, h, w = same.window(*p.shape[:2], i, 0)
        assert h * w >= 0.9 * p.shape[0] * p.shape[1]
        np.testing.assert_array_equal(full[i], _pillow_resize(p[y : y + h, x : x + w], 8, 8))
    assert cropped.shape == (4, 8, 8, 3)


@pytest.mark.parametrize("space", ["RGB", "BGR", "GRAY"])
def test_random_crops_are_the_windows_of_the_decoded_images(space):
    from flowjob._src.data._decode import Decode
    from flowjob._src.data._modes import ColorSpace
    from flowjob._src.data._stages import run_chain

    rng = np.random.default_rng(2)
    pixels = [rng.integers(0, 256, (h, w, 3), dtype=np.uint8) for h, w in [(20, 30), (31, 17)]]
    encoded = []
    for p in pixels:
        buf = io.BytesIO()
        Image.fromarray(p).save(buf, "PNG")
        encoded.append(buf.getvalue())
    got = run_chain([Decode(ColorSpace(space), RandomCrop(7))], [[encoded]])
    same = RandomCrop(7)  # a generator per place of the batch
    windows = [same.window(*p.shape[:2], i, 0) for i, p in enumerate(pixels)]
    assert any((h, w) != p.shape[:2] for p, (_, _, h, w) in zip(pixels, windows))
    for image, p, (y, x, h, w) in zip(got, pixels, windows):
        want = {
            "RGB": p,
            "BGR": p[:, :, ::-1],
            "GRAY": np.asarray(Image.fromarray(p).convert("L"))[:, :, None],
        }[space][y : y + h, x : x + w]
        np.testing.assert_array_equal(image, want)


def test_random_crop_windows_respect_the_limits():
    crop = RandomCrop(
        seed=0, num_attempts=10, random_area=(0.2, 0.6), random_aspect_ratio=(0.75, 1.333333)
    )
    areas = []
    for k in range(300):  # places of a batch and batches: each its own generator
        y, x, h, w = crop.window(50, 80, k % 7, k // 7)
        assert 0 <= y <= 50 - h and 0 <= x <= 80 - w
        areas.append(h * w / 4000)
        assert 0.75 - 0.05 <= w / h <= 1.333333 + 0.05
    assert 0.18 <= min(areas) and max(areas) <= 0.62
    again = RandomCrop(seed=0, num_attempts=10, random_area=(0.2, 0.6))
    first = RandomCrop(seed=0, num_attempts=10, random_area=(0.2, 0.6))
    places = [(slot, batch) for batch in range(3) for slot in range(2)]
    windows = [first.window(50, 80, *p) for p in places]
    assert [again.window(50, 80, *p) for p in places[::-1]] == windows[::-1]  # any order
    assert len(set(windows)) > 1


def test_jpeg_folder_to_records_decodes_like_pillow(tmp_path):
    rng = np.random.default_rng(1)
    for cls in ["cat", "dog"]:
        (tmp_path / "img" / cls).mkdir(parents=True)
        for k in range(3):
            smooth = np.kron(rng.integers(0, 256, (4, 4, 3)), np.ones((6, 6, 1))).astype(np.uint8)
            Image.fromarray(smooth).save(tmp_path / "img" / cls / f"{k}.jpg", quality=90)
    paths, classes = write_image_folder(tmp_path / "img", tmp_path / "rec", part_num=2, seed=0)
    assert classes == ["cat", "dog"]

    @flow.global_function(type="predict")
    def read() -> Tuple[tp.Numpy, tp.Numpy]:
        r = flow.data.ofrecord_reader(str(tmp_path / "rec"), batch_size=6, data_part_num=2)
        image = flow.data.OFRecordImageDecoder(r, "encoded", color_space="RGB")
        label = flow.data.OFRecordRawDecoder(r, "class/label", shape=(), dtype=flow.int32)
        return flow.image.Resize(image, target_size=(24, 24))[0], label

    got, labels = read()
    records = [rec for p in paths for rec in flow.data.read_records(p)]
    for i, rec in enumerate(records):
        jpeg = rec.feature["encoded"].bytes_list.value[0]
        np.testing.assert_array_equal(
            got[i], np.asarray(Image.open(io.BytesIO(jpeg)).convert("RGB"))
        )
        assert labels[i] == rec.feature["class/label"].int32_list.value[0]
    assert sorted(labels) == [0, 0, 0, 1, 1, 1]


def test_image_op_errors(images):
    data_dir, _ = images

    @flow.global_function(type="predict")
    def no_crop() -> tp.Numpy:
        image = flow.data.OFRecordImageDecoder(_reader(data_dir), "encoded")
        return flow.image.CropMirrorNormalize(image)

    with pytest.raises(flow.OpError, match="need crop_h and crop_w"):
        no_crop()
    flow.clear_default_session()

    @flow.global_function(type="predict")
    def buffers_returned() -> tp.Numpy:
        return flow.data.OFRecordImageDecoder(_reader(data_dir), "encoded")

    with pytest.raises(flow.OpError, match="cannot be returned by job"):
        buffers_returned()
    flow.clear_default_session()

    @flow.global_function(type="predict")
    def buffers_watched() -> None:
        flow.watch(flow.data.OFRecordImageDecoder(_reader(data_dir), "encoded"), print)

    with pytest.raises(flow.OpError, match="cannot be watched"):
        buffers_watched()


def test_deprecated_resize_spellings_return_only_images(images, capsys):
    data_dir, pixels = images

    @flow.global_function(type="predict")
    def old_style() -> Tuple[tp.Numpy, tp.Numpy]:
        image = flow.data.OFRecordImageDecoder(_reader(data_dir), "encoded", color_space="RGB")
        a = flow.image.Resize(image, resize_x=10, resize_y=6, interp_type="NN")
        b = flow.image.Resize(image, resize_shorter=12, color_space="RGB")
        return a, flow.image.CropMirrorNormalize(b, color_space="RGB", crop_h=12, crop_w=12)

    a, b = old_style()
    want = np.stack([np.asarray(Image.fromarray(p).resize((10, 6), Image.NEAREST)) for p in pixels])
    np.testing.assert_array_equal(a, want)
    assert b.shape == (4, 3, 12, 12)
    err = capsys.readouterr().err
    for word in (
        "resize_x and resize_y has been deprecated",
        "interp_type has been deprecated",
        "resize_shorter has been deprecated",
        "color_space has been deprecated",
    ):
        assert word in err


def test_cli_writes_an_image_folder(tmp_path, capsys):
    from flowjob._src.cli.main import main as cli_main

    for cls in ("b", "a"):
        (tmp_path / "img" / cls).mkdir(parents=True)
        pixels = np.full((4, 5, 3), ord(cls), np.uint8)
        Image.fromarray(pixels).save(tmp_path / "img" / cls / "x.png")
    assert (
        cli_main(
            [
                "ofrecord",
                "images",
                str(tmp_path / "img"),
                str(tmp_path / "rec"),
                "--no-shuffle",
                "--part-name-suffix-length",
                "3",
            ]
        )
        == 0
    )
    assert "classes (label order): a, b" in capsys.readouterr().out
    records = flow.data.read_records(tmp_path / "rec" / "part-000")
    for label, rec in enumerate(records):
        assert rec.feature["class/label"].int32_list.value[0] == label
        decoded = np.asarray(Image.open(io.BytesIO(rec.feature["encoded"].bytes_list.value[0])))
        assert decoded[0, 0, 0] == ord("ab"[label])


def test_deprecated_decode_ofrecord_with_blob_confs(images):
    data_dir, pixels = images

    @flow.global_function(type="predict")
    def legacy() -> Tuple[tp.Numpy, tp.Numpy]:
        image_conf = flow.data.BlobConf(
            "encoded",
            shape=(12, 16, 3),
            dtype=flow.float,
            codec=flow.data.ImageCodec(
                [flow.data.ImagePreprocessor("bgr2rgb"), flow.data.ImageResizePreprocessor(16, 12)]
            ),
            preprocessors=[
                flow.data.NormByChannelPreprocessor(
                    (1.0, 2.0, 3.0), (2.0, 2.0, 2.0), data_format="channels_first"
                )
            ],
        )
        label_conf = flow.data.BlobConf(
            "class/label", shape=(), dtype=flow.int32, codec=flow.data.RawCodec()
        )
        return flow.data.decode_ofrecord(
            str(data_dir), [image_conf, label_conf], batch_size=len(SIZES)
        )

    image, label = legacy()
    np.testing.assert_array_equal(label, np.arange(len(SIZES)))
    want = np.stack([_pillow_resize(p, 16, 12) for p in pixels]).astype(np.float32)
    ref = ((want - np.float32([1.0, 2.0, 3.0])) / np.float32(2.0)).transpose(0, 3, 1, 2)
    np.testing.assert_allclose(image, ref, rtol=1e-6)
