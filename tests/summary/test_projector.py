"""Projector files read back with TensorBoard's own projector-plugin helpers."""

from __future__ import annotations

import io
import os
import warnings

import numpy as np
import pytest
from google.protobuf import text_format
from PIL import Image
from tensorboard.plugins.projector import projector_plugin as tbp
from tensorboard.plugins.projector.projector_config_pb2 import ProjectorConfig

from flowjob._src.summary._projector import Projector
from flowjob._src.summary._projector_images import MAX_SPRITE_PX


def read_config(logdir) -> tuple[str, ProjectorConfig]:
    path = os.path.join(logdir, "projector_config.pbtxt")
    config = ProjectorConfig()
    with open(path, encoding="utf-8") as f:
        text_format.Parse(f.read(), config)
    return path, config


def embedding(logdir, name):
    path, config = read_config(logdir)
    (info,) = [e for e in config.embeddings if e.tensor_name == name]
    return path, info


def asset(config_path, rel) -> str:
    # TensorBoard's own resolver: raises if the asset escapes the config directory.
    return tbp._rel_to_abs_asset_path(rel, config_path)


def tb_tensor(config_path, info) -> np.ndarray:
    fpath = asset(config_path, info.tensor_path)
    try:  # the plugin's read order: TSV first, raw float32 on a decode error
        return tbp._read_tensor_tsv_file(fpath)
    except UnicodeDecodeError:
        return tbp._read_tensor_binary_file(fpath, info.tensor_shape)


def metadata_lines(config_path, info) -> list[str]:
    with open(asset(config_path, info.metadata_path), encoding="utf-8") as f:
        return f.read().splitlines()


def sprite(config_path, info) -> np.ndarray:
    with open(asset(config_path, info.sprite.image_path), "rb") as f:
        data = f.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return np.asarray(Image.open(io.BytesIO(data)))


@pytest.fixture
def proj(tmp_path):
    p = Projector(tmp_path)
    p.create_embedding_projector()
    return p


def test_embedding_tensor_metadata_and_sprite(proj, tmp_path):
    rng = np.random.default_rng(0)
    value = rng.normal(size=(10, 2, 3)).astype(np.float32)
    label = np.arange(10, dtype=np.int64) * 7
    x = rng.integers(0, 256, size=(10, 6, 6), dtype=np.uint8)
    proj.embedding_projector(
        value=value, label=label, tag="emb", step=3, sample_name="sample", sample_type="image", x=x
    )
    path, info = embedding(tmp_path, "emb:00003")
    assert list(info.tensor_shape) == [10, 6]
    assert info.tensor_path.endswith("tensors.bin")
    with open(asset(path, info.tensor_path), "rb") as f:
        assert f.read() == value.reshape(10, 6).astype("<f4").tobytes()
    np.testing.assert_array_equal(tb_tensor(path, info), value.reshape(10, 6))

    lines = metadata_lines(path, info)
    assert lines[0] == "index\tlabel"
    assert lines[1:] == [f"{i}\t{7 * i}" for i in range(10)]

    img = sprite(path, info)
    assert img.shape == (24, 24)  # ceil(sqrt(10)) = 4 thumbnails of 6 px per row; square
    assert list(info.sprite.single_image_dim) == [6, 6]
    for i in range(10):
        r, c = divmod(i, 4)
        np.testing.assert_array_equal(img[r * 6 : (r + 1) * 6, c * 6 : (c + 1) * 6], x[i])
    assert not img[12:18, 12:].any() and not img[18:].any()  # padding only at the end


def test_single_metadata_column_has_no_header(proj, tmp_path):
    proj.embedding_projector(value=np.eye(4, dtype=np.float32) + 0.25, tag="e", step=0)
    path, info = embedding(tmp_path, "e:00000")
    assert metadata_lines(path, info) == ["0", "1", "2", "3"]
    assert not info.sprite.image_path


def test_utf8_looking_tensor_is_written_as_exact_tsv(proj, tmp_path):
    value = np.array([[0.0, 0.5], [0.5, 0.0], [1.0000001, 3.1415927]], np.float32)
    value[2] = [0.0, 0.5]  # every byte < 0x80: the raw bytes would decode as UTF-8
    assert value.tobytes().decode("utf-8")
    proj.embedding_projector(value=value, tag="t", step=1)
    path, info = embedding(tmp_path, "t:00001")
    assert info.tensor_path.endswith("tensors.tsv")
    got = tb_tensor(path, info)
    assert got.dtype == np.float32 and got.tobytes() == value.tobytes()


def test_ascii_byte_floats_round_trip_bit_exactly(proj, tmp_path):
    # Random bytes below 0x80 give finite float32 values (subnormal to huge) whose raw form
    # is valid UTF-8, so they must go through the TSV path and still come back bit-exact.
    raw = np.random.default_rng(5).integers(0, 0x80, size=64 * 5 * 4, dtype=np.uint8)
    value = raw.view("<f4").reshape(64, 5)
    proj.embedding_projector(value=value, tag="ascii", step=0)
    path, info = embedding(tmp_path, "ascii:00000")
    assert info.tensor_path.endswith("tensors.tsv")
    assert tb_tensor(path, info).tobytes() == value.tobytes()


def test_seed_quirk_value_rows_and_samples_mismatch(proj, tmp_path):
    # The OneFlow docs pass a (100,100,100) value with 10 labels and 10 samples.
    rng = np.random.default_rng(1)
    value = rng.random((100, 100, 100)).astype(np.float32)
    label = (rng.random(10) * 10).astype(np.int64)
    x = (rng.random((10, 10, 10)) * 255).astype(np.uint8)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        proj.embedding_projector(
            value=value,
            label=label,
            tag="embedding_projector",
            step=1,
            sample_name="sample",
            sample_type="image",
            x=x,
        )
    messages = [str(w.message) for w in caught]
    assert any("label has shape (10,) but value has 100 samples" in m for m in messages)
    assert any("x holds 10 samples but value has 100 rows" in m for m in messages)
    path, info = embedding(tmp_path, "embedding_projector:00001")
    assert list(info.tensor_shape) == [100, 10000]
    assert not info.sprite.image_path
    assert metadata_lines(path, info) == [str(i) for i in range(100)]
    assert tb_tensor(path, info).tobytes() == value.reshape(100, -1).tobytes()


def test_sprite_respects_8192_px_by_downscaling(proj, tmp_path):
    # Four 1 x 4097 thumbnails: 2 per row of 4097 px would make an 8194 px sprite.
    x = np.zeros((4, 1, 4097), np.uint8)
    x[:, 0, :] = np.array([50, 100, 150, 200], np.uint8)[:, None]
    proj.embedding_projector(
        value=np.arange(8, dtype=np.float32).reshape(4, 2) + 0.5,
        tag="big",
        step=0,
        sample_name="s",
        sample_type="image",
        x=x,
    )
    path, info = embedding(tmp_path, "big:00000")
    img = sprite(path, info)
    cell = MAX_SPRITE_PX // 2
    assert img.shape == (2 * cell, 2 * cell) and img.shape[0] <= MAX_SPRITE_PX
    assert list(info.sprite.single_image_dim) == [cell, cell]
    for i, v in enumerate([50, 100, 150, 200]):
        r, c = divmod(i, 2)
        thumb = img[r * cell : (r + 1) * cell, c * cell : (c + 1) * cell]
        assert (thumb == v).any() and set(np.unique(thumb)) <= {0, v}


def test_rgb_and_float_samples(proj, tmp_path):
    x = np.random.default_rng(2).random((3, 4, 5, 3))  # floats in [0, 1], non-square
    proj.embedding_projector(
        value=np.ones((3, 2)) * [[1], [2], [3]],
        tag="rgb",
        step=2,
        sample_name="s",
        sample_type="IMAGE",
        x=x,
    )
    path, info = embedding(tmp_path, "rgb:00002")
    img = sprite(path, info)
    assert img.shape == (10, 10, 3)  # 2 per row, thumbnails padded to 5 x 5
    expected = np.rint(x[0] * 255).astype(np.uint8)
    np.testing.assert_array_equal(img[0:4, 0:5], expected)  # centred: top pad 0 of 1 row
    assert not img[4, 0:5].any()


def test_text_samples_become_a_metadata_column(proj, tmp_path):
    words = np.array(["cat", "dog\twith tab", "eel"])
    proj.embedding_projector(
        value=np.eye(3) * 2, tag="w", step=0, sample_name="word", sample_type="text", x=words
    )
    path, info = embedding(tmp_path, "w:00000")
    assert metadata_lines(path, info) == ["index\tword", "0\tcat", "1\tdog with tab", "2\teel"]


def test_one_embedding_per_tag_and_step_and_entries_are_kept(proj, tmp_path):
    other = Projector(tmp_path)
    other.create_embedding_projector()
    proj.embedding_projector(value=np.ones((2, 2)) * 3, tag="a", step=1)
    proj.embedding_projector(value=np.ones((3, 2)) * 3, tag="a", step=1)  # replaces
    proj.embedding_projector(value=np.ones((2, 2)) * 3, tag="a", step=2)
    other.embedding_projector(value=np.ones((2, 2)) * 3, tag="b", step=1)
    path, config = read_config(tmp_path)
    names = [e.tensor_name for e in config.embeddings]
    assert names == ["a:00001", "a:00002", "b:00001"]
    assert list(config.embeddings[0].tensor_shape) == [3, 2]
    assert not [f for f in os.listdir(tmp_path) if f.endswith(".tmp")]


def test_entries_from_an_earlier_process_survive(tmp_path):
    old = ProjectorConfig()
    e = old.embeddings.add(tensor_name="old:00000", tensor_path="projector/old/t.tsv")
    e.tensor_shape.extend([1, 1])
    (tmp_path / "projector_config.pbtxt").write_text(text_format.MessageToString(old))
    p = Projector(tmp_path)
    p.create_embedding_projector()
    p.embedding_projector(value=np.ones((2, 2)) * 3, tag="new", step=0)
    _, config = read_config(tmp_path)
    assert [x.tensor_name for x in config.embeddings] == ["old:00000", "new:00000"]


def test_hostile_tags_stay_inside_the_config_dir(proj, tmp_path):
    for i, tag in enumerate(["../../escape", "/abs/path", "a/../../b", "..", "we ird:tag"]):
        proj.embedding_projector(value=np.ones((2, 2)) * 3, tag=tag, step=i)
        path, info = embedding(tmp_path, f"{tag}:{i:05d}")
        for rel in (info.tensor_path, info.metadata_path):
            resolved = asset(path, rel)  # raises if outside
            assert os.path.isfile(resolved)
            assert resolved.startswith(os.path.realpath(tmp_path / "projector") + os.sep)


def test_errors(tmp_path):
    with pytest.raises(ValueError, match="logdir should not be None"):
        Projector(None)
    p = Projector(tmp_path)
    assert (tmp_path / "projector").is_dir()
    with pytest.raises(TypeError, match="before create_embedding_projector"):
        p.embedding_projector(value=np.ones((2, 2)), step=0)
    with pytest.raises(TypeError, match="before create_exception_projector"):
        p.exception_projector(value=np.ones((2, 2)), step=0)
    p.create_embedding_projector()
    with pytest.raises(OSError, match="You must create only one embedding projector!"):
        p.create_embedding_projector()
    p.create_exception_projector()
    with pytest.raises(OSError, match=r"only one embedding projector! \(create_exception"):
        p.create_exception_projector()
    with pytest.raises(NotImplementedError, match="sample_type must be 'image', 'audio' or"):
        p.embedding_projector(
            value=np.ones((2, 2)), step=0, sample_name="s", sample_type="video", x=np.ones((2, 2))
        )
    with pytest.raises(TypeError, match="step must be an int"):
        p.embedding_projector(value=np.ones((2, 2)))
    with pytest.raises(ValueError, match="value is required"):
        p.embedding_projector(step=0)
    with pytest.raises(ValueError, match=r"got shape \(0, 3\)"):
        p.embedding_projector(value=np.ones((0, 3)), step=0)
    with pytest.raises(TypeError, match="real numeric array"):
        p.embedding_projector(value=np.array([["a"]]), step=0)
    with pytest.raises(ValueError, match="x .* is required"):
        p.embedding_projector(value=np.ones((2, 2)), step=0, sample_name="s", sample_type="image")
    with pytest.raises(TypeError, match="tag must be a non-empty str"):
        p.embedding_projector(value=np.ones((2, 2)), step=0, tag="")
    with pytest.warns(UserWarning, match="x is ignored"):
        p.embedding_projector(value=np.ones((2, 2)), step=0, x=np.ones((2, 3, 3)))
    with pytest.warns(UserWarning, match="no sprite written"):
        p.embedding_projector(
            value=np.ones((2, 2)),
            step=0,
            sample_name="s",
            sample_type="image",
            x=np.ones((2, 3, 3, 7)),
        )
