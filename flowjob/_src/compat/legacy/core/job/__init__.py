"""``oneflow.core.job``."""
