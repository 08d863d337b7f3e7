"""JAX implementations of the image ops whose dense inputs may be computed in the job body.

In OneFlow every op was part of one graph, so ``flow.image.CropMirrorNormalize`` could take a
uint8 batch made by ``flow.transpose`` and ``flow.cast``. When an input comes from the compiled
program, the op is recorded as a device op with the lowering below, which computes what the
host version (``_image.CropMirrorNormalize``) does, in the same float32 steps.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from ._image import crop_offset


def crop_mirror_normalize(
    images: jax.Array,
    mirror: jax.Array | None = None,
    *,
    crop_h: int,
    crop_w: int,
    crop_pos_y: float,
    crop_pos_x: float,
    mean: tuple[float, ...],
    std: tuple[float, ...],
    nchw: bool,
    dtype: str,
) -> jax.Array:
    """``crop_mirror_normalize_from_uint8`` on an (N, H, W, C) batch: the same crop for every
    image (they share a size), left-right flip where ``mirror`` is non-zero, then
    ``(x - mean) * (1 / std)`` per channel, NCHW or NHWC."""
    _, h, w, _ = images.shape
    y, x = crop_offset(h, crop_h, crop_pos_y), crop_offset(w, crop_w, crop_pos_x)
    piece = images[:, y : y + crop_h, x : x + crop_w, :].astype(jnp.float32)
    if mirror is not None:
        flip = (mirror.reshape(-1) != 0)[:, None, None, None]
        piece = jnp.where(flip, piece[:, :, ::-1, :], piece)
    scale = jnp.float32(1) / jnp.asarray(std, jnp.float32)
    out = (piece - jnp.asarray(mean, jnp.float32)) * scale
    if nchw:
        out = out.transpose(0, 3, 1, 2)
    return out.astype(dtype)
