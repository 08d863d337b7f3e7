"""``oneflow.core.common``."""
