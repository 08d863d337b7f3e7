"""The export-list script: OneFlow v0.4.0's legacy names, and which resolve under the alias.

The tests that read OneFlow's sources need a clone (``$FLOWJOB_ONEFLOW_SRC``, or the read-only
mirror of the development machine); without one they skip.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from flowjob._src.compat import api_coverage
from tests.timeouts import scaled

REPO = Path(__file__).resolve().parents[2]
_MIRROR = "/work/.mirror/Oneflow-Inc+oneflow/repo"
CLONE = os.environ.get(api_coverage.ENV_VAR) or (_MIRROR if Path(_MIRROR).is_dir() else None)
needs_clone = pytest.mark.skipif(
    CLONE is None, reason=f"no OneFlow clone (${api_coverage.ENV_VAR})"
)

# Names this project provides on purpose; each must stay resolvable (a regression guard).
PROVIDED = [
    "global_function",
    "math.reduce_sum",
    "nn.conv2d",
    "layers.dense",
    "optimizer.Adam",
    "sysconfig.with_cuda",
    "sysconfig.get_include",
    "profiler.range_push",
    "profiler.nvtx_start",
    "tensorrt.write_int8_calibration",
    "config.load_library",
    "Size",
    "dtypes",
    "distributed.get_rank",
    "current_machine_id",
    "hierarchical_parallel_cast",
    "advanced.distribute_clone",
    "advanced.distribute_add",
    "advanced.distribute_split",
    "advanced.distribute_concat",
    "advanced.distribute_map",
    "experimental.logical_slice",
    "experimental.logical_slice_assign",
    "experimental.get_interface_blob_value",
    "experimental.set_interface_blob_value",
    "unittest.register_test_cases",
    "elem_cnt",
    "assign",
    "system.assign",
    "random.bernoulli",
    "random.shuffle",
    "random.gen_seed",
    "random.generate_random_batch_permutation_indices",
    "nn.InstanceNorm1d",
    "nn.InstanceNorm3d",
    "nn.GroupNorm",
    "math.two_stage_reduce_max",
    "math.two_stage_reduce_min",
    "cast_to_static_shape",
    "dynamic_reshape",
    "in_top_k",
    "nn.max_pool1d",
    "nn.avg_pool1d",
    "nn.max_pool3d",
    "nn.avg_pool3d",
    "linalg.matmul",
    "nn.tril",
    "util.unique_str",
    "is_deprecated",
    "name_scope",
    "deprecated.variable_scope",
    "scope.consistent_view_enabled",
    "distribute.mirrored_strategy_enabled",
    "distribute.assert_is_valid_distribute",
    "env.data_port",
    "env.grpc_use_no_signal",
    "inter_job_reuse_mem_strategy",
    "same_padding",
    "pad_grad",
    "nn.fused_self_attention_query_mul_key_and_value",
    "nn.distributed_sparse_softmax_cross_entropy_with_logits",
    "quantization.min_max_observer",
    "quantization.fake_quantization",
    "quantization.moving_average_min_max_observer",
    "ctc_loss",
    "combined_margin_loss",
    "layers.layer_norm_grad",
    "layers.layer_norm_param_grad",
    "nn.torch_conv2d_transpose",
    "optimizer.CombinedOptimizer",
    "InitEagerGlobalSession",
    "Tensor",
    "tensor",
    "nn.Module",
    "nn.Parameter",
    "nn.init.calculate_gain",
    "nn.init.kaiming_normal_",
    "nn.init.xavier_uniform_",
    "current_resource",
    "env.current_resource",
    "env.init_bootstrap_confs",
    "deprecated.delete_worker_by_bootstrap",
    "deprecated.delete_worker_of_multi_process",
    "eager_nccl_all_reduce",
]


def test_resolves_walks_the_alias():
    assert api_coverage.resolves("math.reduce_sum")
    assert api_coverage.resolves("typing.Numpy")
    assert not api_coverage.resolves("math.no_such_op")
    assert not api_coverage.resolves("no_such_package.x")


@pytest.mark.parametrize("name", PROVIDED)
def test_names_provided_here_resolve(name):
    assert api_coverage.resolves(name)


def test_without_a_clone_the_script_says_how_to_give_one(monkeypatch, capsys):
    monkeypatch.delenv(api_coverage.ENV_VAR, raising=False)
    assert api_coverage.main([]) == 2
    assert api_coverage.ENV_VAR in capsys.readouterr().err


def test_a_path_that_is_no_clone_is_a_clear_error(tmp_path):
    with pytest.raises(api_coverage.OneFlowSourceError, match=str(tmp_path)):
        api_coverage.legacy_export_names(tmp_path)


@needs_clone
def test_export_list_is_the_legacy_api():
    names = api_coverage.legacy_export_names(CLONE)
    assert len(names) == len(set(names)) > 500
    for legacy in (
        "global_function",
        "math.reduce_sum",
        "nn.conv2d",
        "layers.batch_normalization",
        "config.gpu_device_num",
        "tensorrt.write_int8_calibration",
        "InitEagerGlobalSession",
    ):
        assert legacy in names
    # the eager API is left out: experimental.*, autograd.*, @experimental_api, nn/modules
    for eager in ("optim.SGD", "autograd.grad", "experimental.square_sum", "nn.Conv2d"):
        assert eager not in names


@needs_clone
def test_script_prints_the_count_and_the_missing_names():
    env = dict(os.environ, PYTHONPATH=str(REPO), JAX_PLATFORMS="cpu")
    done = subprocess.run(
        [sys.executable, "-m", "flowjob._src.compat.api_coverage", "--oneflow", CLONE],
        capture_output=True,
        text=True,
        env=env,
        timeout=scaled(300),
        check=True,
    )
    lines = done.stdout.splitlines()
    names = api_coverage.legacy_export_names(CLONE)
    missing = [line.removeprefix("missing: ") for line in lines[1:]]
    assert lines[0] == f"{len(names) - len(missing)} of {len(names)} names resolve"
    assert set(missing) <= set(names)
    assert not set(missing) & set(PROVIDED)
    assert all(not api_coverage.resolves(n) for n in missing[:20])


TABLE = REPO / "flowjob/_src/compat/legacy/python_modules.txt"


def _table_rows() -> list[list[str]]:
    lines = TABLE.read_text(encoding="utf-8").splitlines()
    return [line.split() for line in lines if line and not line.startswith("#")]


@needs_clone
def test_python_module_table_is_the_clones():
    lines = api_coverage.python_module_lines(CLONE)
    assert [" ".join(row) for row in _table_rows()] == lines
    assert "nn.parameter Parameter nn.Parameter" in lines


def test_each_python_module_name_is_the_object_at_its_export_path():
    """``oneflow.python.<module>.<name>`` is flowjob's object at the export path wherever that
    resolves, and fails naming the module path wherever none does."""
    import importlib

    from flowjob import compat

    rows = _table_rows()
    assert len(rows) > 500
    found = 0
    with compat.aliased():
        import oneflow

        for module, name, *paths in rows:
            held = importlib.import_module(f"oneflow.python.{module}")
            # v0.4 published its experimental API under oneflow.experimental only
            candidates = [*paths, *(f"experimental.{p}" for p in paths)]
            exported = [p for p in candidates if api_coverage.resolves(p)]
            if not exported:
                with pytest.raises(AttributeError, match=rf"oneflow.python.{module}.{name}\b"):
                    getattr(held, name)
                continue
            target = oneflow
            for part in exported[0].split("."):
                target = getattr(target, part)
            assert getattr(held, name) is target, (module, name)
            found += 1
    assert found > 300  # most of the v0.4 API is there
