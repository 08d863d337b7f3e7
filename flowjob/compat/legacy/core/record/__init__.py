"""``oneflow.core.record``."""
