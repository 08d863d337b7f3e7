"""``nn.Dropout``, ``nn.Embedding`` and the upsampling layers of OneFlow v0.4."""

from __future__ import annotations

from typing import Any

from .. import tensor_ops as F
from ..imperative import Module, Parameter, Tensor


class Dropout(Module):
    """In training mode, zeroes each element with probability ``p`` (a fresh draw per call)
    and scales the rest by ``1 / (1 - p)``; in eval mode returns the input (v0.4 dropped in
    both modes; flowjob follows the later releases and PyTorch here).

    Examples:
        >>> import numpy as np
        >>> import flowjob.experimental as flow
        >>> y = flow.nn.Dropout(p=0.5)(flow.Tensor(np.ones(1000)))
        >>> assert set(np.unique(y.numpy())) <= {0.0, 2.0}
    """

    def __init__(self, p: float = 0.5, inplace: bool = False):
        super().__init__()
        if inplace:
            raise ValueError("Dropout: inplace=True is not supported (as in OneFlow v0.4)")
        if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0 <= p <= 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p!r}")
        self.p = p
        self.inplace = inplace

    def forward(self, x: Any) -> Any:
        return F.dropout(x, self.p, self.training)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class Embedding(Module):
    """A lookup table: ``forward(indices)`` gives the rows of ``weight``
    ``(num_embeddings, embedding_dim)``, drawn from N(0, 1) (the ``padding_idx`` row zeroed)
    unless ``_weight`` is given. ``max_norm``, ``norm_type``, ``scale_grad_by_freq`` and
    ``sparse`` are rejected, as v0.4 did.

    Examples:
        >>> import numpy as np
        >>> import flowjob.experimental as flow
        >>> m = flow.nn.Embedding(4, 2, padding_idx=1)
        >>> y = m(flow.tensor([[1, 3]], dtype=flow.int32))
        >>> assert tuple(y.shape) == (1, 2, 2) and np.all(y.numpy()[0, 0] == 0)
    """

    def __init__(
        self,
        num_embeddings: int,
        embedding_dim: int,
        padding_idx: int | None = None,
        max_norm: float | None = None,
        norm_type: float | None = None,
        scale_grad_by_freq: bool = False,
        sparse: bool = False,
        _weight: Tensor | None = None,
    ):
        super().__init__()
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        if padding_idx is not None:
            if not -num_embeddings <= padding_idx < num_embeddings:
                raise ValueError(
                    f"Embedding: padding_idx {padding_idx} must be within num_embeddings "
                    f"({num_embeddings})"
                )
            padding_idx %= num_embeddings
        self.padding_idx = padding_idx
        for what, value, default in (
            ("max_norm", max_norm, None),
            ("norm_type", norm_type, None),
            ("scale_grad_by_freq", scale_grad_by_freq, False),
            ("sparse", sparse, False),
        ):
            if value != default:
                raise ValueError(
                    f"Embedding: {what}={value!r} is not supported (as in OneFlow v0.4)"
                )
        self.sparse = sparse
        if _weight is None:
            self.weight = Parameter(Tensor(num_embeddings, embedding_dim))
            self.reset_parameters()
        else:
            if tuple(_weight.shape) != (num_embeddings, embedding_dim):
                raise ValueError(
                    f"Embedding: _weight of shape {tuple(_weight.shape)} does not match "
                    f"({num_embeddings}, {embedding_dim})"
                )
            self.weight = Parameter(_weight)

    def reset_parameters(self) -> None:
        self.weight.normal_()
        if self.padding_idx is not None:
            self.weight[self.padding_idx] = 0

    def forward(self, indices: Any) -> Any:
        return F.embedding(indices, self.weight)

    def extra_repr(self) -> str:
        return f"{self.num_embeddings}, {self.embedding_dim}"


class Upsample(Module):
    """Resizes H and W of NCHW inputs to ``size`` or by ``scale_factor``, ``"nearest"`` or
    ``"bilinear"`` (``align_corners`` only for bilinear).

    Examples:
        >>> import numpy as np
        >>> import flowjob.experimental as flow
        >>> y = flow.nn.Upsample(scale_factor=2)(flow.Tensor([[[[1.0, 2.0]]]]))
        >>> assert np.allclose(y.numpy(), [[[[1, 1, 2, 2], [1, 1, 2, 2]]]])
    """

    def __init__(
        self,
        size: Any = None,
        scale_factor: Any = None,
        mode: str = "nearest",
        align_corners: bool | None = None,
    ):
        super().__init__()
        if mode not in ("nearest", "bilinear"):
            raise ValueError(
                f'Upsample: interpolation must be "nearest" or "bilinear", got {mode!r}'
            )
        if mode == "nearest" and align_corners:
            raise ValueError('Upsample: interpolation "nearest" does not support align_corners')
        self.size = size
        if isinstance(scale_factor, (list, tuple)):
            self.scale_factor = tuple(float(f) for f in scale_factor)
        else:
            self.scale_factor = float(scale_factor) if scale_factor else None
        self.mode = mode
        self.align_corners = bool(align_corners)

    def forward(self, x: Any) -> Any:
        return F.upsample(x, self.size, self.scale_factor, self.mode, self.align_corners)

    def extra_repr(self) -> str:
        what = f"scale_factor={self.scale_factor}" if self.size is None else f"size={self.size}"
        return f"{what}, mode={self.mode}"


class UpsamplingNearest2d(Upsample):
    """``Upsample`` with ``mode="nearest"``."""

    def __init__(self, size: Any = None, scale_factor: Any = None) -> None:
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    """``Upsample`` with ``mode="bilinear"`` and ``align_corners=True``."""

    def __init__(self, size: Any = None, scale_factor: Any = None) -> None:
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)
