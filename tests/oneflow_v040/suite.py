"""What is known about OneFlow v0.4.0's op test files on flowjob.

Every test file of ``oneflow/python/test/ops/`` at v0.4.0 runs (``TOTAL_FILES``; read from a
OneFlow clone at run time, the repository holds none of them), each at 1 device and at the
device counts of its ``skip_unless_1n<N>d`` classes (``COUNTS``). ``KNOWN_FAILURES``: file ->
the known cause of its failure on flowjob (shown in RESULTS.md; the pytest runner treats it as
an expected failure and fails once the file passes). ``NOTES``: why a file runs no test
anywhere. ``CPU_ONLY``: files run with ``ONEFLOW_TEST_CPU_ONLY=1`` (their "gpu" cases need a
GPU feature), with the reason. ``LISTED``: the files tests/README.md's coverage table maps.
How the files run: README.md here.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path

from ._standin_customized import prepare_customized
from ._standin_dataset import prepare_standin
from .folders import Expected

# The files whose tests tests/README.md's coverage table maps to flowjob's own tests (one row
# each, checked by tests/parity/test_coverage_table.py): the one-device list of 2026-11-24.
LISTED: tuple[str, ...] = (
    "test_KLDivloss.py",
    "test_MarginRankingLoss.py",
    "test_TripletMarginLoss.py",
    "test_activations.py",
    "test_add.py",
    "test_add_n.py",
    "test_argmax.py",
    "test_argsort.py",
    "test_assign.py",
    "test_batch_gather.py",
    "test_batch_normalization.py",
    "test_bce_loss.py",
    "test_bce_with_logits_loss.py",
    "test_bernoulli.py",
    "test_bias_add.py",
    "test_binary_elementwise_ops.py",
    "test_broadcast_like.py",
    "test_broadcast_logical_ops.py",
    "test_broadcast_maximum.py",
    "test_broadcast_minimum.py",
    "test_broadcast_normal.py",
    "test_broadcast_to_compatible_with.py",
    "test_cast.py",
    "test_cast_to_static_shape.py",
    "test_clip_by_value.py",
    "test_compat_conv2d.py",
    "test_concat.py",
    "test_constant.py",
    "test_constant_like.py",
    "test_constant_pad2d.py",
    "test_count_not_finite.py",
    "test_ctc_loss.py",
    "test_deconv2d.py",
    "test_demo.py",
    "test_diag.py",
    "test_dim_gather.py",
    "test_dim_gather_dynamic.py",
    "test_dropout.py",
    "test_elementwise_maximum_minimum.py",
    "test_elementwise_maximum_minimum_dynamic.py",
    "test_elu.py",
    "test_expand_dims.py",
    "test_expand_op.py",
    "test_flatten.py",
    "test_function_config.py",
    "test_fused_bias_add_dropout.py",
    "test_fused_bias_add_gelu.py",
    "test_fused_scale_tril.py",
    "test_fused_scale_tril_softmax_mask_and_scale.py",
    "test_fused_self_attention_query_mul_key_and_value.py",
    "test_gather.py",
    "test_gather_nd.py",
    "test_gelu.py",
    "test_get_variable.py",
    "test_global_function_input_output.py",
    "test_global_function_signature.py",
    "test_group_norm_op.py",
    "test_hardsigmoid.py",
    "test_hardswish.py",
    "test_hardtanh.py",
    "test_identity_n.py",
    "test_in_top_k.py",
    "test_inplace.py",
    "test_instance_norm_op.py",
    "test_l1loss.py",
    "test_l2_normalize.py",
    "test_layer_norm.py",
    "test_layers_conv1d.py",
    "test_layers_conv2d.py",
    "test_layers_conv3d.py",
    "test_leaky_relu.py",
    "test_logsoftmax.py",
    "test_masked_fill.py",
    "test_matmul.py",
    "test_mish.py",
    "test_mod.py",
    "test_mod_int.py",
    "test_model_io.py",
    "test_moments.py",
    "test_mseloss.py",
    "test_multi_optimizer.py",
    "test_multiply.py",
    "test_name_scope.py",
    "test_nn_conv1d.py",
    "test_nn_conv2d.py",
    "test_nn_conv2d_padding.py",
    "test_nn_conv3d.py",
    "test_one_hot.py",
    "test_ones.py",
    "test_optimizers.py",
    "test_parallel.py",
    "test_pixel_shuffle.py",
    "test_pixel_shufflev2.py",
    "test_polyval.py",
    "test_pool.py",
    "test_pool_padding.py",
    "test_prelu.py",
    "test_random_mask_like.py",
    "test_range.py",
    "test_reduce_mean.py",
    "test_reflection_pad2d.py",
    "test_relu6.py",
    "test_replication_pad2d.py",
    "test_reshape.py",
    "test_reshapeV2.py",
    "test_reverse.py",
    "test_scalar_by_tensor_int.py",
    "test_scalar_by_tensor_ops.py",
    "test_scalar_divide.py",
    "test_scalar_pow.py",
    "test_scatter_nd.py",
    "test_shuffle.py",
    "test_sigmoid_cross_entropy.py",
    "test_size.py",
    "test_slice_v2.py",
    "test_smooth_l1_loss.py",
    "test_softmax.py",
    "test_softmax_cross_entropy.py",
    "test_sort.py",
    "test_sparse_cross_entropy.py",
    "test_sparse_softmax_cross_entropy.py",
    "test_sqrt.py",
    "test_square.py",
    "test_squared_difference.py",
    "test_squeeze.py",
    "test_stack.py",
    "test_summary.py",
    "test_swish.py",
    "test_top_k.py",
    "test_transpose.py",
    "test_tril.py",
    "test_unsorted_batch_segment_sum.py",
    "test_unsorted_segment_sum.py",
    "test_unsorted_segment_sum_fw_bw.py",
    "test_upsample.py",
    "test_watch_diff.py",
    "test_zero_pad2d.py",
    "test_zeros.py",
)

TOTAL_FILES = 224  # test_*.py of oneflow/python/test/ops at v0.4.0, less 2 helper modules
COUNTS = (1, 2, 4)  # the device counts of one node that the files' classes are written for


KNOWN_FAILURES: dict[str, str] = {
    "test_dropout.py": "test_dropout_module compares masks with literals from OneFlow's own "
    "random stream; flowjob draws from JAX's PRNG (test_dropout passes)",
    "test_lamb.py": "cannot run anywhere today: its reference, tensorflow_addons (end of life), "
    "does not install with TensorFlow >= 2.16",
    "test_gpt_data_loader.py": "it reads OneFlow's private dataset "
    "(/dataset/Megatron-LM/dummy/gpt_sample_dataset_text_document)",
}

# Known causes of failures of the eager column (ops/ run with ONEFLOW_TEST_ENABLE_EAGER=1):
# the lazy ones, which hold there too.
EAGER_KNOWN_FAILURES: dict[str, str] = dict(KNOWN_FAILURES)

# Files that run no test anywhere, with OneFlow's reason (the skip messages say the rest).
NOTES: dict[str, str] = {
    "test_memory_zone_out_of_memory.py": "every test is commented out upstream",
}

CPU_ONLY: dict[str, str] = {
    "test_pool.py": "the TensorFlow reference of its gpu cases uses NCHW pooling, which "
    "TensorFlow has only on GPU",
    "test_pool_padding.py": "the TensorFlow reference of its gpu cases uses NCHW pooling, which "
    "TensorFlow has only on GPU",
    "test_nn_conv2d_padding.py": "the TensorFlow reference of its gpu cases uses NCHW "
    "convolution, which TensorFlow has only on GPU",
    "test_matmul.py": "its gpu cases test float16 automatic mixed precision "
    "(flow.amp_white_identity), a GPU feature",
}

# -- the other folders of the tree (folders.py says how each runs) ---------------------------


@dataclasses.dataclass(frozen=True)
class StandIn:
    """Stand-in data for a file that reads OneFlow's private ``/dataset``: ``reads`` (what it
    reads there) and ``prepare``, a callable (file's path, working folder) -> the path of the
    file to run, that writes the stand-in and points the file at it (None: no stand-in yet,
    the file runs until it opens the data)."""

    reads: str
    prepare: Callable[[Path, Path], Path] | None = None
    note: str = ""


_IMAGENETTE = StandIn(
    "/dataset/imagenette/ofrecord (OFRecords, PNG references) and a ResNet-50 checkpoint",
    prepare=prepare_standin,
    note="stand-in: 64 JPEG records written by flowjob's writer, references by OpenCV + "
    "NumPy, a ResNet-50 checkpoint of fresh weights in OneFlow's layout "
    "(_standin_dataset.py)",
)
STANDINS: dict[str, StandIn] = {
    "modules/test_dataset.py": _IMAGENETTE,
    "modules/test_resnet50_with_bn.py": _IMAGENETTE,
    "modules/test_resnet50_without_bn.py": StandIn(
        "/dataset/imagenette/ofrecord and /dataset/imagenette/resnet50_pretrained, and "
        "compares each step's loss with OneFlow's own losses on them (to 1e-5)",
        prepare=prepare_standin,
        note="stand-in: the 64 JPEG records, Fixup-style ResNet-50 weights drawn with NumPy "
        "and written in OneFlow's layout, and in place of OneFlow's 100 losses PyTorch's on "
        "the same inputs and weights (cached with their inputs' SHA-256; "
        "_standin_checkpoint.py, _standin_resnet.py)",
    ),
    "customized/new_data_pre.py": StandIn(
        "/dataset/imagenet_16_same_pics/ofrecord (an OFRecord part of ImageNet JPEGs)",
        prepare=prepare_customized,
        note="stand-in: 16 JPEG records written by flowjob's writer (as part-0 and "
        "part-00000) and the output/ folder it saves into; it checks no value, so it "
        "passes by running to its end (_standin_customized.py)",
    ),
    "customized/ccrelu_alexnet.py": StandIn(
        "/dataset/PNGS/PNG227/of_record_repeated (OFRecords) and an AlexNet checkpoint "
        "(/dataset/PNGS/cnns_model_for_test/alexnet/models/of_model_bk)",
        prepare=prepare_customized,
        note="stand-in: 64 PNG records of 227 x 227 in 32 parts written by flowjob's writer "
        "and AlexNet weights drawn with NumPy in OneFlow's layout; it checks no value, so "
        "it passes by running its 10 steps to its end (_standin_customized.py)",
    ),
}

_PRIVATE = "needs private data"
_BROKEN = "broken upstream"
# Known outcomes of files of the other folders: the run must fail with the error named (a
# regular expression on its first error line), else the file counts as failing.
EXPECTED: dict[str, Expected] = {
    **{
        name: Expected(_PRIVATE, f"reads {standin.reads}", r"/dataset/")
        for name, standin in STANDINS.items()
        if standin.prepare is None
    },
    "deprecated/constant_scalar.py": Expected(
        _BROKEN,
        "calls `dlnet.ConstantScalar`, a name the file never defines or imports",
        r"^NameError: name 'dlnet' is not defined",
    ),
    "deprecated/enable_all_reduce_group.py": Expected(
        _BROKEN,
        "Python 2 `print` statements: not Python 3",
        r"^SyntaxError: Missing parentheses in call to 'print'",
    ),
    "deprecated/variable_scope.py": Expected(
        _BROKEN,
        "imports oneflow as `of` but decorates its jobs with `flow.global_function`, a name "
        "it never defines",
        r"^NameError: name 'flow' is not defined",
    ),
}
