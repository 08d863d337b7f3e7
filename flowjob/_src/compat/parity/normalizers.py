"""The argument-normalizing helpers of OneFlow v0.4.0's ops, which ops call them, and flowjob's
counterpart of each.

Read from ``oneflow/python/ops/*.py`` with ``ast``: a helper is a module-level function of
that folder, not exported itself, that records no op and that an exported function calls
with one of its own parameters as an argument (``_GetSequence(strides, 2, "strides")``,
``calc_pool_padding(padding, ...)``). ``COUNTERPARTS`` names, for each helper, the flowjob
function that accepts the same forms (tested in ``tests/parity_tables/test_normalizers.py``)
or why none is needed, in one line.
"""

from __future__ import annotations

import ast
import dataclasses
import os
import warnings

from ..api_coverage import DEFAULT_TAG
from ._source import read_folder

FOLDER = "oneflow/python/ops"

COUNTERPARTS = {
    "_GetSequence": "ops._util.int_list: None is [1]; an int, NumPy int, 1-list or n-list/tuple",
    "calc_pool_padding": "ops._conv.resolve_padding: SAME (= SAME_LOWER), SAME_UPPER, VALID in any "
    "case, or one (before, after) pair or int per input axis",
    "_softmax_need_transpose": "none needed: jax.nn.softmax takes any axis",
    "check_slice_tup_list": "ops._slicing: (start, stop, step) triples with None for the ends",
    "_check_axis": "ops._util.norm_axes: None (every axis), an int or a list; negative counts "
    "from the end",
    "_gen_unique_name_if_need": "ops._util.check_name + graph naming: name=None is a unique name",
    "infer_shape": "ops._shape.reshape: one -1 dimension is inferred",
    "GetSliceAttrs": "ops._slicing (logical_slice): (start, stop, step) triples, None ends",
    "get_perm_when_transpose_axis_to_last_dim": "none needed: the sort ops take any axis",
    "CalcGain": "ops.initializers: kaiming_initializer's nonlinearity gains",
    "_CalcFan": "ops.initializers: fans by mode (fan_in, fan_out, fan_avg) and data format",
    "_get_data_format": "ops.initializers: data_format channels_first/last spellings",
    "_get_random_distribution": "ops.initializers: distribution names (random_normal, "
    "random_uniform, truncated_normal)",
    "_get_variance_norm": "ops.initializers: mode names (fan_in, fan_out, fan_avg)",
}
# A helper that records ops (a builder chain, a flow.* call) is an op, not a normalizer.
_OP_CALLS = {"user_op_builder", "consistent_user_op_builder", "Build", "InferAndTryRun"}


@dataclasses.dataclass
class Helper:
    name: str
    module: str  # file under oneflow/python/ops
    callers: dict[str, list[str]]  # export path -> the parameters it passes to the helper

    @property
    def counterpart(self) -> str | None:
        return COUNTERPARTS.get(self.name)


def _export_paths(node: ast.FunctionDef) -> list[str]:
    paths = []
    for dec in node.decorator_list:
        func = dec.func if isinstance(dec, ast.Call) else None
        name = getattr(func, "id", getattr(func, "attr", None))
        if name == "oneflow_export":
            paths += [a.value for a in dec.args if isinstance(a, ast.Constant)]
    return paths


def _records_ops(fn: ast.FunctionDef) -> bool:
    for node in ast.walk(fn):
        if isinstance(node, ast.Attribute) and node.attr in _OP_CALLS:
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            root = node.func
            while isinstance(root, ast.Attribute):
                root = root.value
            if (
                isinstance(root, ast.Name)
                and root.id in ("flow", "oneflow")
                and (
                    not ast.unparse(node.func).startswith(
                        ("oneflow._oneflow_internal", "oneflow.python")
                    )
                )
            ):
                return True
    return False


def table(clone: str | os.PathLike[str] | None = None, tag: str = DEFAULT_TAG) -> list[Helper]:
    """The helpers, sorted by name, each with its exported callers."""
    trees = {}
    for path, text in read_folder(FOLDER, clone, tag).items():
        if path.endswith(".py"):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                trees[path.rsplit("/", 1)[-1]] = ast.parse(text)
    functions = {
        node.name: (module, node)
        for module, tree in trees.items()
        for node in tree.body
        if isinstance(node, ast.FunctionDef) and not _export_paths(node)
    }
    recording = {name for name, (_, fn) in functions.items() if _records_ops(fn)}
    while True:  # a helper calling one that records ops records ops too
        more = {
            name
            for name, (_, fn) in functions.items()
            if name not in recording
            and any(
                isinstance(n, ast.Call) and getattr(n.func, "id", None) in recording
                for n in ast.walk(fn)
            )
        }
        if not more:
            break
        recording |= more
    local = {name: module for name, (module, _) in functions.items() if name not in recording}
    helpers: dict[str, Helper] = {}
    for tree in trees.values():
        for node in tree.body:
            if not isinstance(node, ast.FunctionDef) or not (paths := _export_paths(node)):
                continue
            params = {a.arg for a in node.args.args + node.args.kwonlyargs}
            for call in ast.walk(node):
                if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)):
                    continue
                if call.func.id not in local:
                    continue
                passed = sorted(
                    {
                        n.id
                        for arg in [*call.args, *(k.value for k in call.keywords)]
                        for n in ast.walk(arg)
                        if isinstance(n, ast.Name) and n.id in params
                    }
                )
                if not passed:
                    continue
                helper = helpers.setdefault(
                    call.func.id, Helper(call.func.id, local[call.func.id], {})
                )
                for path in paths:
                    got = helper.callers.setdefault(path, [])
                    got += [p for p in passed if p not in got]
    return [helpers[n] for n in sorted(helpers)]


def literal_forms(helpers: list[Helper], checked: dict[str, frozenset[str] | None]) -> dict:
    """Export path -> {parameter: helper} for the parameters ``checked`` says each helper reads
    as values (``ops.argument_forms.CHECKS``; None: every parameter passed): what
    ``_literal_forms.LITERAL_FORMS`` stores, so that ``flowjob check`` needs no clone."""
    forms: dict[str, dict[str, str]] = {}
    for helper in helpers:
        if helper.name not in checked:
            continue
        reads = checked[helper.name]
        for path, params in helper.callers.items():
            for param in params:
                if reads is None or param in reads:
                    forms.setdefault(path, {})[param] = helper.name
    return {path: dict(sorted(forms[path].items())) for path in sorted(forms)}
