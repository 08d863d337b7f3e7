"""Run by test_env.py in a fresh process: ``python _env_script.py CASE [ARGS]`` prints
one JSON line."""

import json
import sys

import numpy as np

import flowjob as flow

case = sys.argv[1]
if case == "resource":
    flow.config.cpu_device_num(3)
    flow.config.enable_debug_mode(True)
    flow.config.reserved_host_mem_mbyte(123)
    flow.config.use_rdma(True)
    print(json.dumps(flow.env.current_resource().__dict__))
elif case == "all_reduce":
    flow.config.cpu_device_num(4)
    rng = np.random.default_rng(0)
    xs = [rng.normal(size=(2, 3)).astype(np.float32) for _ in range(3)]
    out = flow.eager_nccl_all_reduce(xs, 'device_tag: "cpu"\ndevice_name: "0:1-3"')
    tensors = flow.eager_nccl_all_reduce(
        [flow.tensor(x) for x in xs[:2]], 'device_tag: "gpu" device_name: "0:0" device_name: "0:2"'
    )
    print(
        json.dumps(
            {
                "inputs": [x.tolist() for x in xs],
                "sums": [np.asarray(o).tolist() for o in out],
                "devices": [next(iter(o.devices())).id for o in out],
                "tensor_sums": [t.tolist() for t in tensors],
                "tensor_devices": [str(t.device) for t in tensors],
                "tensor_jax_devices": [next(iter(t.array.devices())).id for t in tensors],
            }
        )
    )
elif case == "bootstrap":
    nodes = sys.argv[2].split(",")
    port = int(sys.argv[3])
    confs = flow.env.init_bootstrap_confs(nodes, port)

    @flow.global_function()
    def job(x: flow.typing.Numpy.Placeholder((2,))) -> flow.typing.Numpy:
        return x * 2

    doubled = job(np.ones(2, np.float32)).tolist()
    print(
        json.dumps(
            {
                "confs": [[c.rank, c.host, c.world_size, c.master_addr.port] for c in confs],
                "machine_num": flow.current_resource().machine_num,
                "doubled": doubled,
            }
        )
    )
