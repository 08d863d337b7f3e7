"""Small data sets written for the programs, in the layouts they read (the repository holds no
data). Every generator takes the program's run folder and writes under it; images are
random or simple shapes, enough for a few steps, not for learning anything in particular."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tests.compat.conftest import write_mnist_npz

RNG_SEED = 0


def rng() -> np.random.Generator:
    return np.random.default_rng(RNG_SEED)


def mnist_npz(n_train: int = 200, n_test: int = 100):
    """``mnist.npz`` (what ``flow.data.load_mnist`` reads first) with the first images of
    flowjob's bundled subset."""

    def write(folder: Path) -> None:
        write_mnist_npz(folder, n_train, n_test)

    return write


def mnist_idx(subfolder: str, n_train: int = 60000, n_test: int = 10000):
    """MNIST's four uncompressed IDX files (``train-images-idx3-ubyte``...) in ``subfolder``,
    random digits-sized images (programs that hard-code the official counts need them)."""

    def write(folder: Path) -> None:
        target = folder / subfolder
        target.mkdir(parents=True, exist_ok=True)
        gen = rng()
        for prefix, n in (("train", n_train), ("t10k", n_test)):
            images = gen.integers(0, 256, (n, 28, 28), dtype=np.uint8)
            labels = gen.integers(0, 10, n, dtype=np.uint8)
            head = np.array([2051, n, 28, 28], ">i4").tobytes()
            (target / f"{prefix}-images-idx3-ubyte").write_bytes(head + images.tobytes())
            head = np.array([2049, n], ">i4").tobytes()
            (target / f"{prefix}-labels-idx1-ubyte").write_bytes(head + labels.tobytes())

    return write


def image_files(subfolder: str, n: int, height: int, width: int, suffix: str = ".jpg"):
    """``n`` random RGB images ``0<suffix>``... of ``height`` x ``width`` in ``subfolder``."""

    def write(folder: Path) -> None:
        from PIL import Image

        target = folder / subfolder
        target.mkdir(parents=True, exist_ok=True)
        gen = rng()
        for i in range(n):
            pixels = gen.integers(0, 256, (height, width, 3), dtype=np.uint8)
            Image.fromarray(pixels).save(target / f"{i}{suffix}")

    return write


def npy(path: str, shape: tuple[int, ...], dtype=np.float32, high: float = 1.0):
    """One NumPy file of random values in [0, high) (integers below ``high`` for int types)."""

    def write(folder: Path) -> None:
        target = folder / path
        target.parent.mkdir(parents=True, exist_ok=True)
        gen = rng()
        if np.issubdtype(dtype, np.integer):
            values = gen.integers(0, int(high), shape).astype(dtype)
        else:
            values = (gen.random(shape) * high).astype(dtype)
        np.save(target, values)

    return write


def together(*writers):
    """All of ``writers``, in order."""

    def write(folder: Path) -> None:
        for writer in writers:
            writer(folder)

    return write


def placeholder_weights(subfolder: str):
    """A checkpoint folder in OneFlow's layout (``<name>/out``, ``<name>/meta``,
    ``snapshot_done``) that holds one variable of no program: it stands for pretrained weights
    (a download of the time). OneFlow v0.4 loaded the variables a folder had and kept the
    others at their initial values, so the program starts from those."""

    def write(folder: Path) -> None:
        target = folder / subfolder / "ecosystem_placeholder"
        target.mkdir(parents=True, exist_ok=True)
        (target / "out").write_bytes(np.zeros(1, np.float32).tobytes())
        (target / "meta").write_text("shape {\n  dim: 1\n}\ndata_type: kFloat\n")
        (folder / subfolder / "snapshot_done").write_text("")

    return write


def jpeg_bytes(height: int, width: int, gen: np.random.Generator) -> bytes:
    """One random RGB JPEG image, encoded."""
    import io

    from PIL import Image

    pixels = gen.integers(0, 256, (height, width, 3), dtype=np.uint8)
    buffer = io.BytesIO()
    Image.fromarray(pixels).save(buffer, format="JPEG")
    return buffer.getvalue()


def imagenet_ofrecord(
    subfolder: str,
    n: int,
    size: int = 64,
    classes: int = 2,
    part_num: int = 1,
    suffix_length: int = 5,
    label_dtype=np.int32,
    fields: tuple[str, str] = ("encoded", "class/label"),
    labels: np.ndarray | None = None,
):
    """OFRecords as OneFlow's ImageNet scripts read them: ``encoded`` (a JPEG) and
    ``class/label`` (or the two ``fields`` named; ``labels``, default 0, 1... modulo
    ``classes``), in ``part-00000``... files."""

    def write(folder: Path) -> None:
        from flowjob.data import write_ofrecord

        gen = rng()
        write_ofrecord(
            folder / subfolder,
            {
                fields[0]: [jpeg_bytes(size, size, gen) for _ in range(n)],
                fields[1]: (np.arange(n) % classes if labels is None else labels).astype(
                    label_dtype
                ),
            },
            part_num=part_num,
            part_name_suffix_length=suffix_length,
        )

    return write


def raw_image_ofrecord(
    subfolder: str, n: int, shape: tuple[int, ...], part_num: int = 1, classes: int = 10
):
    """OFRecords of raw float32 pixels in [0, 255] (``images``, of ``shape``) and int32
    ``labels``, in ``part-00000``... files (the CIFAR/MNIST layout of the compression
    toolkit's converters)."""

    def write(folder: Path) -> None:
        from flowjob.data import write_ofrecord

        gen = rng()
        write_ofrecord(
            folder / subfolder,
            {
                "images": (gen.random((n, *shape)) * 255).astype(np.float32),
                "labels": (np.arange(n) % classes).astype(np.int32),
            },
            part_num=part_num,
            part_name_suffix_length=5,
        )

    return write


def label_maps(subfolder: str, n: int, size: int, classes: int):
    """``n`` grayscale PNG label maps (pixel value = class below ``classes``)."""

    def write(folder: Path) -> None:
        from PIL import Image

        target = folder / subfolder
        target.mkdir(parents=True, exist_ok=True)
        gen = rng()
        for i in range(n):
            pixels = gen.integers(0, classes, (size, size), dtype=np.uint8)
            Image.fromarray(pixels, mode="L").save(target / f"{i}.png")

    return write


def link(name: str, target: str):
    """A symbolic link ``name`` to ``target`` (a folder an earlier program writes)."""

    def write(folder: Path) -> None:
        (folder / name).symlink_to(target)

    return write


def market1501(root: str, pids: int = 2, per_pid: int = 4, height: int = 128, width: int = 64):
    """Market-1501's folders (``bounding_box_train``, ``query``, ``bounding_box_test``) of
    ``<root>/market1501`` with random person crops named as its files are
    (``<pid>_c<camera>s1_<frame>_00.jpg``): ``per_pid`` training images of each of ``pids``
    people, one query and two gallery images each, from different cameras."""

    def write(folder: Path) -> None:
        from PIL import Image

        gen = rng()
        base = folder / root / "market1501"
        counts = {"bounding_box_train": per_pid, "query": 1, "bounding_box_test": 5}
        for split, count in counts.items():
            (base / split).mkdir(parents=True, exist_ok=True)
            for pid in range(1, pids + 1):
                for i in range(count):
                    camera = 1 + (i + (split == "bounding_box_test")) % 6
                    pixels = gen.integers(0, 256, (height, width, 3), dtype=np.uint8)
                    name = f"{pid:04d}_c{camera}s1_{i:06d}_00.jpg"
                    Image.fromarray(pixels).save(base / split / name)

    return write
