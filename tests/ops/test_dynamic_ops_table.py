"""Dynamic blobs through the ops OneFlow's kernels ran on them (issue 46), against NumPy on
the real data.

Each op of ``TABLE`` runs on a dynamic blob made inside the job (``flow.gather_nd`` of
``flow.argwhere``: its padding rows repeat row 0, which is never selected and holds +-50, so
padding that leaks into a real result shows) and on a ``tp.ListNumpy`` argument (held padded:
the job must take it as a padded dynamic blob, not fall back to real-shape variants). The
returned real part is compared with the NumPy reference on the real rows. A few
differentiable ops are checked against ``jax.grad`` of the same reference.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import flowjob as flow
import flowjob.typing as tp

R, C = 6, 4
# (selected rows, value of the unselected row 0 that the padding repeats)
CALLS = [([1, 2, 4], 50.0), ([3], -50.0), ([1, 2, 3, 4, 5], 50.0)]
W = np.random.default_rng(7).normal(size=(C, 3)).astype(np.float32)
LABELS = np.array([0, 3, 1, 2, 3, 1], np.int32)


@dataclass(frozen=True)
class Case:
    op: Callable[[Any], Any]  # on the dynamic blob
    ref: Callable[[np.ndarray], np.ndarray]  # on the real rows
    tol: float = 1e-5
    rows: bool = False  # the reference also gets the selected row numbers


def _reduce(flow_fn, np_fn, axis, keepdims):
    def op(d):
        return flow_fn(d, axis=axis, keepdims=keepdims)

    def ref(a):
        return np.atleast_1d(
            np_fn(a, axis=axis if axis is None else tuple(axis), keepdims=keepdims)
        )

    return Case(op, ref)


def _logsumexp(a, axis, keepdims):
    return np.asarray(jax.scipy.special.logsumexp(a, axis=axis, keepdims=keepdims))


REDUCTIONS = {
    "sum": (flow.math.reduce_sum, np.sum),
    "mean": (flow.math.reduce_mean, np.mean),
    "max": (flow.math.reduce_max, np.max),
    "min": (flow.math.reduce_min, np.min),
    "prod": (flow.math.reduce_prod, np.prod),
    "logsumexp": (flow.math.reduce_logsumexp, _logsumexp),
    "variance": (flow.math.reduce_variance, np.var),
    "std": (flow.math.reduce_std, np.std),
    "euclidean_norm": (
        flow.math.reduce_euclidean_norm,
        lambda a, axis, keepdims: np.sqrt(np.sum(a * a, axis=axis, keepdims=keepdims)),
    ),
}

TABLE: dict[str, Case] = {}
for _name, (_flow, _np) in REDUCTIONS.items():
    for _axis in (None, [0], [1], [0, 1]):
        for _keep in (False, True):
            TABLE[f"reduce_{_name}-axis{_axis}-keep{int(_keep)}"] = _reduce(
                _flow, _np, _axis, _keep
            )
for _name, _np in (("any", np.any), ("all", np.all)):
    _flow = getattr(flow.math, f"reduce_{_name}")
    for _axis in (None, [0], [1]):

        def _op(d, f=_flow, axis=_axis):
            return f(flow.math.greater(d, 0.0), axis=axis)

        def _ref(a, f=_np, axis=_axis):
            return np.atleast_1d(f(a > 0, axis=None if axis is None else tuple(axis)))

        TABLE[f"reduce_{_name}-axis{_axis}"] = Case(_op, lambda a, r=_ref: r(a).astype(np.int8))


def _pairwise(d):
    """The triplet-loss distance: (k, 1) - (1, k) -> (k, k), both operands dynamic."""
    s = flow.math.reduce_sum(d, axis=1, keepdims=True)
    return flow.math.square(s - flow.transpose(s, perm=(1, 0)))


def _pairwise_ref(a):
    s = a.sum(axis=1, keepdims=True)
    return np.square(s - s.T)


def _sm(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _sparse_ce(d, labels):
    return flow.nn.sparse_softmax_cross_entropy_with_logits(labels, d)


TABLE.update(
    {
        "add-static-row": Case(lambda d: d + flow.constant(1.5, shape=(C,)), lambda a: a + 1.5),
        "mul-both-dynamic": Case(lambda d: d * d, lambda a: a * a),
        "sub-scalar": Case(lambda d: 3.0 - d, lambda a: 3.0 - a),
        "div-dynamic-by-its-column-means": Case(
            lambda d: d / flow.math.reduce_mean(d, axis=0, keepdims=True),
            lambda a: a / a.mean(axis=0, keepdims=True),
        ),
        "pairwise-broadcast": Case(_pairwise, _pairwise_ref, tol=1e-4),
        "maximum-broadcast": Case(
            lambda d: flow.math.maximum(d, flow.math.reduce_mean(d, axis=1, keepdims=True)),
            lambda a: np.maximum(a, a.mean(axis=1, keepdims=True)),
        ),
        "greater": Case(lambda d: flow.math.greater(d, 0.0), lambda a: (a > 0).astype(np.int8)),
        "where-broadcast": Case(
            lambda d: flow.where(flow.math.greater(d, 0.0), d, flow.constant(-1.0, shape=(1, C))),
            lambda a: np.where(a > 0, a, -1.0),
        ),
        "matmul-rows": Case(lambda d: flow.matmul(d, W), lambda a: a @ W),
        "matmul-contract-dynamic": Case(
            lambda d: flow.matmul(d, d, transpose_a=True), lambda a: a.T @ a, tol=1e-4
        ),
        "matmul-gram": Case(lambda d: flow.matmul(d, d, transpose_b=True), lambda a: a @ a.T),
        "bias_add": Case(
            lambda d: flow.nn.bias_add(d, flow.constant(2.0, shape=(C,))), lambda a: a + 2.0
        ),
        "softmax-static-axis": Case(lambda d: flow.nn.softmax(d), lambda a: _sm(a, 1)),
        "softmax-dynamic-axis": Case(lambda d: flow.nn.softmax(d, axis=0), lambda a: _sm(a, 0)),
        "log_softmax-dynamic-axis": Case(
            lambda d: flow.nn.log_softmax(d, axis=0), lambda a: np.log(_sm(a, 0)), tol=1e-4
        ),
        "sigmoid_ce": Case(
            lambda d: flow.nn.sigmoid_cross_entropy_with_logits(flow.math.sigmoid(d * 0.5), d),
            lambda a: np.logaddexp(0, a) - a / (1 + np.exp(-a * 0.5)),
            tol=1e-4,
        ),
        "softmax_ce": Case(
            lambda d: flow.nn.softmax_cross_entropy_with_logits(flow.nn.softmax(d * 0.5), d),
            lambda a: -np.sum(_sm(a * 0.5, 1) * np.log(_sm(a, 1)), axis=1),
            tol=1e-4,
        ),
        "sort-dynamic-axis": Case(lambda d: flow.sort(d, axis=0), lambda a: np.sort(a, axis=0)),
        "sort-descending": Case(
            lambda d: flow.sort(d, direction="DESCENDING"), lambda a: -np.sort(-a, axis=1)
        ),
        "argsort-dynamic-axis": Case(
            lambda d: flow.argsort(d, axis=0), lambda a: np.argsort(a, axis=0, kind="stable")
        ),
        "top_k": Case(
            lambda d: flow.math.top_k(d, k=2),
            lambda a: np.argsort(-a, axis=1, kind="stable")[:, :2],
        ),
        "argmax": Case(lambda d: flow.math.argmax(d), lambda a: np.argmax(a, axis=1)),
        "concat-dynamic-axis": Case(
            lambda d: flow.concat([d, d * 2.0], axis=0),
            lambda a: np.concatenate([a, a * 2], axis=0),
        ),
        "concat-static-axis": Case(
            lambda d: flow.concat([d, d * 2.0], axis=1),
            lambda a: np.concatenate([a, a * 2], axis=1),
        ),
        "cast": Case(
            lambda d: flow.cast(d * 10.0, flow.int32), lambda a: (a * 10).astype(np.int32)
        ),
        "clip_by_value": Case(
            lambda d: flow.clip_by_value(d, -0.5, 0.5), lambda a: np.clip(a, -0.5, 0.5)
        ),
        "square": Case(flow.math.square, np.square),
        "sqrt-abs": Case(lambda d: flow.math.sqrt(flow.math.abs(d)), lambda a: np.sqrt(abs(a))),
        "exp": Case(flow.math.exp, np.exp, tol=1e-4),
        "sigmoid": Case(flow.math.sigmoid, lambda a: 1 / (1 + np.exp(-a))),
        "relu": Case(flow.math.relu, lambda a: np.maximum(a, 0)),
        "tanh": Case(flow.math.tanh, np.tanh),
        "expand_dims-squeeze": Case(
            lambda d: flow.squeeze(flow.expand_dims(d, 1), axis=[1]) * 2.0, lambda a: a * 2
        ),
        "expand_dims": Case(lambda d: flow.expand_dims(d, 0), lambda a: a[None]),
        "one_hot": Case(
            lambda d: flow.one_hot(flow.cast(flow.math.greater(d, 0.0), flow.int32), depth=2),
            lambda a: np.eye(2, dtype=np.float32)[(a > 0).astype(int)],
        ),
        "gather-static-axis": Case(
            lambda d: flow.gather(d, _index_pair(), axis=1),
            lambda a: a[:, [2, 0]],
        ),
    }
)


def _index_pair():
    return flow.constant(2, flow.int32, shape=(2,)) * np.array([1, 0], np.int32)


def _table():
    return flow.constant(1.0, shape=(4, 3)) * np.arange(12.0, dtype=np.float32).reshape(4, 3)


# Ops whose second operand depends on the rows selected (labels of the selected rows).
ROW_TABLE: dict[str, Case] = {
    "sparse_softmax_ce": Case(
        lambda d, labels: flow.nn.sparse_softmax_cross_entropy_with_logits(labels, d),
        lambda a, rows: -np.log(_sm(a, 1))[np.arange(len(rows)), LABELS[rows]],
        tol=1e-4,
    ),
    "gather-dynamic-indices": Case(
        lambda d, labels: flow.gather(_table(), labels),
        lambda a, rows: np.arange(12.0).reshape(4, 3)[LABELS[rows]],
    ),
}


def _data(rows, pad):
    x = np.random.default_rng(len(rows)).normal(size=(R, C)).astype(np.float32)
    x[0] = pad  # what the padding rows of gather_nd(x, argwhere(mask)) repeat
    mask = np.zeros((R,), np.int8)
    mask[rows] = 1
    return x, mask


def _argwhere_job(op, labelled):
    @flow.global_function()
    def job(
        x: tp.Numpy.Placeholder((R, C)),
        mask: tp.Numpy.Placeholder((R,), dtype=flow.int8),
        labels: tp.Numpy.Placeholder((R,), dtype=flow.int32),
    ) -> tp.ListNumpy:
        where = flow.where(mask)
        d = flow.gather_nd(x, where)
        return op(d, flow.gather_nd(labels, where)) if labelled else op(d)

    return job


@pytest.mark.parametrize("name", sorted(TABLE) + sorted(ROW_TABLE))
def test_op_on_a_blob_made_dynamic_by_argwhere(name):
    labelled = name in ROW_TABLE
    case = ROW_TABLE[name] if labelled else TABLE[name]
    job = _argwhere_job(case.op, labelled)
    for rows, pad in CALLS:  # one program, another real size and padding each call
        x, mask = _data(rows, pad)
        (out,) = job(x, mask, LABELS)
        want = case.ref(x[rows], np.array(rows)) if labelled else case.ref(x[rows])
        assert out.shape == np.shape(want), (rows, out.shape, np.shape(want))
        np.testing.assert_allclose(out, want, rtol=case.tol, atol=case.tol, err_msg=str(rows))


# Ops that need both axes real (a ListNumpy argument may be smaller in each).
_STATIC_COLUMNS = {
    "add-static-row",
    "bias_add",
    "matmul-rows",
    "gather-static-axis",
    "where-broadcast",
}


@pytest.mark.parametrize("name", sorted(TABLE))
def test_op_on_a_list_numpy_argument(name):
    case = TABLE[name]

    @flow.global_function()
    def job(x: tp.ListNumpy.Placeholder((R, C))) -> tp.ListNumpy:
        return case.op(x)

    rng = np.random.default_rng(3)
    columns = C if name in _STATIC_COLUMNS else 3
    for shape in [(2, columns), (R, C), (1, columns)]:
        a = rng.normal(size=shape).astype(np.float32)
        (out,) = job([a])
        want = case.ref(a)
        assert out.shape == np.shape(want), (shape, out.shape, np.shape(want))
        np.testing.assert_allclose(out, want, rtol=case.tol, atol=case.tol, err_msg=str(shape))
    assert not job._variants  # one padded program, not a variant traced per real shape


def test_a_real_size_1_axis_broadcasts_its_real_element_not_the_padding():
    @flow.global_function()
    def job(
        x: tp.Numpy.Placeholder((R, C)),
        one: tp.Numpy.Placeholder((R,), dtype=flow.int8),
        many: tp.Numpy.Placeholder((R,), dtype=flow.int8),
    ) -> tp.ListNumpy:
        a = flow.gather_nd(x, flow.where(one))  # (R, C), real (1, C)
        b = flow.math.reduce_sum(flow.gather_nd(x, flow.where(many)), axis=1, keepdims=True)
        return a + b  # (R, C) padded; real (1, C) + (k, 1) -> (k, C)

    x, many = _data([1, 2, 4], 50.0)
    one = np.zeros((R,), np.int8)
    one[3] = 1
    (out,) = job(x, one, many)
    want = x[[3]] + x[[1, 2, 4]].sum(axis=1, keepdims=True)
    np.testing.assert_allclose(out, want, rtol=1e-5)


def test_dynamic_operands_of_one_padded_shape_must_share_their_real_shape():
    @flow.global_function()
    def job(
        x: tp.Numpy.Placeholder((R, C)),
        m1: tp.Numpy.Placeholder((R,), dtype=flow.int8),
        m2: tp.Numpy.Placeholder((R,), dtype=flow.int8),
    ) -> tp.ListNumpy:
        return flow.gather_nd(x, flow.where(m1)) * flow.gather_nd(x, flow.where(m2))

    x, m1 = _data([1, 2], 1.0)
    _, m2 = _data([1, 2, 3], 1.0)
    (out,) = job(x, m1, m1)
    np.testing.assert_allclose(out, x[[1, 2]] ** 2, rtol=1e-6)
    with pytest.raises(Exception, match=r"ElementWiseMul_0.*different real shapes"):
        job(x, m1, m2)


# op on the dynamic rows -> jnp reference on the real rows, for the gradient checks
GRADS = {
    "reduce_max": (lambda d: flow.math.reduce_max(d), jnp.max),
    "reduce_min-axis0": (lambda d: flow.math.reduce_min(d, axis=0), lambda a: jnp.min(a, 0)),
    "reduce_mean-axis0": (lambda d: flow.math.reduce_mean(d, axis=0), lambda a: jnp.mean(a, 0)),
    "reduce_variance-axis0": (
        lambda d: flow.math.reduce_variance(d, axis=0),
        lambda a: jnp.var(a, 0),
    ),
    "reduce_logsumexp-axis0": (
        lambda d: flow.math.reduce_logsumexp(d, axis=0),
        lambda a: jax.scipy.special.logsumexp(a, 0),
    ),
    "softmax-dynamic-axis": (
        lambda d: flow.nn.softmax(d, axis=0),
        lambda a: jax.nn.softmax(a, axis=0),
    ),
    "matmul-contract-dynamic": (lambda d: flow.matmul(d, d, transpose_a=True), lambda a: a.T @ a),
    "sort-dynamic-axis": (lambda d: flow.sort(d, axis=0), lambda a: jnp.sort(a, axis=0)),
    "pairwise-broadcast": (
        _pairwise,
        lambda a: jnp.square(a.sum(1, keepdims=True) - a.sum(1, keepdims=True).T),
    ),
}


@pytest.mark.parametrize("name", sorted(GRADS))
def test_gradients_reach_only_the_real_rows(name):
    op, ref = GRADS[name]
    seen = []

    @flow.global_function(type="train")
    def job(
        x: tp.Numpy.Placeholder((R, C)), mask: tp.Numpy.Placeholder((R,), dtype=flow.int8)
    ) -> tp.ListNumpy:
        w = flow.get_variable("w", (R, C), initializer=flow.zeros_initializer())
        xv = x + w
        flow.watch_diff(xv, seen.append)
        y = op(flow.gather_nd(xv, flow.where(mask)))
        loss = flow.math.reduce_sum(flow.math.square(y))
        flow.optimizer.SGD(
            flow.optimizer.PiecewiseConstantScheduler([], [0.0]), momentum=0
        ).minimize(loss)
        return loss

    for rows, pad in CALLS[:2]:
        x, mask = _data(rows, pad)
        (loss,) = job(x, mask)

        def reference(full, rows=rows):
            return jnp.sum(jnp.square(ref(full[np.array(rows)])))

        want, grad = jax.value_and_grad(reference)(jnp.asarray(x))
        np.testing.assert_allclose(loss, [want], rtol=1e-4)
        np.testing.assert_allclose(seen[-1], grad, rtol=1e-4, atol=1e-4, err_msg=str(rows))


def test_issue_46_triplet_loss_hardest_positive_and_negative_through_where():
    """The issue's program: ``reduce_max(gather_nd(dist, where(mask)))`` in a train job."""
    n, dim, margin = 6, 3, 0.2
    seen = []

    @flow.global_function(type="train")
    def job(
        emb: tp.Numpy.Placeholder((n, dim)), labels: tp.Numpy.Placeholder((n,), dtype=flow.int32)
    ) -> tp.ListNumpy:
        w = flow.get_variable("w", (n, dim), initializer=flow.zeros_initializer())
        e = emb + w
        flow.watch_diff(e, seen.append)
        sq = flow.math.reduce_sum(flow.math.square(e), axis=1, keepdims=True)
        dist = sq - 2.0 * flow.matmul(e, e, transpose_b=True) + flow.transpose(sq, perm=(1, 0))
        same = flow.math.equal(
            flow.reshape(labels, (n, 1)), flow.reshape(labels, (1, n))
        )  # int8 (n, n)
        pos = flow.math.reduce_max(flow.gather_nd(dist, flow.where(same)))
        neg = flow.math.reduce_min(flow.gather_nd(dist, flow.where(1 - same)))
        loss = flow.math.relu(pos - neg + margin)
        flow.optimizer.SGD(
            flow.optimizer.PiecewiseConstantScheduler([], [0.0]), momentum=0
        ).minimize(loss)
        return loss

    def reference(e, labels):
        sq = jnp.sum(e * e, axis=1, keepdims=True)
        dist = sq - 2 * e @ e.T + sq.T
        same = labels[:, None] == labels[None, :]
        pos = jnp.max(jnp.where(same, dist, -jnp.inf))
        neg = jnp.min(jnp.where(same, jnp.inf, dist))
        return jax.nn.relu(pos - neg + margin)

    rng = np.random.default_rng(46)
    for labels in ([0, 0, 1, 1, 2, 2], [0, 1, 1, 1, 1, 0]):
        emb = rng.normal(size=(n, dim)).astype(np.float32)
        labels = np.array(labels, np.int32)
        (loss,) = job(emb, labels)
        want, grad = jax.value_and_grad(reference)(jnp.asarray(emb), labels)
        assert float(want) > 0  # the margin is violated: the gradient is not zero
        np.testing.assert_allclose(loss, [want], rtol=1e-4)
        np.testing.assert_allclose(seen[-1], grad, rtol=1e-4, atol=1e-4)


def test_an_op_without_a_rule_names_what_made_its_input_dynamic_and_the_fix_that_fits():
    @flow.global_function()
    def made(
        x: tp.Numpy.Placeholder((R, C)), mask: tp.Numpy.Placeholder((R,), dtype=flow.int8)
    ) -> tp.ListNumpy:
        rows = flow.gather_nd(x, flow.where(mask))  # the line the error points to
        return flow.reshape(rows * 2.0, (-1,))

    @flow.global_function()
    def argument(x: tp.ListNumpy.Placeholder((R, C))) -> tp.ListNumpy:
        return flow.reshape(x, (-1,))

    x, mask = _data([1, 2], 1.0)
    with pytest.raises(flow.OpError) as made_error:
        made(x, mask)
    text = str(made_error.value)
    assert "op 'Reshape_0' (reshape)" in text and "its input ScalarMul_0/out is dynamic" in text
    assert "made dynamic by op 'ArgWhere_0' (argwhere)" in text
    assert "the line the error points to" in text  # the user's line that called flow.where
    assert "flow.cast_to_static_shape" in text and "flow.dynamic_reshape" in text
    assert "tp.Numpy.Placeholder" not in text  # no advice about arguments for such a blob
    with pytest.raises(flow.OpError) as argument_error:
        argument([x[:2]])
    text = str(argument_error.value)
    assert "the job's argument 'x' is a tp.ListNumpy.Placeholder" in text
    assert "declare it tp.Numpy.Placeholder" in text and "cast_to_static_shape" not in text


def test_dropout_of_dynamic_rows_keeps_their_real_shape():
    @flow.global_function(type="train")
    def job(
        x: tp.Numpy.Placeholder((R, C)), mask: tp.Numpy.Placeholder((R,), dtype=flow.int8)
    ) -> tp.ListNumpy:
        w = flow.get_variable("w", (R, C), initializer=flow.zeros_initializer())
        out = flow.nn.dropout(flow.gather_nd(x + w, flow.where(mask)), rate=0.5)
        flow.optimizer.SGD(
            flow.optimizer.PiecewiseConstantScheduler([], [0.0]), momentum=0
        ).minimize(flow.math.reduce_sum(out))
        return out

    x, mask = _data([1, 2, 4], 50.0)
    (out,) = job(x, mask)
    kept = out != 0
    assert out.shape == (3, C) and 0 < kept.sum() < out.size
    np.testing.assert_allclose(out[kept], (x[[1, 2, 4]] * 2)[kept], rtol=1e-6)
