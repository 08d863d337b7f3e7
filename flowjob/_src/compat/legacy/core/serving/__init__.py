"""``oneflow.core.serving``: the saved model messages OneFlow's serving programs import."""
