"""``oneflow.python``: the helper modules of OneFlow's Python package that programs import."""
