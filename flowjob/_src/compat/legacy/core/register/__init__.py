"""``oneflow.core.register``."""
