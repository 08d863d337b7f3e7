"""Cases for the op types issue 46 made buildable: each builds one op through
``flow.user_op_builder`` with OneFlow's names and calls the same op the public way.

A case is ``(op type, number of outputs, fn)``; ``fn(v)`` gets the job's input blobs by name
and returns ``(built outputs, public outputs)``. ``INPUTS`` are the job's placeholders' values.
"""

from __future__ import annotations

import itertools

import numpy as np

import flowjob as flow
from tests.userop.builder_helpers import build

_RNG = np.random.default_rng(46)
_NUMBERS = itertools.count()  # op names are unique in a job

INPUTS = {
    "a": _RNG.uniform(0.1, 0.9, (2, 3)).astype(np.float32),
    "b": _RNG.uniform(0.1, 0.9, (2, 3)).astype(np.float32),
    "ints": np.array([[3, 1, 3], [0, 1, 2]], np.int32),
    "idx2": np.array([2, 0], np.int32),
    "idx22": np.array([[0, 2], [1, 1]], np.int32),
    "nd": np.array([[0, 1], [1, 2]], np.int32),
    "x3": _RNG.standard_normal((1, 2, 6)).astype(np.float32),
    "x4": _RNG.standard_normal((1, 2, 5, 5)).astype(np.float32),
    "x5": _RNG.standard_normal((1, 1, 4, 4, 4)).astype(np.float32),
    "w3": _RNG.standard_normal((3, 2, 3)).astype(np.float32),
    "w5": _RNG.standard_normal((2, 1, 2, 2, 2)).astype(np.float32),
    "g3": _RNG.uniform(0.5, 1.5, (3,)).astype(np.float32),
}


def _one(op_type, inputs, outputs, attrs, public):
    """A case building ``op_type`` from ``inputs`` ([(arg, input name or fn of v)])."""

    def fn(v):
        blobs = [(arg, [v[src] if isinstance(src, str) else src(v)]) for arg, src in inputs]
        got = build(op_type, f"built_{op_type}_{next(_NUMBERS)}", blobs, outputs, attrs)
        want = public(v)
        return list(got), list(want) if isinstance(want, (list, tuple)) else [want]

    return op_type, len(outputs), fn


M, N = flow.math, flow.nn
CASES = []
for _t, _f in {
    "asinh": M.asinh,
    "atanh": M.atanh,
    "erfc": M.erfc,
    "expm1": M.expm1,
    "lgamma": M.lgamma,
    "log1p": M.log1p,
    "log_sigmoid": M.log_sigmoid,
    "reciprocal_no_nan": M.reciprocal_no_nan,
    "rint": M.rint,
    "round": M.round,
    "softplus": M.softplus,
    "sigmoid_v2": M.sigmoid_v2,
}.items():
    CASES.append(_one(_t, [("x", "a")], ["y"], {}, lambda v, f=_f: f(v["a"])))
CASES.append(
    _one("acosh", [("x", lambda v: v["a"] + 1.0)], ["y"], {}, lambda v: M.acosh(v["a"] + 1.0))
)
for _t, _f in {
    "pow": M.pow,
    "atan2": M.atan2,
    "floordiv": M.floordiv,
    "xdivy": M.xdivy,
    "xlogy": M.xlogy,
    "elementwise_maximum": M.maximum,
    "elementwise_minimum": M.minimum,
    "broadcast_equal": M.equal,
    "broadcast_not_equal": M.not_equal,
    "broadcast_greater": M.greater,
    "broadcast_greater_equal": M.greater_equal,
    "broadcast_less": M.less,
    "broadcast_less_equal": M.less_equal,
    "broadcast_floor_mod": M.floor_mod,
}.items():
    CASES.append(_one(_t, [("x", "a"), ("y", "b")], ["z"], {}, lambda v, f=_f: f(v["a"], v["b"])))
CASES.append(_one("multiply", [("x", "a"), ("y", "b")], ["out"], {}, lambda v: v["a"] * v["b"]))
_half_a = lambda v: M.greater(v["a"], 0.5)  # noqa: E731
_half_b = lambda v: M.greater(v["b"], 0.5)  # noqa: E731
CASES.append(
    _one(
        "broadcast_logical_and",
        [("x", _half_a), ("y", _half_b)],
        ["z"],
        {},
        lambda v: M.logical_and(_half_a(v), _half_b(v)),
    )
)
for _t, _f, _src in (
    ("reduce_sum", M.reduce_sum, "a"),
    ("reduce_prod", M.reduce_prod, "a"),
    ("reduce_max", M.reduce_max, "a"),
    ("reduce_min", M.reduce_min, "a"),
    ("reduce_all", M.reduce_all, _half_a),
    ("reduce_any", M.reduce_any, _half_a),
):
    for _axis, _keep in (([1], False), ([0, 1], True)):
        CASES.append(
            _one(
                _t,
                [("input_tensor", _src)],
                ["output_tensor"],
                {"axis": _axis, "keepdims": _keep},
                lambda v, f=_f, s=_src, ax=_axis, k=_keep: f(
                    v[s] if isinstance(s, str) else s(v), ax, k
                ),
            )
        )
_scalar = lambda v: M.reduce_sum(v["b"])  # noqa: E731 - a (1,) blob
for _t, _f in {
    "scalar_add_by_tensor": M.add,
    "scalar_sub_by_tensor": M.subtract,
    "scalar_mul_by_tensor": M.multiply,
    "scalar_div_by_tensor": M.divide,
}.items():
    CASES.append(
        _one(
            _t, [("x", "a"), ("scalar", _scalar)], ["y"], {}, lambda v, f=_f: f(v["a"], _scalar(v))
        )
    )
_bounds = {"floating_min": 0.3, "integral_min": 0, "floating_max": 0.6, "integral_max": 0}
CASES += [
    _one(
        "clip_by_scalar", [("x", "a")], ["y"], _bounds, lambda v: M.clip_by_value(v["a"], 0.3, 0.6)
    ),
    _one(
        "clip_by_scalar_min",
        [("x", "ints")],
        ["y"],
        {"floating_min": 0.0, "integral_min": 2},
        lambda v: M.clip_by_value(v["ints"], min_value=2),
    ),
    _one(
        "clip_by_scalar_max",
        [("x", "a")],
        ["y"],
        {"floating_max": 0.5, "integral_max": 0},
        lambda v: M.clip_by_value(v["a"], max_value=0.5),
    ),
    _one("scalar_pow", [("in", "a")], ["out"], {"exponent": 2.5}, lambda v: M.pow(v["a"], 2.5)),
    _one("square_sum", [("x", "a")], ["y"], {}, lambda v: M.reduce_sum(M.square(v["a"]))),
    _one("argmax", [("in", "a")], ["out"], {}, lambda v: M.argmax(v["a"])),
    _one(
        "arg_sort",
        [("in", "a")],
        ["out"],
        {"direction": "DESCENDING"},
        lambda v: flow.argsort(v["a"], direction="DESCENDING"),
    ),
    _one("sort", [("in", "a")], ["out"], {"direction": "ASCENDING"}, lambda v: flow.sort(v["a"])),
    _one("top_k", [("in", "a")], ["out"], {"k": 2}, lambda v: M.top_k(v["a"], k=2)),
    _one(
        "in_top_k",
        [("targets", "idx2"), ("predictions", "a")],
        ["out"],
        {"k": 2},
        lambda v: M.in_top_k(v["idx2"], v["a"], 2),
    ),
    _one(
        "where",
        [("condition", _half_a), ("x", "a"), ("y", "b")],
        ["out"],
        {},
        lambda v: flow.where(_half_a(v), v["a"], v["b"]),
    ),
    _one("zero_like", [("like", "a")], ["out"], {}, lambda v: flow.zeros_like(v["a"])),
    _one("amp_white_identity", [("in", "a")], ["out"], {}, lambda v: v["a"]),
    _one("tuple_identity", [("in", "a")], ["out"], {}, lambda v: v["a"]),
    _one(
        "cast_like",
        [("in", "a"), ("dtype_like", "ints")],
        ["out"],
        {},
        lambda v: flow.cast(v["a"], flow.int32),
    ),
    _one("diag", [("in", "a")], ["out"], {"diagonal": 1}, lambda v: flow.diag(v["a"], 1)),
    _one(
        "tril",
        [("in", "a")],
        ["out"],
        {"diagonal": 0, "floating_fill_value": -1.0, "is_floating_fill_value": True},
        lambda v: M.tril(v["a"], 0, -1.0),
    ),
    _one(
        "range",
        [],
        ["out"],
        {"start": 1, "delta": 3, "limit": 11, "dtype": flow.int64},
        lambda v: flow.range(1, 11, 3, dtype=flow.int64),
    ),
    _one(
        "one_hot",
        [("indices", "idx2")],
        ["out"],
        {"depth": 4, "floating_on_value": 2.0, "floating_off_value": -1.0, "dtype": flow.float32},
        lambda v: flow.one_hot(v["idx2"], 4, 2.0, -1.0, dtype=flow.float32),
    ),
    _one(
        "broadcast_like",
        [("x", lambda v: M.reduce_sum(v["b"], axis=0)), ("like", "a")],
        ["y"],
        {"broadcast_axes": [0]},
        lambda v: flow.broadcast_like(M.reduce_sum(v["b"], axis=0), v["a"], [0]),
    ),
    _one(
        "reshape_like",
        [("in", "a"), ("like", lambda v: flow.transpose(v["b"], [1, 0]))],
        ["out"],
        {},
        lambda v: flow.reshape(v["a"], (3, 2)),
    ),
    _one(
        "l2_normalize",
        [("x", "a")],
        ["y", "square_x_sum"],
        {"axis": 1, "epsilon": 1e-12},
        lambda v: (
            M.l2_normalize(v["a"], axis=1),
            M.reduce_sum(M.square(v["a"]), axis=1, keepdims=True),
        ),
    ),
    _one(
        "unique_with_counts",
        [("x", lambda v: flow.reshape(v["ints"], (6,)))],
        ["y", "idx", "count", "num_unique"],
        {},
        lambda v: flow.experimental.unique_with_counts(flow.reshape(v["ints"], (6,))),
    ),
]
