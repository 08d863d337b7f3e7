"""The known, justified differences of the signature table (one line each), and the rows fixed.

``KNOWN`` maps an export path to the key of its reason in ``REASONS``; a path listed here must
still differ (the table's test says when one no longer does, so the list cannot go stale).
``FIXED`` lists the rows that differed until issue 46 and pass now (the count in
``docs/guides/migrating.md``).
"""

from __future__ import annotations

REASONS = {
    "forwards": (
        "OneFlow's export only forwards *args/**kwargs to one function (a deprecated spelling "
        "or an enable_if dispatch); flowjob spells out that function's parameters"
    ),
    "layer_name": (
        "name=None names the first unnamed layer of a job with OneFlow's default name and "
        "numbers later ones (ops/_util.layer_name), where OneFlow's two collided"
    ),
    "dtype_default": (
        "dtype=None takes the function config's default_data_type, else float32 (OneFlow "
        "v0.4's default); v0.2-v0.3 programs relied on the config"
    ),
    "custom_scheduler": (
        "OneFlow's CustomScheduler(lbn) reads the rate from a blob by name; flowjob has no blob "
        "names to look up and takes fn(step) -> rate"
    ),
}

KNOWN = {
    "name_scope": "forwards",
    "deprecated.variable_scope": "forwards",
    "env.init_bootstrap_confs": "forwards",
    "FixedTensorDef": "forwards",
    "MirroredTensorDef": "forwards",
    "device_prior_placement": "forwards",
    "fixed_placement": "forwards",
    "scope.current_scope": "forwards",
    "layers.dense": "layer_name",
    "layers.conv1d": "layer_name",
    "layers.conv2d": "layer_name",
    "layers.conv3d": "layer_name",
    "layers.layer_norm": "layer_name",
    "layers.batch_normalization": "layer_name",
    "layers.batch_normalization_add_relu": "layer_name",
    "layers.batch_normalization_relu": "layer_name",
    "layers.upsample_2d": "layer_name",
    "layers.prelu": "layer_name",
    "range": "layer_name",
    "get_variable": "dtype_default",
    "optimizer.CustomScheduler": "custom_scheduler",
}

_OPT_ORDER = "train_step_lbn, loss_scale_policy, variables positional in OneFlow's order"

# Rows fixed for issue 46 (they pass now): path -> what changed.
FIXED = {
    "save": "flow.save(obj, save_dir): OneFlow's parameter names (and order)",
    "config.load_library": "the parameter is val",
    "config.load_library_now": "the parameter is val",
    "config.machine_num": "the parameter is val",
    "config.gpu_device_num": "the parameter is val",
    "config.cpu_device_num": "the parameter is val",
    "convert_oneflow_dtype_to_numpy_dtype": "the parameter is oneflow_dtype",
    "env.machine": "machine(*val): the machines as arguments or one list",
    "env.ctrl_port": "the parameter is val",
    "optimizer.PolynomialSchduler": "spells out PolynomialScheduler's parameters",
    "optimizer.SGD": _OPT_ORDER,
    "optimizer.SGDW": _OPT_ORDER,
    "optimizer.Adam": _OPT_ORDER,
    "optimizer.AdamW": _OPT_ORDER,
    "optimizer.RMSProp": _OPT_ORDER,
    "optimizer.LARS": "weight decay before grad_clipping, then train_step_lbn... as in OneFlow",
    "optimizer.LazyAdam": _OPT_ORDER,
    "optimizer.LAMB": "weight decay before grad_clipping, then train_step_lbn... as in OneFlow",
    "math.reduce_mean": "the input is input_blob",
    "math.reduce_min": "the input is x",
    "math.reduce_max": "the input is x",
    "math.reduce_prod": "the input is x",
    "data.OFRecordRawDecoder": "truncate (flowjob's own) after OneFlow's parameters",
    "data.ofrecord_raw_decoder": "truncate (flowjob's own) after OneFlow's parameters",
    "summary.Graph": "logdir defaults to None (still refused with OneFlow's message)",
    "summary.Projector": "logdir defaults to None (still refused with OneFlow's message)",
}


def reason(path: str) -> str | None:
    """The one-line reason a row at ``path`` differs, or None."""
    key = KNOWN.get(path)
    return REASONS[key] if key else None
