"""OneFlow's op builders: ``user_op_builder(name).Op(type).Input(...).Output(...).Attr(...)``.

A builder collects OneFlow's op configuration (type, inputs and outputs by argument name,
attributes); ``InferAndTryRun()`` looks the op type up in the table and records the op in the
current job through flowjob's own op functions.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .. import _dtypes
from .._deprecation import warn_once
from ..errors import OpError, OutsideJobError
from ..graph import Blob, in_job
from ..imperative import Tensor, apply
from ..runtime import eager_execution_enabled
from ._registry import OpCall, OpSpec, lookup


class UserOp:
    """One configured op; ``InferAndTryRun()`` records it in the job being traced."""

    def __init__(
        self,
        name: str | None,
        op_type: str,
        inputs: dict[str, list[Blob]],
        outputs: dict[str, int],
        attrs: dict[str, Any],
    ) -> None:
        self.op_name, self.op_type = name, op_type
        self._inputs, self._outputs, self._attrs = inputs, outputs, attrs
        self._results: dict[str, list[Blob]] | None = None

    def _where(self) -> str:
        return f"op {self.op_name!r} ({self.op_type})"

    def InferAndTryRun(self) -> UserOp:  # noqa: N802 - OneFlow's name
        spec = lookup(self.op_type)
        attrs = {**spec.attrs, **self._attrs}
        missing = [k for k, v in attrs.items() if v is None]
        if missing:
            raise OpError(
                f"{self._where()} needs attribute(s) {', '.join(missing)} "
                "(set them with .Attr(name, value))"
            )
        for arg in spec.inputs:
            if not self._inputs.get(arg):
                raise OpError(
                    f"{self._where()} needs input {arg!r}; given: {sorted(self._inputs) or 'none'}"
                )
        call = OpCall(self.op_type, self.op_name, self._inputs, attrs, dict(self._outputs))
        built = spec.build(call)
        results = built if isinstance(built, dict) else {spec.outputs[0]: [built]}
        for arg, count in self._outputs.items():
            got = len(results.get(arg, []))
            if got != count:
                raise OpError(
                    f"{self._where()} was asked for {count} blob(s) of output "
                    f"{arg!r} and produces {got}"
                )
        self._results = results
        return self

    def _built(self) -> dict[str, list[Blob]]:
        if self._results is None:
            raise OpError(f"{self._where()} has not run: call .InferAndTryRun() first")
        return self._results

    def RemoteBlobList(self) -> tuple[Blob, ...]:  # noqa: N802
        """The outputs, in the order of the ``Output`` calls (then by index)."""
        built = self._built()
        return tuple(b for arg in self._outputs for b in built[arg])

    def RemoteBlobDict(self) -> dict[str, list[Blob]]:  # noqa: N802
        built = self._built()
        return {arg: list(built[arg]) for arg in self._outputs}

    def SoleOutputBlob(self) -> Blob:  # noqa: N802
        blobs = self.RemoteBlobList()
        if len(blobs) != 1:
            raise OpError(f"{self._where()} has {len(blobs)} outputs, SoleOutputBlob wants 1")
        return blobs[0]


class UserOpConfBuilder:
    """``flow.user_op_builder(name)``: OneFlow's chain of op configuration calls."""

    def __init__(self, op_name: str | None, op_type: str | None = None) -> None:
        self._name, self._type = op_name, op_type
        self._inputs: dict[str, list[Blob]] = {}
        self._outputs: dict[str, int] = {}
        self._attrs: dict[str, Any] = {}

    def _spec(self, what: str) -> OpSpec:
        if self._type is None:
            raise OpError(f"user_op_builder({self._name!r}): call .Op(op_type) before {what}")
        return lookup(self._type)

    def _check_arg(self, kind: str, arg: str, known: Sequence[str]) -> None:
        if arg not in known:
            raise OpError(
                f"op type {self._type!r} has no {kind} {arg!r}; its {kind}s are: "
                f"{', '.join(known) or 'none'}"
            )

    def Op(self, op_type: str) -> UserOpConfBuilder:  # noqa: N802
        lookup(op_type)  # an unknown type fails here, at the user's line
        self._type = op_type
        return self

    def OpName(self, op_name: str) -> UserOpConfBuilder:  # noqa: N802
        self._name = op_name
        return self

    def Input(self, input_name: str, input_blob_list: Sequence[Blob]) -> UserOpConfBuilder:  # noqa: N802
        spec = self._spec("Input")
        self._check_arg("input", input_name, (*spec.inputs, *spec.optional_inputs))
        if not isinstance(input_blob_list, (list, tuple)):
            raise OpError(
                f"Input({input_name!r}) of op type {self._type!r} takes a list of "
                f"blobs, got {type(input_blob_list).__name__}"
            )
        self._inputs[input_name] = list(input_blob_list)
        return self

    def InputSize(self, input_name: str, input_blob_size: int) -> UserOpConfBuilder:  # noqa: N802
        # OneFlow reserves the slots of a module's input here; the blobs come with Input().
        self._check_arg("input", input_name, self._spec("InputSize").inputs)
        return self

    def Output(self, output_name: str, num: int = 1) -> UserOpConfBuilder:  # noqa: N802
        self._check_arg("output", output_name, self._spec("Output").outputs)
        if not isinstance(num, int) or num < 1:
            raise OpError(
                f"Output({output_name!r}) of op type {self._type!r}: num must be a "
                f"positive int, got {num!r}"
            )
        self._outputs[output_name] = num
        return self

    def Attr(
        self,
        attr_name: str,
        attr_value: Any,
        attr_type_name: str | None = None,  # noqa: N802
    ) -> UserOpConfBuilder:
        if attr_type_name is not None:
            warn_once(
                "user_op_builder.Attr.attr_type_name",
                "the attr_type_name argument of UserOpConfBuilder.Attr is deprecated "
                "(the type comes from the op's registration); remove it",
            )
        self._check_arg("attribute", attr_name, list(self._spec("Attr").attrs))
        self._attrs[attr_name] = attr_value
        return self

    def Build(self) -> UserOp:  # noqa: N802
        spec = self._spec("Build")
        return UserOp(
            self._name,
            spec.op_type,
            {k: list(v) for k, v in self._inputs.items()},
            dict(self._outputs),
            dict(self._attrs),
        )


class _OpModule:
    """``builder.user_op_module``: OneFlow kept the op's kernel here; JAX needs no setup."""

    def InitOpKernel(self) -> None:  # noqa: N802
        return None


class UserOpModuleBuilder(UserOpConfBuilder):
    """``flow.user_op_module_builder(op_type)``: a builder kept and reused across calls."""

    def __init__(self, op_type: str) -> None:
        lookup(op_type)
        super().__init__(op_type, op_type)
        self.user_op_module = _OpModule()

    def Op(self, op_type: str) -> UserOpConfBuilder:  # noqa: N802
        raise OpError(
            f"the user op module builder of {self._type!r} has its op type already; "
            f".Op({op_type!r}) is not allowed"
        )


class BuiltinOp:
    """What ``flow.builtin_op(type)...Build()`` returns: call it with the input blobs."""

    def __init__(
        self,
        name: str | None,
        op_type: str,
        inputs: list[tuple[str, int]],
        outputs: dict[str, int],
        attrs: dict[str, Any],
    ) -> None:
        self._name, self._type = name, op_type
        self._input_slots, self._outputs, self._attrs = inputs, outputs, attrs

    def __call__(self, *blobs: Any, **attrs: Any) -> tuple[Blob, ...] | list[Tensor]:
        """In a job: the output blobs. Outside any job in eager mode: the op runs at once on
        ``flow.Tensor``s or arrays and gives its outputs as a list of ``flow.Tensor``s."""
        if in_job():
            return self._record(blobs, attrs)
        if not eager_execution_enabled():
            raise OutsideJobError(
                f"builtin op {self._type!r} was called outside a job function in lazy mode: "
                "call it inside a @flow.global_function body, or turn eager execution on "
                "(flow.enable_eager_execution(True)) to run it at once on tensors"
            )
        # As every eager op: one compiled program per shape, with autograd (imperative.apply)
        tensors = [
            b if isinstance(b, Tensor) else Tensor(b, dtype=_dtypes.as_dtype(np.asarray(b).dtype))
            for b in blobs
        ]
        frozen = tuple(sorted(attrs.items()))
        out = apply(self._name or self._type, _run_builtin, *tensors, op=self, attrs=frozen)
        return list(out) if isinstance(out, tuple) else [out]

    def _record(self, blobs: tuple[Blob, ...], attrs: dict[str, Any]) -> tuple[Blob, ...]:
        """Records the op on ``blobs`` in the current job; its output blobs."""
        wanted = sum(n for _, n in self._input_slots)
        if len(blobs) != wanted:
            raise OpError(
                f"builtin op {self._type!r} takes {wanted} input blob(s) "
                f"({', '.join(a for a, _ in self._input_slots) or 'none'}), "
                f"got {len(blobs)}"
            )
        inputs: dict[str, list[Blob]] = {}
        rest = list(blobs)
        for arg, n in self._input_slots:
            inputs[arg], rest = rest[:n], rest[n:]
        op = UserOp(self._name, self._type, inputs, dict(self._outputs), {**self._attrs, **attrs})
        return op.InferAndTryRun().RemoteBlobList()


class BuiltinOpBuilder(UserOpConfBuilder):
    """``flow.builtin_op(type)``: inputs are named now and bound when the op is called."""

    def __init__(self, op_type: str, op_name: str | None = None) -> None:
        lookup(op_type)
        super().__init__(op_name, op_type)
        self._slots: list[tuple[str, int]] = []

    def Name(self, op_name: str) -> BuiltinOpBuilder:  # noqa: N802
        self._name = op_name
        return self

    def Input(self, input_name: str, num: int = 1) -> BuiltinOpBuilder:  # type: ignore[override]  # noqa: N802
        spec = self._spec("Input")
        self._check_arg("input", input_name, (*spec.inputs, *spec.optional_inputs))
        self._slots.append((input_name, num))
        return self

    def Build(self) -> BuiltinOp:  # type: ignore[override]  # noqa: N802
        spec = self._spec("Build")
        return BuiltinOp(
            self._name, spec.op_type, list(self._slots), dict(self._outputs), dict(self._attrs)
        )


def _run_builtin(*blobs: Blob, op: BuiltinOp, attrs: tuple) -> tuple[Blob, ...]:
    """An eager call's body (a module-level function: ``apply`` caches programs by it)."""
    return tuple(op._record(blobs, dict(attrs)))
