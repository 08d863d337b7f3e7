"""Job inputs under random shapes, dtypes, layouts, special values and wrong containers.

Every call either returns what NumPy computes for the same (cast) input, or raises
``flow.JobArgumentError`` naming the job, the argument, the expected and the actual value; a bad
call never poisons the session for the next one. Jobs are traced once per module and reused.
"""

from __future__ import annotations

import typing
import warnings

import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import flowjob as flow
import flowjob.typing as tp

SHAPE = (3, 4)
MAX_DYNAMIC = (6, 4)
TARGETS = ("float32", "float64", "float16", "bfloat16", "int8", "int32", "int64", "uint8")
SOURCES = (
    "bool",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float16",
    "float32",
    "float64",
    "bfloat16",
    "complex64",
    "object",
    "str",
    "datetime64[s]",
)
LAYOUTS = ("c", "fortran", "strided", "readonly", "byteswapped", "broadcast")
# Same-kind casts overflow like NumPy's (float64 1e300 -> float32 inf) and warn like it.
pytestmark = pytest.mark.filterwarnings("ignore:overflow encountered in cast:RuntimeWarning")
SETTINGS = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def _np_dtype(name: str) -> np.dtype:
    return np.dtype(jnp.bfloat16) if name == "bfloat16" else np.dtype(name)


def _kind(dtype: np.dtype) -> str:
    """'b', 'i', 'u', 'f' for the numeric kinds (bfloat16 is 'f'), else 'other'."""
    if dtype == np.dtype(jnp.bfloat16):
        return "f"
    return dtype.kind if dtype.kind in "biuf" else "other"


def accepted(src: np.dtype, target: np.dtype) -> bool:
    """The documented rule: identical, or a same-kind cast (bool -> any number, int -> int or
    float except signed -> unsigned, float -> float). Written out here, independent of
    ``np.can_cast``, which ml_dtypes extends oddly (it allows complex -> bfloat16)."""
    s, t = _kind(src), _kind(target)
    if src == target:
        return True
    if s == "b":
        return t in "biuf"
    if s in "iu":
        return t == "f" or t == "i" or (t == "u" and s == "u")
    if s == "f":
        return t == "f" and not (src == np.dtype(jnp.bfloat16) and target == np.float16)
    return False


class _Jobs(tuple):
    """(jobs by name, watched inputs by dtype name), with a short repr for Hypothesis."""

    def __new__(cls, made, watched):
        return super().__new__(cls, (made, watched))

    def __repr__(self) -> str:
        return "<jobs>"


@pytest.fixture(scope="module")
def jobs():
    """One ``x * 2 + 1`` job per target dtype (watching its input), a dynamic and a tuple job."""
    flow.clear_default_session()
    watched: dict[str, list[np.ndarray]] = {}
    made = {}

    def make(name: str):
        def affine(x: tp.Numpy.Placeholder(SHAPE, dtype=getattr(flow, name))) -> tp.Numpy:
            flow.watch(x, lambda v: watched.setdefault(name, []).append(v))
            return x * 2 + 1

        affine.__name__ = affine.__qualname__ = f"Affine_{name}"
        return flow.global_function()(affine)

    for name in TARGETS:
        made[name] = make(name)

    @flow.global_function()
    def Dynamic(x: tp.ListNumpy.Placeholder(MAX_DYNAMIC)) -> tp.ListNumpy:
        return x * 2 + 1

    @flow.global_function()
    def Pair(
        pair: typing.Tuple[
            tp.Numpy.Placeholder((2,)), tp.Numpy.Placeholder((3,), dtype=flow.int32)
        ],
    ) -> typing.Tuple[tp.Numpy, tp.Numpy]:
        a, b = pair
        return a * 2 + 1, b * 2 + 1

    made["dynamic"], made["pair"] = Dynamic, Pair
    yield _Jobs(made, watched)
    flow.clear_default_session()


def _values(src: str, target: str, shape: tuple[int, ...]):
    """Strategy for arrays of dtype ``src`` (values in the target's range for int -> int casts:
    out-of-range values are the subject of ``test_out_of_range_integers_are_rejected``)."""
    if src in ("object", "str", "datetime64[s]", "complex64"):
        base = hnp.arrays(np.float32, shape, elements=st.floats(-100, 100, width=32))
        convert = {
            "object": lambda a: a.astype(object),
            "str": lambda a: a.astype(str),
            "datetime64[s]": lambda a: a.astype(np.int64).astype("datetime64[s]"),
            "complex64": lambda a: (a + 1j).astype(np.complex64),
        }[src]
        return base.map(lambda a: np.asarray(convert(a)))
    dt = _np_dtype(src)
    if src == "bfloat16":
        return hnp.arrays(np.float32, shape, elements=st.floats(width=32)).map(
            lambda a: np.asarray(a.astype(dt))
        )
    if dt.kind in "iu":
        lo, hi = np.iinfo(dt).min, np.iinfo(dt).max
        t = _np_dtype(target)
        if t.kind in "iu":
            lo, hi = max(lo, np.iinfo(t).min), min(hi, np.iinfo(t).max)
        return hnp.arrays(dt, shape, elements=st.integers(int(lo), int(hi)))
    if dt.kind == "f":
        return hnp.arrays(dt, shape, elements=st.floats(width=dt.itemsize * 8))
    return hnp.arrays(dt, shape)


def _layout(a: np.ndarray, how: str) -> np.ndarray:
    if how == "fortran":
        return np.asfortranarray(a)
    if how == "strided" and a.ndim:
        big = np.zeros(tuple(2 * n for n in a.shape), a.dtype)
        view = big[tuple(slice(None, None, 2) for _ in a.shape)]
        view[...] = a
        return view
    if how == "readonly":
        a = a.copy()
        a.setflags(write=False)
        return a
    if how == "byteswapped" and a.dtype.kind in "iuf" and a.dtype.itemsize > 1:
        return a.astype(a.dtype.newbyteorder())
    if how == "broadcast" and a.ndim and a.shape[0]:
        return np.broadcast_to(a[:1], a.shape)  # zero stride, read-only
    return a


def _expected(value: np.ndarray, target: np.dtype) -> np.ndarray:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        x = np.asarray(value).astype(target)
        return x, x * target.type(2) + target.type(1)


def _assert_same(actual: np.ndarray, expected: np.ndarray) -> None:
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    if expected.dtype == np.dtype(jnp.bfloat16):  # exact in float64; NaNs compare equal there
        actual, expected = actual.astype(np.float64), expected.astype(np.float64)
    np.testing.assert_array_equal(actual, expected)


@SETTINGS
@given(
    data=st.data(),
    target=st.sampled_from(TARGETS),
    src=st.sampled_from(SOURCES),
    layout=st.sampled_from(LAYOUTS),
    shape=st.one_of(
        st.just(SHAPE), hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=5)
    ),
)
def test_fixed_placeholder_result_or_clear_error(jobs, data, target, src, layout, shape):
    made, watched = jobs
    job, want = made[target], _np_dtype(target)
    assume(not (target == "bfloat16" and src == "complex64"))  # test_complex_input_to_bfloat16
    value = _layout(data.draw(_values(src, target, shape)), layout)
    before = len(watched.get(target, []))
    if value.shape != SHAPE or not accepted(value.dtype, want):
        with pytest.raises(flow.JobArgumentError) as info:
            job(value)
        msg = str(info.value)
        assert f"job 'Affine_{target}'" in msg and "argument 'x'" in msg, msg
        if value.shape != SHAPE:
            assert f"expected shape {SHAPE}" in msg and f"got {value.shape}" in msg, msg
        else:
            assert f"expected dtype {target}" in msg and str(value.dtype) in msg, msg
        assert len(watched.get(target, [])) == before  # nothing ran
        return
    cast, expected = _expected(value, want)
    snapshot = value.copy()
    _assert_same(job(value), expected)
    _assert_same(watched[target][-1], cast)  # the watch saw the converted input
    assert value.tobytes() == snapshot.tobytes()  # the caller's array was not touched


@SETTINGS
@given(
    data=st.data(),
    n=st.integers(0, 3),
    shape=hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=8),
    container=st.sampled_from(["list", "tuple", "ndarray", "generator", "dict"]),
)
def test_dynamic_placeholder_result_or_clear_error(jobs, data, n, shape, container):
    job = jobs[0]["dynamic"]
    arrays = [
        data.draw(hnp.arrays(np.float32, shape, elements=st.floats(width=32))) for _ in range(n)
    ]
    value = {
        "list": arrays,
        "tuple": tuple(arrays),
        "ndarray": arrays[0] if arrays else np.zeros(0, np.float32),
        "generator": (a for a in arrays),
        "dict": dict(enumerate(arrays)),
    }[container]
    fits = len(shape) == len(MAX_DYNAMIC) and all(a <= m for a, m in zip(shape, MAX_DYNAMIC))
    if container not in ("list", "tuple") or n != 1 or not fits:
        with pytest.raises(flow.JobArgumentError, match=r"job 'Dynamic', argument 'x'") as info:
            job(value)
        msg = str(info.value)
        if container not in ("list", "tuple"):
            assert "takes a list" in msg and type(value).__name__ in msg, msg
        elif n != 1:
            assert f"expected a list of 1 array(s) (one per device), got {n}" in msg, msg
        else:
            assert f"{MAX_DYNAMIC}" in msg and f"{shape}" in msg, msg
        return
    (out,) = job(value)
    _assert_same(out, arrays[0] * np.float32(2) + np.float32(1))  # real shape, not the padding


WRONG_CONTAINERS = [
    [[0.0] * 4] * 3,
    tuple([0.0] * 4 for _ in range(3)),
    1.5,
    3,
    None,
    "x",
    b"abc",
    {"x": np.zeros(SHAPE, np.float32)},
    np.float32(1.0),
    memoryview(np.zeros(SHAPE, np.float32)),
    jnp.zeros(SHAPE, jnp.float32),
    [np.zeros(SHAPE, np.float32)],
]


@pytest.mark.parametrize("value", WRONG_CONTAINERS, ids=lambda v: type(v).__name__)
def test_wrong_container_is_a_clear_error(jobs, value):
    with pytest.raises(flow.JobArgumentError) as info:
        jobs[0]["float32"](value)
    msg = str(info.value)
    assert "job 'Affine_float32', argument 'x'" in msg
    assert f"expected a numpy.ndarray of shape {SHAPE} and dtype float32" in msg
    assert f"got {type(value).__name__}" in msg


@pytest.mark.parametrize("args", [(), (np.zeros(SHAPE, np.float32),) * 2])
def test_wrong_argument_count_names_job_and_parameters(jobs, args):
    with pytest.raises(
        flow.JobArgumentError,
        match=rf"job 'Affine_float32' takes 1 argument\(s\) \(x\), got {len(args)}",
    ):
        jobs[0]["float32"](*args)


def test_keyword_arguments_are_refused_with_the_job_name(jobs):
    with pytest.raises(TypeError, match="job 'Affine_float32' takes positional arguments only"):
        jobs[0]["float32"](x=np.zeros(SHAPE, np.float32))


@pytest.mark.parametrize(
    "value",
    [
        np.zeros(2, np.float32),
        [np.zeros(2, np.float32)],
        {"a": 1},
        (np.zeros(2, np.float32),),
        (np.zeros(2, np.float32), np.zeros(3, np.int32), None),
    ],
)
def test_tuple_parameter_wrong_container(jobs, value):
    with pytest.raises(
        flow.JobArgumentError,
        match=r"job 'Pair', argument 'pair': expected a tuple of 2 arrays, got "
        + type(value).__name__,
    ):
        jobs[0]["pair"](value)


def test_tuple_parameter_wrong_element_names_its_index(jobs):
    with pytest.raises(
        flow.JobArgumentError,
        match=r"job 'Pair', argument 'pair'\[1\]: expected dtype int32, got "
        "float32",
    ):
        jobs[0]["pair"]((np.zeros(2, np.float32), np.zeros(3, np.float32)))
    a, b = jobs[0]["pair"]([np.array([1, 2], np.float32), np.array([3, 4, 5], np.int32)])
    np.testing.assert_array_equal(a, [3, 5])
    np.testing.assert_array_equal(b, [7, 9, 11])


def test_nan_inf_and_huge_values_follow_numpy(jobs):
    f32 = np.array(
        [
            [np.nan, np.inf, -np.inf, 3.4e38],
            [-3.4e38, 1e-45, -0.0, 0.0],
            [np.finfo(np.float32).max, np.finfo(np.float32).tiny, 1.0, -1.0],
        ],
        np.float32,
    )
    _assert_same(jobs[0]["float32"](f32), _expected(f32, np.dtype(np.float32))[1])
    f64 = np.array([[1e308, -1e308, 1e-320, np.nan]] * 3)  # beyond float32: inf and 0, as NumPy
    _assert_same(jobs[0]["float32"](f64), _expected(f64, np.dtype(np.float32))[1])
    i64 = np.array([[np.iinfo(np.int64).max, np.iinfo(np.int64).min, 0, -1]] * 3)
    _assert_same(jobs[0]["int64"](i64), _expected(i64, np.dtype(np.int64))[1])  # wraps, as XLA


@pytest.mark.parametrize(
    "target,value",
    [
        ("int32", np.full(SHAPE, 2**40, np.int64)),
        ("int32", np.full(SHAPE, 2**31, np.uint32)),
        ("int8", np.full(SHAPE, 300, np.int32)),
        ("uint8", np.full(SHAPE, 256, np.uint16)),
    ],
)
def test_out_of_range_integers_are_rejected(jobs, target, value):
    with pytest.raises(flow.JobArgumentError, match=rf"job 'Affine_{target}', argument 'x'"):
        jobs[0][target](value)


def test_complex_input_to_bfloat16_is_rejected(jobs):
    with pytest.raises(flow.JobArgumentError, match="job 'Affine_bfloat16', argument 'x'"):
        jobs[0]["bfloat16"](np.full(SHAPE, 1 + 5j, np.complex64))


def test_failed_calls_leave_the_session_usable(jobs):
    job = jobs[0]["float32"]
    for bad in (np.zeros((4, 3), np.float32), np.zeros(SHAPE, np.complex64), [1, 2]):
        with pytest.raises(flow.JobArgumentError):
            job(bad)
    flow.sync_default_session()  # nothing pending, nothing raised
    _assert_same(job(np.ones(SHAPE, np.float32)), np.full(SHAPE, 3, np.float32))
