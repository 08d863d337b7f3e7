"""``import flowjob`` leaves JAX alone; flowjob configures it when the first session starts."""

from __future__ import annotations

import os

import numpy as np

from tests.subprocess_env import run_json


def _child(code: str) -> dict:
    env = dict(os.environ)
    env.pop("JAX_NUM_CPU_DEVICES", None)
    env.pop("JAX_ENABLE_X64", None)
    env.pop("FLOWJOB_CACHE_DIR", None)
    env["JAX_PLATFORMS"] = "cpu"  # the scenario of the issue: a CPU-only machine
    return run_json(code, env=env)


_SETTINGS = (
    "jax_enable_x64",
    "jax_compilation_cache_dir",
    "jax_num_cpu_devices",
    "jax_persistent_cache_min_compile_time_secs",
    "jax_persistent_cache_min_entry_size_bytes",
)


def test_import_starts_no_backend_and_changes_no_jax_setting():
    out = _child(f"""
        import json
        import jax
        from jax._src import xla_bridge
        names = {_SETTINGS!r}
        before = {{n: getattr(jax.config, n) for n in names}}
        import flowjob
        import flowjob.typing
        after = {{n: getattr(jax.config, n) for n in names}}
        started = xla_bridge.backends_are_initialized()

        @flowjob.global_function()
        def job() -> flowjob.typing.Numpy:
            return flowjob.constant(3, dtype=flowjob.int64, shape=(2,))

        value = job()
        print(json.dumps({{"before": before, "after": after, "started": started,
                          "x64_after_job": jax.config.jax_enable_x64,
                          "dtype": str(value.dtype)}}))
    """)
    assert out["started"] is False
    assert out["after"] == out["before"]
    assert out["before"]["jax_enable_x64"] is False
    # The first job is where flowjob turns on what OneFlow programs need (int64 blobs).
    assert out["x64_after_job"] is True and out["dtype"] == "int64"


def test_gpu_device_num_after_import_gives_the_job_that_many_cpu_devices():
    out = _child("""
        import json
        import numpy as np
        import flowjob as flow
        import flowjob.typing as tp

        flow.config.gpu_device_num(2)
        config = flow.function_config()
        config.default_logical_view(flow.scope.mirrored_view())

        @flow.global_function(function_config=config)
        def job(x: tp.Numpy.Placeholder((4, 3))) -> tp.ListNumpy:
            return x * 2

        pieces = job(np.arange(12, dtype=np.float32).reshape(4, 3))
        import jax
        print(json.dumps({"devices": len(jax.devices()),
                          "pieces": [p.tolist() for p in pieces]}))
    """)
    assert out["devices"] == 2
    expected = np.arange(12, dtype=np.float32).reshape(4, 3) * 2
    assert len(out["pieces"]) == 2
    np.testing.assert_array_equal(np.concatenate(out["pieces"]), expected)


def test_device_count_after_the_first_job_names_the_fix():
    out = _child("""
        import json
        import flowjob as flow
        import flowjob.typing as tp

        @flow.global_function()
        def job() -> tp.Numpy:
            return flow.constant(1.0, shape=(1,))

        job()
        try:
            flow.config.cpu_device_num(4)
        except flow.FlowJobError as exc:
            print(json.dumps({"error": str(exc)}))
    """)
    assert "cpu_device_num(4)" in out["error"] and "1 device(s)" in out["error"]
    assert "before the first job" in out["error"]
