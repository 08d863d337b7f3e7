"""Tensor buffers in jobs (dense in the program, variable-shape in the data pipeline), the
Megatron GPT loader on a dataset written here from the published .idx/.bin layout, and the
OFRecord image-classification reader, against NumPy references."""

from __future__ import annotations

import struct
from typing import Tuple

import numpy as np
import pytest

import flowjob as flow
import flowjob.typing as tp
from flowjob.data import write_ofrecord

pytestmark = pytest.mark.usefixtures("fresh_session")


def test_dense_round_trip_in_the_program():
    x = np.random.default_rng(0).random((3, 4, 5, 6)).astype(np.float32)

    @flow.global_function(type="predict")
    def job(a: tp.Numpy.Placeholder((3, 4, 5, 6))) -> Tuple[tp.Numpy, tp.Numpy]:
        buf = flow.tensor_to_tensor_buffer(a, instance_dims=2)
        parts = flow.tensor_buffer_to_list_of_tensors(buf, (30,), flow.float32)
        return flow.tensor_buffer_to_tensor(buf, flow.float32, (5, 6)) * 2, parts[5]

    doubled, part = job(x)
    np.testing.assert_array_equal(doubled, x * 2)
    np.testing.assert_array_equal(part, x[1, 1].reshape(30))


def test_dense_buffer_refuses_other_instance_shapes():
    with pytest.raises(flow.errors.OpError, match=r"instances of shape \(5, 6\).*\(6, 5\)"):

        @flow.global_function(type="predict")
        def job(a: tp.Numpy.Placeholder((3, 5, 6))) -> tp.Numpy:
            buf = flow.tensor_to_tensor_buffer(a, instance_dims=2)
            return flow.tensor_buffer_to_tensor(buf, flow.float32, (6, 5))

        job(np.zeros((3, 5, 6), np.float32))


def test_generated_buffer_to_tensor_and_list():
    @flow.global_function(type="predict")
    def job() -> Tuple[tp.Numpy, tp.ListNumpy, tp.ListNumpy]:
        same = flow.gen_tensor_buffer((2,), [(2, 3), (2, 3)], [1.5, -2.0], flow.float64)
        mixed = flow.gen_tensor_buffer((2,), [(1, 4), (3, 2)], [7, 8], flow.int32)
        a, b = flow.tensor_buffer_to_list_of_tensors(mixed, (3, 4), flow.int32, True)
        return flow.tensor_buffer_to_tensor(same, flow.float64, (2, 3)), a, b

    dense, (a,), (b,) = job()
    np.testing.assert_array_equal(dense, np.stack([np.full((2, 3), 1.5), np.full((2, 3), -2.0)]))
    np.testing.assert_array_equal(a, np.full((1, 4), 7, np.int32))
    np.testing.assert_array_equal(b, np.full((3, 2), 8, np.int32))


def test_pipeline_buffer_with_wrong_instances_names_the_instance():
    @flow.global_function(type="predict")
    def job() -> tp.Numpy:
        buf = flow.gen_tensor_buffer((2,), [(2, 3), (3, 2)], [0, 0], flow.float32)
        return flow.tensor_buffer_to_tensor(buf, flow.float32, (2, 3))

    with pytest.raises(flow.data.TensorBufferError, match=r"instance 1 has shape \(3, 2\)"):
        job()


def _write_megatron(prefix, docs, dtype=np.uint16, code=8):
    """Megatron-LM's MMapIndexedDataset layout, written field by field."""
    sizes = np.asarray([len(d) for d in docs], np.int32)
    pointers = np.concatenate([[0], np.cumsum(sizes[:-1]) * np.dtype(dtype).itemsize])
    with open(prefix + ".bin", "wb") as f:
        for d in docs:
            f.write(np.asarray(d, dtype).tobytes())
    with open(prefix + ".idx", "wb") as f:
        f.write(b"MMIDIDX\x00\x00")
        f.write(struct.pack("<Q", 1))
        f.write(struct.pack("<B", code))
        f.write(struct.pack("<Q", len(docs)))
        f.write(struct.pack("<Q", len(docs) + 1))
        f.write(sizes.tobytes())
        f.write(pointers.astype(np.int64).tobytes())
        f.write(np.arange(len(docs) + 1, dtype=np.int64).tobytes())


def test_megatron_loader_reads_samples_across_documents(tmp_path):
    docs = [[10, 11, 12, 13, 14], [20, 21, 22], [30, 31, 32, 33, 34, 35, 36]]
    prefix = str(tmp_path / "corpus_text_document")
    _write_megatron(prefix, docs)

    @flow.global_function(type="predict")
    def job() -> tp.Numpy:
        return flow.data.MegatronGPTMMapDataLoader(
            prefix, seq_length=4, num_samples=3, batch_size=1, shuffle=False
        )

    stream = np.concatenate(docs)  # without shuffling: the documents back to back
    for k in range(3):  # consecutive samples share one token (the label of the last)
        np.testing.assert_array_equal(job()[0], stream[4 * k : 4 * k + 5])


def test_megatron_loader_shuffled_samples_are_windows_of_the_corpus(tmp_path):
    docs = [list(range(100 * d, 100 * d + 6)) for d in range(5)]
    prefix = str(tmp_path / "c")
    _write_megatron(prefix, docs, np.int32, 4)

    @flow.global_function(type="predict")
    def job() -> tp.Numpy:
        return flow.data.megatron_gpt_mmap_data_loader(
            prefix, seq_length=3, num_samples=6, batch_size=2, random_seed=5
        )

    rows = np.concatenate([job(), job(), job()])
    assert rows.dtype == np.int64 and rows.shape == (6, 4)
    # every sample is 4 consecutive tokens of some order of whole documents
    for row in rows:
        for a, b in zip(row[:-1], row[1:]):
            assert b == a + 1 or (b % 100 == 0 and a % 100 == 5)


def test_megatron_bad_index_names_the_file(tmp_path):
    prefix = str(tmp_path / "bad")
    _write_megatron(prefix, [[1, 2, 3]])
    raw = bytearray(open(prefix + ".idx", "rb").read())
    raw[:3] = b"XXX"
    open(prefix + ".idx", "wb").write(bytes(raw))
    with pytest.raises(flow.errors.OpError, match=r"bad\.idx: not a Megatron index file"):

        @flow.global_function(type="predict")
        def job() -> tp.Numpy:
            return flow.data.megatron_gpt_mmap_data_loader(prefix, 2, 1, 1)

        job()


def test_ofrecord_image_classification_reader(tmp_path):
    import io

    from PIL import Image

    rng = np.random.default_rng(2)
    pixels = [rng.integers(0, 256, (h, w, 3), dtype=np.uint8) for h, w in [(5, 7), (8, 4)]]

    def png(p):
        buf = io.BytesIO()
        Image.fromarray(p).save(buf, format="PNG")
        return buf.getvalue()

    write_ofrecord(
        tmp_path, {"img": [png(p) for p in pixels], "lbl": np.asarray([[3], [9]], np.int64)}
    )

    @flow.global_function(type="predict")
    def job() -> Tuple[tp.ListNumpy, tp.Numpy]:
        image, label = flow.data.ofrecord_image_classification_reader(
            str(tmp_path), "img", "lbl", batch_size=2, color_space="RGB"
        )
        first, _ = flow.tensor_buffer_to_list_of_tensors(image, (8, 8, 3), flow.uint8, True)
        return first, label

    (first,), label = job()
    np.testing.assert_array_equal(first, pixels[0])
    assert label.dtype == np.int32
    np.testing.assert_array_equal(label, [3, 9])


def _mirrored() -> flow.FunctionConfig:
    config = flow.FunctionConfig()
    config.default_logical_view(flow.scope.mirrored_view())
    return config


def test_tensor_list_argument_through_image_ops_and_back():
    rng = np.random.default_rng(3)
    images = [rng.random((1, h, w, 3)).astype(np.float32) for h, w in [(4, 6), (5, 3)]]

    @flow.global_function(type="predict", function_config=_mirrored())
    def job(
        images_def: tp.ListListNumpy.Placeholder((2, 5, 6, 3), dtype=flow.float),
    ) -> Tuple[tp.ListListNumpy, tp.ListListNumpy]:
        buffer = flow.tensor_list_to_tensor_buffer(images_def)
        flipped = flow.image_flip(buffer, 17)
        normed = flow.image.normalize(buffer, std=[2.0, 2.0, 2.0], mean=[0.5, 0.5, 0.5])
        return (
            flow.tensor_buffer_to_tensor_list(flipped, shape=(5, 6, 3), dtype=flow.float),
            flow.tensor_buffer_to_tensor_list(normed, shape=(5, 6, 3), dtype=flow.double),
        )

    for _ in range(2):  # the pipeline runs on each call's own arguments
        images = [i * 2 for i in images]
        (flipped,), (normed,) = job([images])
        assert [f.shape for f in flipped] == [i.shape for i in images]
        for got, image in zip(flipped, images):
            np.testing.assert_array_equal(got, image[:, ::-1, ::-1])
        for got, image in zip(normed, images):
            assert got.dtype == np.float64
            np.testing.assert_allclose(got, (image - np.float32(0.5)) / np.float32(2), rtol=1e-6)


def test_tensor_list_argument_checks_name_the_argument():
    @flow.global_function(type="predict", function_config=_mirrored())
    def job(x: tp.ListListNumpy.Placeholder((2, 4), dtype=flow.float)) -> tp.ListListNumpy:
        buffer = flow.tensor_list_to_tensor_buffer(x)
        return flow.tensor_buffer_to_tensor_list(buffer, shape=(4,), dtype=flow.float)

    (out,) = job([[np.ones((1, 3), np.float32), np.zeros((1, 4), np.float32)]])
    np.testing.assert_array_equal(out[0], np.ones((1, 3)))
    with pytest.raises(flow.errors.JobArgumentError, match=r"argument 'x'.*add up to 3"):
        job([[np.ones((2, 3), np.float32), np.ones((1, 3), np.float32)]])
    with pytest.raises(flow.errors.JobArgumentError, match=r"argument .x.*one per device"):
        job([np.ones((1, 3), np.float32)])
    with pytest.raises(flow.errors.OpError, match=r"tensor list"):

        @flow.global_function(type="predict")
        def device_use(x: tp.ListListNumpy.Placeholder((2, 4))) -> tp.Numpy:
            return x + 1

        device_use([[np.ones((1, 4), np.float32)]])


def test_megatron_truncated_bin_names_the_sequence(tmp_path):
    prefix = str(tmp_path / "cut")
    _write_megatron(prefix, [[1, 2, 3], [4, 5, 6, 7]])
    with open(prefix + ".bin", "r+b") as f:
        f.truncate(9)
    with pytest.raises(flow.errors.OpError, match=r"cut\.bin: sequence 1 \(offset 6, 4 tokens"):

        @flow.global_function(type="predict")
        def job() -> tp.Numpy:
            return flow.data.megatron_gpt_mmap_data_loader(prefix, 2, 1, 1)

        job()
