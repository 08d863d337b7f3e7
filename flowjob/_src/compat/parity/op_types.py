"""The op-type table: every ``REGISTER_USER_OP`` of OneFlow v0.4.0 against flowjob's builders.

A row is one op type read from ``oneflow/user/ops`` (``_cpp_registry``). It is
``buildable`` when ``flow.user_op_builder(name).Op(type)`` knows the type (``userop``'s
table); then flowjob's argument and attribute names must be OneFlow's (``mismatches``).
Otherwise the row names why flowjob has no such op, from the reasons below; a type that fits
none is ``unclassified`` and fails the table's test.
"""

from __future__ import annotations

import dataclasses
import os
import re

from ..api_coverage import DEFAULT_TAG
from ._cpp_registry import OpType, read_op_types
from ._source import read_folder

FOLDER = "oneflow/user/ops"

REASONS = {
    "backward": "a backward op: flowjob differentiates the forward op with jax.vjp",
    "test": "a test op of OneFlow's own C++ framework tests, not used from Python",
    "distribution": (
        "placement, boxing, NCCL or pipelining internals: XLA partitions and moves the data"
    ),
    "data": (
        "a host data-pipeline op (readers, decoders, image and tensor-buffer ops): flowjob "
        "runs them on the host through flow.data, not as ops of the job"
    ),
    "summary": "a summary-writer op: flowjob writes summaries on the host (flow.summary)",
    "optimizer": (
        "an optimizer's update kernel: flowjob's optimizers are Optax chains the train step runs"
    ),
    "gpu": "a GPU-only kernel (cuDNN fused ops, NVTX ranges) with no CPU counterpart",
    "not_yet": "flowjob has the op as a public function; its builder entry is not written yet",
}

_DISTRIBUTION = re.compile(
    r"_nccl_.*|eager_nccl_all_reduce|(hierarchical_)?parallel_cast(_like)?|.*_(device|global)"
    r"_stage|distributed_partial_fc_sample_disable_boxing|cast_to_tick|identity_buffer|pack"
    r"|unpack|acc|ssp_variable_proxy|copy|repeat|cast_to_static_shape"
)
_DATA = re.compile(
    r"COCOReader|OFRecordReader|OneRecReader|ofrecord_.*|onerec_decoder|image_.*|object_.*"
    r"|.*tensor_buffer.*|coin_flip|crop_mirror_normalize_.*|megatron_gpt_mmap_data_loader"
)
_SUMMARY = re.compile(r"create_summary_writer|flush_summary_writer|summary_write_.*")
_OPTIMIZER = re.compile(
    r".*_update|adam_bias_correction_learning_rate|l1_l2_regularize_gradient"
    r"|indexed_slices_reduce_sum|(multi_)?count_not_finite"
)
_GPU = re.compile(r"cudnn_.*|nvtx_start|nvtx_end")
_BACKWARD = re.compile(r".*_grad(_[a-z])?|.*_backward")
_TEST = re.compile(r"Test.*|test_.*|.*_test|ccrelu")


@dataclasses.dataclass
class Row:
    op: OpType
    buildable: bool
    reason: str | None  # a key of REASONS, for a type flowjob does not build
    mismatches: list[str]  # for a buildable type: names that differ from OneFlow's

    @property
    def status(self) -> str:
        if self.buildable:
            return "mismatch" if self.mismatches else "buildable"
        return self.reason or "unclassified"


def classify(name: str) -> str | None:
    """The reason flowjob builds no op of type ``name``, or None when it should."""
    for key, pattern in (
        ("test", _TEST),
        ("backward", _BACKWARD),
        ("distribution", _DISTRIBUTION),
        ("data", _DATA),
        ("summary", _SUMMARY),
        ("optimizer", _OPTIMIZER),
        ("gpu", _GPU),
    ):
        if pattern.fullmatch(name):
            return key
    from ._not_yet import NOT_YET

    return "not_yet" if name in NOT_YET else None


def mismatches(op: OpType) -> list[str]:
    """Where flowjob's registered spec of ``op.name`` differs from OneFlow's names."""
    from ...userop import lookup

    spec = lookup(op.name)
    out = []
    required = [a.name for a in op.inputs if not a.optional]
    optional = [a.name for a in op.inputs if a.optional]
    if list(spec.inputs) != required:
        out.append(f"inputs {list(spec.inputs)} (OneFlow: {required})")
    if not set(spec.optional_inputs) <= set(optional):
        out.append(f"optional inputs {list(spec.optional_inputs)} (OneFlow: {optional})")
    outputs = [a.name for a in op.outputs]
    if not set(spec.outputs) <= set(outputs):
        out.append(f"outputs {list(spec.outputs)} (OneFlow: {outputs})")
    attrs = sorted(a.name for a in op.attrs)
    if sorted(spec.attrs) != attrs:
        out.append(f"attributes {sorted(spec.attrs)} (OneFlow: {attrs})")
    return out


def table(clone: str | os.PathLike[str] | None = None, tag: str = DEFAULT_TAG) -> list[Row]:
    """One row per registered op type of the clone, sorted by type."""
    from ...userop import known_op_types

    known = set(known_op_types())
    rows = []
    for name, op in sorted(read_op_types(read_folder(FOLDER, clone, tag)).items()):
        if name in known:
            rows.append(Row(op, True, None, mismatches(op)))
        else:
            rows.append(Row(op, False, classify(name), []))
    return rows


def counts(rows: list[Row]) -> dict[str, int]:
    """How many rows have each status, in the order of ``REASONS`` after ``buildable``."""
    out = dict.fromkeys(["buildable", "mismatch", *REASONS, "unclassified"], 0)
    for row in rows:
        out[row.status] += 1
    return out
