"""OneFlow 0.4's placement API on 4 virtual CPU devices; prints one JSON object of results.

Run as a script (a fresh process: the device count is fixed when JAX starts), with no JAX
device setting in the environment: ``python _parallel_api.py SEED``. Every job is defined
*before* ``flow.config.gpu_device_num`` is called, as OneFlow's documentation programs do.
"""

import json
import sys

import jax
import numpy as np

import flowjob as flow
import flowjob.typing as tp
from flowjob._src.runtime._sharding import constrain_nd

rng = np.random.default_rng(int(sys.argv[1]))
out: dict = {}


@flow.global_function(type="train")
def hierarchical(
    x: tp.Numpy.Placeholder((8, 4)), indices: tp.Numpy.Placeholder((6,), dtype=flow.int32)
) -> tp.Numpy:
    with flow.scope.placement("gpu", "0:0-3", hierarchy=[2, 2]):
        x = flow.hierarchical_parallel_cast(x, parallel_distribution=["S(0)", "S(1)"])
        v = flow.get_variable(
            "v",
            shape=(8, 4),
            parallel_distribution=["S(0)", "B"],
            initializer=flow.constant_initializer(0.5),
        )
        y = flow.hierarchical_parallel_cast(x * v, parallel_distribution=["S(0)", "B"])
        y = flow.gather(y, indices)
        y = flow.hierarchical_parallel_cast(y, parallel_distribution=["B", "S(1)"])
    y = flow.hierarchical_parallel_cast(y, parallel_distribution=["B"])
    flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.1]), momentum=0).minimize(
        flow.math.reduce_sum(y)
    )
    return y


@flow.global_function()
def advanced(x: tp.Numpy.Placeholder((10, 3))) -> tp.Bundle[tp.Numpy]:
    pieces = flow.advanced.distribute_split(x, axis=0)
    clones = flow.advanced.distribute_clone(x)
    mapped = flow.advanced.distribute_map(x, lambda p: p * 2.0 + 1.0)
    return {
        "pieces": list(pieces),
        "concat": flow.advanced.distribute_concat([p * 3.0 for p in pieces], axis=0),
        "add": flow.advanced.distribute_add(list(clones)),
        "mapped": mapped,
    }


SHAPES = {}


def _mirrored_config():
    config = flow.function_config()
    config.default_logical_view(flow.scope.mirrored_view())
    return config


@flow.global_function(function_config=_mirrored_config())
def mirrored(x: tp.Numpy.Placeholder((8, 3))) -> tp.Numpy:
    SHAPES["x"] = x.shape
    flat = flow.reshape(x, [x.shape[0], -1])  # OneFlow programs size ops by the piece
    return flow.math.reduce_sum(flat, axis=1, keepdims=True) + flow.constant(
        1.0, shape=(x.shape[0], 1)
    )


flow.config.gpu_device_num(4)  # after the jobs are defined: no job has run yet
x = rng.normal(size=(8, 4)).astype(np.float32)
indices = rng.integers(0, 8, size=6).astype(np.int32)
out["hierarchical"] = hierarchical(x, indices).tolist()
out["hierarchical_v"] = flow.get_all_variables()["v"].numpy().tolist()
session = flow._src.runtime.default_session()
lowered = session.compiled_job(hierarchical).lowered
out["mesh"] = 0 if lowered.mesh is None else lowered.mesh.size
# The cast's lowering: a sharding constraint on the job's devices as a 2 x 2 mesh.
nd_sbp = flow._src.graph.parse_parallel_distribution(["S(0)", "S(1)"], 2, "test")
cast = jax.jit(lambda v: constrain_nd(v, nd_sbp, (2, 2), lowered.mesh))(x)
out["cast_mesh"] = dict(cast.sharding.mesh.shape)
out["cast_spec"] = str(cast.sharding.spec)
out["cast_value_equal"] = bool(np.array_equal(np.asarray(cast), x))
out["x"], out["indices"] = x.tolist(), indices.tolist()

a = rng.normal(size=(10, 3)).astype(np.float32)
out["advanced_in"] = a.tolist()
out["advanced"] = {k: np.asarray(v).tolist() for k, v in advanced(a).items() if k != "pieces"}
out["pieces"] = [p.shape for p in advanced(a)["pieces"]]

m = rng.normal(size=(8, 3)).astype(np.float32)
out["mirrored_in"] = m.tolist()
out["mirrored"] = mirrored(m).tolist()
out["mirrored_piece_shape"] = list(SHAPES["x"])
print(json.dumps(out))
