"""Image ops that feed one another (decode with a random crop, resize, crop-mirror-normalize)
run as one pass per image when nothing else reads their intermediate batches: the values
equal a Pillow and NumPy reference computed here, and the same ops run one by one."""

from __future__ import annotations

import io
from typing import Tuple

import numpy as np
import pytest
from PIL import Image

import flowjob as flow
import flowjob.typing as tp
from flowjob._src.data._decode import RandomCrop
from flowjob._src.runtime import default_session
from flowjob.data import write_ofrecord

SIZES = [(40, 52), (37, 30), (45, 45), (28, 60), (33, 41)]  # (height, width)
MEAN, STD = [10.0, 20.0, 30.0], [2.0, 4.0, 8.0]

pytestmark = pytest.mark.usefixtures("fresh_session")


@pytest.fixture
def pixels(tmp_path):
    rng = np.random.default_rng(0)
    pixels = [rng.integers(0, 256, (h, w, 3), dtype=np.uint8) for h, w in SIZES]
    encoded = []
    for p in pixels:
        buffer = io.BytesIO()
        Image.fromarray(p).save(buffer, format="PNG")  # lossless: the reference's pixels
        encoded.append(buffer.getvalue())
    write_ofrecord(tmp_path, {"encoded": encoded})
    return tmp_path, pixels


def _job(data_dir, name: str, space: str, layout: str, read_resized: bool):
    c = 1 if space == "GRAY" else 3

    def body() -> Tuple[tp.Numpy, tp.Numpy, tp.Numpy]:
        r = flow.data.ofrecord_reader(str(data_dir), batch_size=len(SIZES))
        image = flow.data.OFRecordImageDecoderRandomCrop(r, "encoded", color_space=space, seed=4)
        resized = flow.image.Resize(image, target_size=(16, 12), channels=c)[0]
        flips = flow.random.CoinFlip(batch_size=len(SIZES), seed=3)
        normal = flow.image.CropMirrorNormalize(
            resized,
            mirror_blob=flips,
            color_space=space,
            output_layout=layout,
            crop_h=10,
            crop_w=14,
            crop_pos_y=0.3,
            crop_pos_x=0.6,
            mean=MEAN[:c],
            std=STD[:c],
            output_dtype=flow.float,
        )
        # returning the resized batch makes the ops run one by one
        return normal, flips, (resized if read_resized else flips)

    body.__name__ = body.__qualname__ = name
    return flow.global_function(type="predict")(body)


@pytest.mark.parametrize(("space", "layout"), [("RGB", "NCHW"), ("BGR", "NHWC"), ("GRAY", "NCHW")])
def test_a_chain_equals_the_ops_one_by_one_and_pillow(pixels, space, layout):
    data_dir, originals = pixels
    fused = _job(data_dir, "fused", space, layout, read_resized=False)
    apart = _job(data_dir, "apart", space, layout, read_resized=True)
    crop = RandomCrop(4)  # the decoder's windows: a generator per place and batch
    c = 1 if space == "GRAY" else 3
    mean = np.float32(MEAN[:c])
    scale = np.float32(1) / np.float32(STD[:c])
    for batch in range(2):  # a second batch: new windows and flips
        got, flips, _ = fused()
        want, flips_apart, _ = apart()
        np.testing.assert_array_equal(flips, flips_apart)
        np.testing.assert_array_equal(got, want)
        windows = [crop.window(*p.shape[:2], i, batch) for i, p in enumerate(originals)]
        for i, (p, (y, x, h, w)) in enumerate(zip(originals, windows)):
            image = Image.fromarray(p).convert("L" if space == "GRAY" else "RGB")
            kind = Image.BILINEAR if 16 * 12 >= w * h else Image.BOX
            small = image.crop((x, y, x + w, y + h)).resize((16, 12), kind)
            a = np.asarray(small).reshape(12, 16, c)
            if space == "BGR":
                a = a[:, :, ::-1]
            # a 10x14 crop of 12x16 at (0.3, 0.6): offsets int(2 * 0.3), int(2 * 0.6)
            piece = a[0:10, 1:15]
            if flips[i]:
                piece = piece[:, ::-1]
            norm = (piece.astype(np.float32) - mean) * scale
            if layout == "NCHW":
                norm = norm.transpose(2, 0, 1)
            np.testing.assert_array_equal(got[i], norm)
    steps = {
        name: [
            [f.op.op_type for f in step] for step in default_session().compiled[name].feeder.steps
        ]
        for name in ("fused", "apart")
    }
    chain = [
        "ofrecord_image_decoder_random_crop",
        "image_resize_to_fixed",
        "crop_mirror_normalize_from_uint8",
    ]
    assert chain in steps["fused"]
    # the resized batch is returned: normalizing is its own step; the decoder's buffers are
    # still read by the resize only
    assert chain[:2] in steps["apart"] and chain[2:] in steps["apart"]


def test_an_error_inside_a_chain_names_its_op(tmp_path):
    good = io.BytesIO()
    Image.fromarray(np.zeros((20, 20, 3), np.uint8)).save(good, format="PNG")
    write_ofrecord(tmp_path, {"encoded": [good.getvalue(), b"not an image at all"]})

    @flow.global_function(type="predict")
    def broken() -> tp.Numpy:
        r = flow.data.ofrecord_reader(str(tmp_path), batch_size=2)
        image = flow.data.OFRecordImageDecoder(r, "encoded", color_space="RGB")
        resized = flow.image.Resize(image, target_size=(8, 8))[0]
        return flow.image.CropMirrorNormalize(resized, crop_h=4, crop_w=4, color_space="RGB")

    with pytest.raises(flow.data.DecodeError) as info:
        broken()
    message = str(info.value)
    assert "cannot decode image (19 bytes)" in message
    assert "in data pipeline op" in message and "(ofrecord_image_decoder)" in message
    assert "of job 'broken'" in message
    with pytest.raises(flow.data.DecodeError, match="cannot decode image"):
        broken()  # every later call says so too


def test_batches_are_reused_only_when_nothing_else_refers_to_them():
    from flowjob._src.data._stages import Recycler

    batches = Recycler(keep=2)
    first = batches.empty((4, 3), np.float32)
    view = first[1:]
    assert batches.empty((4, 3), np.float32) is not first  # held by `first` and a view
    del first
    assert batches.empty((4, 3), np.float32).base is None  # the view still holds it
    del view
    again = batches.empty((4, 3), np.float32)  # free now: the kept one comes back
    assert batches.empty((4, 3), np.float32) is not again
    assert batches.empty((4, 3), np.int32).dtype == np.int32  # kept per shape and dtype


def test_returned_pipeline_batches_are_never_overwritten(pixels):
    data_dir, _ = pixels
    job = _job(data_dir, "kept", "RGB", "NCHW", read_resized=False)
    kept, copies = [], []
    for _ in range(6):  # more calls than the feeder reads ahead
        normal, _, _ = job()
        kept.append(normal)
        copies.append(normal.copy())
    assert len({id(a) for a in kept}) == len(kept)
    for a, b in zip(kept, copies):
        np.testing.assert_array_equal(a, b)


def test_argument_copies_are_the_only_arrays_the_staging_pool_takes_back():
    from flowjob._src.runtime._arguments import StagingPool

    pool = StagingPool()
    own = pool.copy(np.ones((2, 2), np.float32))
    users = np.full((2, 2), 7, np.float32)  # e.g. a pipeline batch the caller keeps
    pool.recycle([own, users, [users]])
    again = pool.copy(np.zeros((2, 2), np.float32))
    assert again is own
    fresh = pool.copy(np.zeros((2, 2), np.float32))
    assert fresh is not users and (users == 7).all()


def test_a_call_whose_own_arguments_fail_leaves_later_calls_alone():
    config = flow.FunctionConfig()
    config.default_logical_view(flow.scope.mirrored_view())

    @flow.global_function(type="predict", function_config=config)
    def normalize(x: tp.ListListNumpy.Placeholder((2, 30, 30, 3), dtype=flow.uint8)) -> tp.Numpy:
        buffers = flow.tensor_list_to_tensor_buffer(x)
        return flow.image.CropMirrorNormalize(buffers, crop_h=20, crop_w=20, color_space="RGB")

    rng = np.random.default_rng(1)
    small = [rng.integers(0, 256, (1, h, 25, 3), dtype=np.uint8) for h in (25, 12)]
    with pytest.raises(flow.data.DecodeError, match=r"crop 20x20 is larger than image 1"):
        normalize([small])
    big = [rng.integers(0, 256, (1, 30, 30, 3), dtype=np.uint8) for _ in range(2)]
    got = normalize([big])  # the pipeline reads this call's arguments: no failure kept
    want = np.stack([b[0, 5:25, 5:25].transpose(2, 0, 1) for b in big]).astype(np.float32)
    np.testing.assert_array_equal(got, want)


def test_a_validation_chain_with_an_aspect_keeping_resize(pixels):
    """OneFlow's evaluation input: decode, the shorter side to 36, a centred 32x32 crop."""
    from flowjob._src.data._image import keep_aspect_size

    data_dir, originals = pixels

    def job(name: str, read_scale: bool):
        def body() -> Tuple[tp.Numpy, tp.Numpy]:
            r = flow.data.ofrecord_reader(str(data_dir), batch_size=len(SIZES))
            image = flow.data.OFRecordImageDecoder(r, "encoded", color_space="BGR")
            resized, scale, _ = flow.image.Resize(image, target_size=36, keep_aspect_ratio=True)
            normal = flow.image.CropMirrorNormalize(
                resized, crop_h=32, crop_w=32, mean=MEAN, std=STD, output_layout="NHWC"
            )
            return normal, (scale if read_scale else normal)  # the scale: no chain

        body.__name__ = body.__qualname__ = name
        return flow.global_function(type="predict")(body)

    fused, apart = job("fused", False), job("apart", True)
    got, _ = fused()
    want, scale = apart()
    np.testing.assert_array_equal(got, want)
    for i, p in enumerate(originals):
        h, w = p.shape[:2]
        new_w, new_h = keep_aspect_size(h, w, 36, 0, 0, False)
        np.testing.assert_allclose(scale[i], (new_w / w, new_h / h))
        kind = Image.BILINEAR if new_w * new_h >= w * h else Image.BOX
        a = np.asarray(Image.fromarray(p).resize((new_w, new_h), kind))[:, :, ::-1]
        y, x = int(np.float32(new_h - 32) * 0.5), int(np.float32(new_w - 32) * 0.5)
        norm = (a[y : y + 32, x : x + 32].astype(np.float32) - np.float32(MEAN)) * (
            np.float32(1) / np.float32(STD)
        )
        np.testing.assert_array_equal(got[i], norm)
    steps = default_session().compiled["fused"].feeder.steps
    assert [f.op.op_type for f in steps[-1]] == [
        "ofrecord_image_decoder",
        "image_resize_keep_aspect_ratio",
        "crop_mirror_normalize_from_tensorbuffer",
    ]


def test_an_interrupted_wait_leaves_the_batch_to_the_next_call(pixels, monkeypatch):
    import concurrent.futures

    data_dir, _ = pixels
    interrupted = _job(data_dir, "interrupted", "RGB", "NCHW", read_resized=False)
    plain = _job(data_dir, "plain", "RGB", "NCHW", read_resized=False)
    result = concurrent.futures.Future.result
    calls = []

    def once(self, timeout=None):
        calls.append(1)
        if len(calls) == 1:
            raise KeyboardInterrupt  # Ctrl-C while the call waits for its batch's images
        return result(self, timeout)

    got = [interrupted()[0]]  # compiled and running: the next wait is for the images
    monkeypatch.setattr(concurrent.futures.Future, "result", once)
    with pytest.raises(KeyboardInterrupt):
        interrupted()
    got += [interrupted()[0] for _ in range(2)]
    monkeypatch.setattr(concurrent.futures.Future, "result", result)
    assert len(calls) > 1
    want = [plain()[0] for _ in range(3)]  # the same seeds: the same batches, none lost
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)
