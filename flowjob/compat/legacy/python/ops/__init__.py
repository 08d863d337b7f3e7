"""``oneflow.python.ops``."""
