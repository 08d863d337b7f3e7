"""Quantization-aware training (``config.enable_qat(True)``): fake quantization around a job's
int8 ops.

OneFlow v0.4 rewrote the built job (its QuantAwareTraining pass); flowjob makes the same
rewrite while the job is traced, in the ops themselves (``Rewrite``), because every fact the
pass used is known then:

- the int8 ops per ``qat.target_backend``: ``""``: conv2d, matmul, batch_matmul;
  ``"tensorrt7"``: conv2d; ``"cambricon"``: conv2d, matmul (OneFlow's default list also has
  add_n and the 2-D pools, which flowjob does not rewrite);
- an input that is a variable is observed by ``min_max_observer`` (per output channel with
  ``per_channel_weight_quantization``), any other by ``moving_average_min_max_observer``
  (``moving_min_max_momentum``, ``moving_min_max_stop_update_after_iters``);
- ``""``/``"tensorrt7"`` quantize an int8 op's output (after a conv layer's bias_add and relu)
  and leave an input that is another int8 op's output alone; ``"cambricon"`` quantizes every
  input and no output;
- the bias of a conv layer is quantized with the product of the input and weight scales and a
  zero point of 0;
- only float32 blobs, and not inside ``flow.experimental.scope.config(
  quantization_aware_training=False)`` (an int8 op there still counts as one for its
  consumers, and its producer's output quantization still applies).

Op names are OneFlow's: ``<lbn with '-' for '/'>-fake-quant``, ``...-fake-quant-observer``.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import Any

from .. import _dtypes
from .._enum import Mode
from ..errors import OpError
from ..graph import Blob, OpKind, apply_op, current_graph, get_variable, scope_attr
from ._quantization import fake_quantization, min_max_observer, observe_moving
from .initializers import zeros_initializer


class QatBackend(Mode):
    """``qat.target_backend``: which ops get fake quantization, and where."""

    DEFAULT = ""
    CAMBRICON = "cambricon"
    TENSORRT7 = "tensorrt7"


class QatConfig:
    """``config.qat.*``: how quantization-aware training rewrites a job (OneFlow's
    ``QatConfig`` fields and defaults; ``FunctionConfig.qat``)."""

    def __init__(self) -> None:
        self.symmetric_value = True
        self.per_channel = False
        self.momentum = 0.95
        self.stop_update_after_iters: int | None = None
        self.backend = QatBackend.DEFAULT

    def symmetric(self, value: bool = True) -> None:
        self.symmetric_value = bool(value)

    def per_channel_weight_quantization(self, value: bool = True) -> None:
        self.per_channel = bool(value)

    def moving_min_max_momentum(self, value: float) -> None:
        self.momentum = float(value)

    def moving_min_max_stop_update_after_iters(self, value: int) -> None:
        if type(value) is not int or value < 0:
            raise ValueError(
                f"qat.moving_min_max_stop_update_after_iters takes an int >= 0, got {value!r}"
            )
        self.stop_update_after_iters = value

    def target_backend(self, value: str) -> None:
        backend = QatBackend.lookup(value)
        if backend is None:
            raise ValueError(
                f"qat.target_backend must be one of {[b.value for b in QatBackend]}, got {value!r}"
            )
        self.backend = backend


_INT8_OPS = {
    QatBackend.DEFAULT: frozenset({"conv2d", "matmul", "batch_matmul"}),
    QatBackend.TENSORRT7: frozenset({"conv2d"}),
    QatBackend.CAMBRICON: frozenset({"conv2d", "matmul"}),
}


@dataclass
class _Quantized:
    blob: Blob
    scale: Blob | None  # None: an int8 op's output left unquantized (its scope turned QAT off)


# per job being traced: lbn -> its fake-quantized form (one per blob, as OneFlow's op names)
_jobs: weakref.WeakKeyDictionary[Any, dict[str, _Quantized]] = weakref.WeakKeyDictionary()


def _dashed(blob: Blob) -> str:
    return blob.lbn.replace("/", "-")


def _mul(a: Blob, b: Blob, name: str) -> Blob:
    return apply_op("broadcast_mul", lambda x, y: x * y, [a, b], name=name)


class Rewrite:
    """The QAT rewrite of one int8 op; does nothing when the job has QAT off or the op is not
    int8 for the backend."""

    def __init__(self, op_type: str) -> None:
        graph = current_graph()
        config = graph.config
        self.job = graph
        self.qat = config.qat if getattr(config, "qat_enabled", False) else None
        self.int8 = self.qat is not None and op_type in _INT8_OPS[self.qat.backend]
        self.enabled = self.int8 and scope_attr("quantization_aware_training")
        self.scales: list[Blob | None] = []

    @property
    def _after(self) -> bool:
        """Quantize outputs (and skip inputs that are int8 outputs), as ""/tensorrt7 do."""
        return self.qat.backend is not QatBackend.CAMBRICON

    @property
    def _modes(self) -> dict[str, str]:
        return {
            "quantization_scheme": "symmetric" if self.qat.symmetric_value else "affine",
            "quantization_formula": "cambricon"
            if self.qat.backend is QatBackend.CAMBRICON
            else "google",
        }

    def inputs(self, *blobs: Blob) -> list[Blob]:
        """The op's inputs, fake-quantized where the rewrite says so."""
        if not self.enabled:
            return list(blobs)
        memo = _jobs.setdefault(self.job, {})
        out = []
        for blob in blobs:
            known = memo.get(blob.lbn)
            if known is not None:  # quantized already, or an int8 output to leave alone
                out.append(known.blob)
                self.scales.append(known.scale)
            elif blob.dtype != _dtypes.float32:
                out.append(blob)
                self.scales.append(None)
            else:
                out.append(self._quantize(blob, memo))
                self.scales.append(memo[blob.lbn].scale)
        return out

    def _quantize(self, blob: Blob, memo: dict[str, _Quantized]) -> Blob:
        observer = _dashed(blob) + "-fake-quant-observer"
        if blob.op.kind == OpKind.VARIABLE:
            scale, zero = min_max_observer(
                blob,
                8,
                per_layer_quantization=not self.qat.per_channel,
                name=observer,
                **self._modes,
            )
        else:
            if self.qat.stop_update_after_iters is None:
                raise OpError(
                    f"job {self.job.name!r}: quantization-aware training needs "
                    f"func_config.qat.moving_min_max_stop_update_after_iters(n) to observe "
                    f"{blob.lbn} (as OneFlow)"
                )
            modes = self._modes
            scale, zero = observe_moving(
                "func_config.qat",
                blob,
                8,
                modes["quantization_scheme"],
                modes["quantization_formula"],
                self.qat.momentum,
                observer,
                stop_update_after_iters=self.qat.stop_update_after_iters,
            )
        quantized = fake_quantization(
            blob, scale, zero, 8, name=_dashed(blob) + "-fake-quant", **self._modes
        )
        memo[blob.lbn] = memo[quantized.lbn] = _Quantized(quantized, scale)
        return quantized

    def bias(self, bias: Blob) -> Blob:
        """A conv layer's bias, quantized with scale input scale * weight scale."""
        if not self.enabled or bias.dtype != _dtypes.float32:
            return bias
        in_scale, weight_scale = self.scales[:2]
        if in_scale is None or weight_scale is None:
            raise OpError(
                f"job {self.job.name!r}: the bias {bias.lbn} of a quantized convolution needs "
                "quantized input and weight (their producer turned quantization-aware "
                "training off)"
            )
        base = _dashed(bias)
        scale = _mul(in_scale, weight_scale, base + "-fake-quant-mul-bias")
        zero = get_variable(
            base + "-fake-quant-zp",
            shape=weight_scale.shape,
            dtype=_dtypes.float32,
            initializer=zeros_initializer(_dtypes.float32),
            trainable=False,
        )
        return fake_quantization(bias, scale, zero, 8, name=base + "-fake-quant", **self._modes)

    def output(self, out: Blob) -> Blob:
        """The op's (or its layer's) output: fake-quantized for ""/tensorrt7."""
        if not self.int8 or not self._after:
            return out
        memo = _jobs.setdefault(self.job, {})
        if not self.enabled or out.dtype != _dtypes.float32:
            memo[out.lbn] = _Quantized(out, None)  # an int8 output: consumers leave it alone
            return out
        return self._quantize(out, memo)
