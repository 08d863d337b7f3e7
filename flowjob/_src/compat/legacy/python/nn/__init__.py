"""``oneflow.python.nn``."""
