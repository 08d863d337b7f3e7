"""Image summaries: input checking on the caller's thread, PNG encoding on the writer thread.

Layout choice for a batch of N images: **one tag, N samples**, as one new-style ``DT_STRING``
tensor ``[b"<width>", b"<height>", png_0, ..., png_{N-1}]`` with ``plugin_name="images"``.
TensorBoard shows it as a single card with a sample slider (``/data/plugin/images/images?...
&sample=i``). OneFlow instead wrote N legacy values tagged ``tag`` (N == 1) or ``tag0``,
``tag1``, ... (N > 1), which TensorBoard shows as N unrelated cards whose names collide with
other tags (``image1`` vs a user tag ``image1``); the tensor form keeps the user's tag intact.
"""

from __future__ import annotations

import io

import numpy as np
from PIL import Image
from tensorboard.compat.proto import summary_pb2, tensor_pb2, tensor_shape_pb2, types_pb2
from tensorboard.plugins.image import plugin_data_pb2 as image_data_pb2

__all__ = ["as_image_batch", "encode_png", "image_value"]

_MODES = {1: "L", 3: "RGB", 4: "RGBA"}
_IMAGE_CONTENT = image_data_pb2.ImagePluginData(version=0).SerializeToString()


def as_image_batch(images, what: str = "image") -> np.ndarray:
    """Checks and converts ``images`` to a C-contiguous uint8 ``(N, H, W, C)`` copy.

    Accepts ``(N, H, W, C)``, ``(H, W, C)`` and ``(H, W)``; ``C`` in {1, 3, 4} (gray, RGB,
    RGBA). dtype uint8, or float with values in [0, 1] (scaled by 255 and rounded). The copy
    lets the caller reuse its buffer while encoding happens later on another thread.
    """
    a = np.asarray(images)
    if a.ndim == 2:
        a = a[None, :, :, None]
    elif a.ndim == 3:
        if a.shape[-1] not in _MODES:
            raise ValueError(
                f"{what}: a 3-D image must be (H, W, C) with C in {{1, 3, 4}}, got shape "
                f"{a.shape}; for a batch of gray images add a channel axis: (N, H, W, 1)"
            )
        a = a[None]
    elif a.ndim != 4:
        raise ValueError(
            f"{what}: expected images of shape (N, H, W, C), (H, W, C) or (H, W), "
            f"got shape {a.shape}"
        )
    n, h, w, c = a.shape
    if c not in _MODES:
        raise ValueError(
            f"{what}: channels must be 1 (gray), 3 (RGB) or 4 (RGBA), got {c} "
            f"(shape {a.shape}; images are channels-last)"
        )
    if n == 0 or h == 0 or w == 0:
        raise ValueError(f"{what}: empty image batch, shape {a.shape}")
    if a.dtype == np.uint8:
        return np.array(a, dtype=np.uint8, order="C", copy=True)
    if np.issubdtype(a.dtype, np.floating):
        finite = np.isfinite(a)
        if not finite.all() or a.min() < 0.0 or a.max() > 1.0:
            raise ValueError(
                f"{what}: float images must hold finite values in [0, 1], got "
                f"{_value_range(a, finite)} (dtype {a.dtype}); pass uint8 for "
                "0..255 data"
            )
        return np.rint(a * 255.0).astype(np.uint8)
    raise TypeError(f"{what}: expected dtype uint8 (or float in [0, 1]), got {a.dtype}")


def _value_range(a: np.ndarray, finite: np.ndarray) -> str:
    """The range of the finite values, and what and where the non-finite ones are."""
    kept = a[finite]
    shown = f"range [{kept.min()}, {kept.max()}]" if kept.size else "no finite value"
    if finite.all():
        return shown
    bad = ~finite
    nan = int(np.isnan(a).sum())
    counts = {"NaN": nan, "+Inf": int((a == np.inf).sum()), "-Inf": int((a == -np.inf).sum())}
    kinds = ", ".join(f"{n:,} {k}" for k, n in counts.items() if n)
    first = tuple(int(i) for i in np.argwhere(bad)[0])
    return (
        f"{shown} and {int(bad.sum()):,} non-finite of {a.size:,} values ({kinds}; the "
        f"first at index {first} of the (N, H, W, C) batch)"
    )


def encode_png(image: np.ndarray, compress_level: int = 6) -> bytes:
    """PNG bytes of one uint8 ``(H, W, C)`` image."""
    # fromarray infers L / RGB / RGBA from the shape of a uint8 array.
    pil = Image.fromarray(image[:, :, 0] if image.shape[-1] == 1 else image)
    buf = io.BytesIO()
    pil.save(buf, format="PNG", compress_level=compress_level)
    return buf.getvalue()


def image_value(
    tag: str, batch: np.ndarray, with_metadata: bool, compress_level: int = 6
) -> summary_pb2.Summary.Value:
    """A ``Summary.Value`` with the PNG-encoded ``(N, H, W, C)`` uint8 ``batch`` (slow part)."""
    n, h, w, _ = batch.shape
    strings = [str(w).encode(), str(h).encode()]
    strings.extend(encode_png(batch[i], compress_level) for i in range(n))
    tensor = tensor_pb2.TensorProto(
        dtype=types_pb2.DT_STRING,
        tensor_shape=tensor_shape_pb2.TensorShapeProto(
            dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=len(strings))]
        ),
        string_val=strings,
    )
    value = summary_pb2.Summary.Value(tag=tag, tensor=tensor)
    if with_metadata:
        value.metadata.plugin_data.plugin_name = "images"
        value.metadata.plugin_data.content = _IMAGE_CONTENT
        value.metadata.data_class = summary_pb2.DATA_CLASS_BLOB_SEQUENCE
    return value
