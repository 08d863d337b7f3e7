"""OneFlow op types that correspond to a flowjob op but have no builder entry yet (the
``not_yet`` reason of the op-type table; the table's test fails when one becomes buildable
and is still listed, or when an unlisted type has no reason)."""

from __future__ import annotations

NOT_YET: frozenset[str] = frozenset(
    {
        "CategoricalOrdinalEncode",
        "argwhere",
        "assign_if",
        "assign_if_not",
        "bernoulli",
        "broadcast_matmul",
        "combined_margin_loss",
        "ctc_loss",
        "deconv1d",
        "deconv2d",
        "deconv3d",
        "dim_scatter_add_like",
        "distributed_partial_fc_sample",
        "empty",
        "expand",
        "fake_quantization",
        "fused_bias_add_gelu",
        "fused_bias_add_mask_scale",
        "fused_scale_tril",
        "fused_self_attention_query_mul_key_and_value",
        "fused_tril_scale_softmax_mask_scale",
        "generate_random_batch_permutation_indices",
        "logical_slice",
        "logical_slice_assign",
        "min_max_observer",
        "moving_average_min_max_observer",
        "normalization_add_relu",
        "prelu",
        "random_mask_like",
        "same_padding",
        "upsample",
    }
)
