"""The test op types OneFlow v0.4 registers for its own builder tests (``TestReshape``,
``ccrelu``, ``TestMultiInput``...), with the kernels' behaviour: their tests build them by name.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from .. import _dtypes
from ..graph import Blob, RealShape, add_feed_op, apply_op, current_placement
from ..ops import array_ops, math
from ..runtime import config as runtime_config
from ._registry import OpCall, define


def _test_source(c: OpCall) -> Blob:
    return apply_op("TestSource", lambda: jnp.arange(5, dtype=jnp.float32), [], name=c.name)


def _lower_dynamic_source():
    # the kernel writes 0, 1, 2 and sets the real size to 3 of the (5,) maximum
    return jnp.arange(5, dtype=jnp.float32) * (jnp.arange(5) < 3)


def _test_dynamic_source(c: OpCall) -> Blob:
    return apply_op(
        "TestDynamicSource",
        _lower_dynamic_source,
        [],
        name=c.name,
        real_shape=RealShape(lambda shapes, padded: (3,)),
        dynamic_source=True,
    )


def _lower_fixed_out_num(*, out_num, parallel_num):
    # Split on axis 0 over the placement's devices as OneFlow's BalancedSplitter does (the
    # first out_num % n pieces one longer); each device's kernel numbers its own piece 0, 1...
    base, longer = divmod(out_num, parallel_num)
    sizes = [base + 1 if i < longer else base for i in range(parallel_num)]
    return jnp.asarray(np.concatenate([np.arange(n, dtype=np.float32) for n in sizes]))


def _test_source_multi_gpu_fixed_out_num(c: OpCall) -> Blob:
    placement = current_placement()
    # the devices the op is placed on (OneFlow's default placement: every configured device)
    parallel_num = (
        runtime_config.process.device_num if placement is None else len(placement.device_ids())
    )
    return apply_op(
        "TestSourceMultiGpuFixedOutNum",
        _lower_fixed_out_num,
        [],
        attrs={"out_num": int(c.attrs["out_num"]), "parallel_num": parallel_num},
        name=c.name,
    )


def _test_multi_output_order(c: OpCall) -> dict[str, list[Blob]]:
    def lowering(x):
        shape = (*x.shape[:-1], x.shape[-1] * 2)
        return x, jnp.zeros(shape, x.dtype)

    out1, out2 = apply_op("TestMultiOutputOrder", lowering, [c.input("in")], name=c.name)
    return {"out1": [out1], "out2": [out2]}


@jax.custom_vjp
def _multi_input(x1, x2):
    return x1


def _multi_input_fwd(x1, x2):
    return x1, (x1, x2)


def _multi_input_bwd(saved, _dy):
    # OneFlow's TestMultiInputGrad kernel fills the gradients with 1 and 2, whatever dy is.
    x1, x2 = saved
    return jnp.ones_like(x1), jnp.full_like(x2, 2)


_multi_input.defvjp(_multi_input_fwd, _multi_input_bwd)


def _test_multi_input(c: OpCall) -> Blob:
    return apply_op("TestMultiInput", _multi_input, [c.input("x1"), c.input("x2")], name=c.name)


def _test_data_type_attr(c: OpCall) -> Blob:
    return array_ops.cast(c.input("in"), _dtypes.as_dtype(c.attrs["output_type"]), name=c.name)


def _test_list_attrs(c: OpCall) -> dict[str, list[Blob]]:
    shapes = [tuple(int(d) for d in s) for s in c.attrs["out_shapes"]]
    types = [_dtypes.as_dtype(t).np_dtype for t in c.attrs["out_types"]]

    def lowering(_x):
        return tuple(jnp.zeros(s, t) for s, t in zip(shapes, types))

    outs = apply_op(
        "TestListDataTypeAndListShapeAndListStringAttr", lowering, [c.input("in")], name=c.name
    )
    return {"out": list(outs)}


def _test_random_source(c: OpCall) -> Blob:
    seed = int(c.attrs["seed"])

    def stream():
        # The kernel draws std::uniform_real_distribution<float> from a std::mt19937 seeded
        # with ``seed``: one 32-bit word a value, scaled by 2**-32. NumPy's legacy MT19937
        # seeding is the same generator.
        # randint over the whole uint32 range takes one raw word per value.
        words = np.random.RandomState(seed)
        return lambda: (words.randint(0, 2**32, size=5, dtype=np.uint32) / 2.0**32).astype(
            np.float32
        )

    return add_feed_op(
        "TestRandomSource",
        [],
        stream,
        source=True,
        name=c.name,
        attrs={"seed": seed},
        outputs=[((5,), _dtypes.float32, False)],
    )


def _register() -> None:
    define("ccrelu", ["in"], ["out"], lambda c: math.relu(c.input("in"), name=c.name))
    define("cpu_only_relu_test", ["in"], ["out"], lambda c: math.relu(c.input("in"), name=c.name))
    define(
        "TestReshape",
        ["in"],
        ["out"],
        lambda c: array_ops.reshape(c.input("in"), list(c.attrs["shape"]), name=c.name),
        attrs={"shape": None},
    )
    define("TestSource", [], ["out"], _test_source)
    define("TestDynamicSource", [], ["out"], _test_dynamic_source)
    define(
        "TestSourceMultiGpuFixedOutNum",
        [],
        ["out"],
        _test_source_multi_gpu_fixed_out_num,
        attrs={"out_num": None},
    )
    define("TestMultiOutputOrder", ["in"], ["out1", "out2"], _test_multi_output_order)
    define("TestMultiInput", ["x1", "x2"], ["y"], _test_multi_input)
    define("TestDataTypeAttr", ["in"], ["out"], _test_data_type_attr, attrs={"output_type": None})
    define(
        "TestListDataTypeAndListShapeAndListStringAttr",
        ["in"],
        ["out"],
        _test_list_attrs,
        attrs={"out_shapes": None, "out_types": None, "string_list": None},
    )
    define("TestRandomSource", [], ["out"], _test_random_source, attrs={"seed": 0})
    define(
        "test_user_op_attr_auto_type",
        ["in"],
        ["out"],
        lambda c: array_ops.identity(c.input("in"), name=c.name),
        attrs={"int1": 0, "int2": 0},
    )


_register()
