"""``oneflow.python.framework``."""
